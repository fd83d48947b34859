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
