/** The checked-in rule docs (docs/rules) are generated from rule metadata; fail when stale. */
import * as fs from 'fs';
import * as path from 'path';
import { ruleMarkdown, rulesIndexMarkdown } from '../../lib/cli/rules';
import { ALL_RULES } from '../../lib/rules';

const DOCS = path.resolve(__dirname, '../../docs/rules');
const HOW = 'regenerate with `node build/lib/cli/main.js rules --format markdown` after `npm run build`';

describe('rule docs', () => {
  test.each(ALL_RULES.map((r) => [r.meta.id, r] as const))('docs/rules/%s.md is up to date', (id, rule) => {
    const file = path.join(DOCS, `${id}.md`);
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: ${HOW}`);
    expect([fs.readFileSync(file, 'utf8') === ruleMarkdown(rule.meta), HOW]).toEqual([true, HOW]);
  });
  test('the index lists every rule and no stale pages remain', () => {
    expect(fs.readFileSync(path.join(DOCS, 'README.md'), 'utf8')).toBe(rulesIndexMarkdown(ALL_RULES.map((r) => r.meta)));
    const pages = fs.readdirSync(DOCS).filter((f) => f !== 'README.md').sort();
    expect(pages).toEqual(ALL_RULES.map((r) => `${r.meta.id}.md`).sort());
  });
});

describe('the catalog is the contract of RULES.md', () => {
  const rulesMd = fs.readFileSync(path.resolve(__dirname, '../../../shared/docs/RULES.md'), 'utf8');
  /** The "Rules being added" list: `- \`id\` (spec; severity; fix: yes|no): ...`, part of the contract once implemented. */
  const added = (() => {
    const start = rulesMd.indexOf('### Rules being added');
    const section = start < 0 ? '' : rulesMd.slice(start, rulesMd.indexOf('\n## ', start) < 0 ? undefined : rulesMd.indexOf('\n## ', start));
    return [...section.matchAll(/^- `([a-z0-9-]+)` \(([^)]*)\)/gm)].map((m) => ({ id: m[1], fix: /fix: (yes|no)/.exec(m[2])?.[1], severity: /; (error|warning|info)[;/ ]/.exec(m[2])?.[1] }));
  })();

  test('every rule ID of RULES.md (table and "Rules being added") exists, with no extra, each with a description and doc', () => {
    const ids = [...rulesMd.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(ids.length).toBe(37);
    expect(added.map((a) => a.id)).toEqual(['surge-resource-deadlock', 'webhook-backend-availability']);
    expect(ALL_RULES.map((r) => r.meta.id).sort()).toEqual([...ids, ...added.map((a) => a.id)].sort());
    for (const r of ALL_RULES) {
      expect(r.meta.description.length).toBeGreaterThan(10);
      expect(r.meta.doc.length).toBeGreaterThan(100);
      expect(r.meta.severities).toContain(r.meta.defaultSeverity);
    }
  });
  test('fixable matches the fix column of RULES.md', () => {
    for (const m of rulesMd.matchAll(/^\| `([a-z0-9-]+)` \| [^|]+ \| [^|]+ \| (yes|no) \|/gm)) {
      expect([m[1], ALL_RULES.find((r) => r.meta.id === m[1])?.meta.fixable]).toEqual([m[1], m[2] === 'yes']);
    }
  });
  test('the rules being added have the fix and default severity their RULES.md entry gives', () => {
    for (const a of added) {
      const meta = ALL_RULES.find((r) => r.meta.id === a.id)?.meta;
      expect([a.id, meta?.fixable, meta?.defaultSeverity]).toEqual([a.id, a.fix === 'yes', a.severity]);
    }
  });
});
