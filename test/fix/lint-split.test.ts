/**
 * --fix runs only the rules that can fix (meta.fixable) and the policy's custom rules in a lint
 * that a pass follows, and every rule in the last lint, which is the report. The repair must be
 * exactly the one of linting with every rule each time (`lintAll`): the fixed texts, the applied
 * and skipped fixes with their lines and reasons, the passes, and the findings of the last lint,
 * in order. A rule that reports a fix although its meta says it cannot makes the repair run again
 * with every rule in every lint.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { Fix, Rule } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources, FixOptions, FixResult } from '../../lib/fix';
import { Source } from '../../lib/model/sources';
import { Json, KObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';

const RENDERED = path.resolve(__dirname, '../../../shared/corpus/rendered');
const POLICY = loadPolicy('recommended', ALL_RULES);
const VERSION = KubeVersion.parse('1.33');
const CORPUS = fs.existsSync(RENDERED) ? fs.readdirSync(RENDERED).filter((f) => f.endsWith('.yaml')).sort() : [];

/** What a repair gives, as one string (everything the CLI prints or writes comes from it). */
function view(r: FixResult): string {
  return JSON.stringify({
    files: r.files.map((f) => ({ file: f.file, text: f.text, applied: f.applied })),
    skipped: r.skipped.map((s) => ({ reason: s.reason, f: s.finding })),
    passes: r.passes,
    converged: r.converged,
    findings: r.lint.findings,
    objects: r.lint.parsed.map((p) => p.objects.map((o) => [o.uid, o.line, o.column])),
  });
}

function both(sources: Source[], o: Partial<FixOptions> & Pick<FixOptions, 'rules'>): { split: FixResult; all: FixResult } {
  const opts = { policy: POLICY, version: VERSION, proposals: true, ...o };
  return { split: fixSources(sources, opts), all: fixSources(sources, { ...opts, lintAll: true }) };
}

const data = (o: KObject, k: string): Json | undefined => (o.raw.data as Record<string, Json> | undefined)?.[k];
const meta = (id: string, fixable: boolean): Rule['meta'] => ({ id, spec: 'TEST', defaultSeverity: 'warning', severities: ['warning'], description: id, doc: id, fixable });
const setX = (value: string): Rule => ({
  meta: meta(`set-x-${value}`, true),
  check(ctx) {
    const fix: (o: KObject) => Fix = () => ({ description: `set data.x to ${value}`, safety: 'safe', edits: [{ op: 'set', pointer: '/data/x', value }] });
    for (const o of ctx.graph.objects) if (o.kind === 'ConfigMap' && data(o, 'x') !== value) ctx.report({ object: o, pointer: '/data/x', message: `x is not ${value}`, fix: fix(o) });
  },
});
/** A rule that cannot fix: reports every ConfigMap, counting its runs. */
function watcher(runs: { n: number }, id = 'watch'): Rule {
  return {
    meta: meta(id, false),
    check(ctx) {
      runs.n++;
      for (const o of ctx.graph.objects) if (o.kind === 'ConfigMap') ctx.report({ object: o, pointer: '', message: `seen ${String(data(o, 'x'))}` });
    },
  };
}

const CMS = ['a', 'b'].map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\ndata:\n  x: bad\n`).join('---\n');

describe('--fix lints with the rules that can fix until the last lint', () => {
  test('the corpus as one stream, and every corpus file: the same repair as with every rule in every lint', () => {
    const stream = CORPUS.map((f) => fs.readFileSync(path.join(RENDERED, f), 'utf8').replace(/\n?$/, '\n')).join('---\n');
    const { split, all } = both([{ file: 'all.yaml', text: stream }], { rules: ALL_RULES });
    expect(split.passes).toBeGreaterThan(1);
    expect(view(split)).toBe(view(all));
    let passes = 0;
    for (const f of CORPUS) {
      const r = both([{ file: f, text: fs.readFileSync(path.join(RENDERED, f), 'utf8') }], { rules: ALL_RULES });
      expect(view(r.split)).toBe(view(r.all));
      passes += r.split.passes;
    }
    expect(passes).toBeGreaterThan(20);
  });

  test('a rule that cannot fix runs in the last lint only, and its findings are where one run puts them', () => {
    const runs = { n: 0 };
    const rules = [watcher(runs, 'a-watch'), setX('ok'), watcher({ n: 0 }, 'z-watch')];
    const r = fixSources([{ file: 'f.yaml', text: CMS }], { rules, policy: POLICY, version: VERSION });
    expect(r.passes).toBe(1);
    expect(runs.n).toBe(1);
    const all = fixSources([{ file: 'f.yaml', text: CMS }], { rules, policy: POLICY, version: VERSION, lintAll: true });
    expect(view(r)).toBe(view(all));
    expect(r.lint.findings.map((f) => f.ruleId)).toEqual(['a-watch', 'z-watch', 'a-watch', 'z-watch']);
    // The same as the plain lint of the fixed text.
    const lint = lintSources([{ file: 'f.yaml', text: r.files[0].text }], { rules, policy: POLICY, version: VERSION });
    expect(JSON.stringify(r.lint.findings)).toBe(JSON.stringify(lint.findings));
  });

  test('findings equal in everything the order looks at keep the order of one run (rules of one ID, with and without a fix)', () => {
    const same = (fixable: boolean, fix: boolean): Rule => ({
      meta: meta('same', fixable),
      check(ctx) {
        for (const o of ctx.graph.objects) {
          // A proposal, not applied without --fix-proposals: the lint stays the last one.
          if (fix) ctx.report({ object: o, pointer: '', message: 'm', fix: { description: 'p', safety: 'proposal', edits: [{ op: 'set', pointer: '/data/y', value: '1' }] } });
          else ctx.report({ object: o, pointer: '', message: 'm' });
        }
      },
    });
    for (const rules of [
      [same(false, false), same(true, true)],
      [same(true, true), same(false, false)],
    ]) {
      const { split, all } = both([{ file: 'f.yaml', text: CMS }], { rules, proposals: false });
      expect(split.lint.findings.map((f) => f.fix !== undefined)).toEqual(rules[0].meta.fixable ? [true, false, true, false] : [false, true, false, true]);
      expect(view(split)).toBe(view(all));
    }
  });

  test('fixes undoing each other: the passes run out the same way', () => {
    const runs = { n: 0 };
    const { split, all } = both([{ file: 'f.yaml', text: CMS }], { rules: [setX('1'), watcher(runs), setX('2')], maxPasses: 3 });
    expect(split.converged).toBe(false);
    expect(view(split)).toBe(view(all));
    expect(runs.n).toBe(1 + 4);
  });

  test('a rule whose meta says it cannot fix but reports a fix: the repair runs with every rule in every lint', () => {
    const liar: Rule = { ...setX('ok'), meta: meta('liar', false) };
    const { split, all } = both([{ file: 'f.yaml', text: CMS }], { rules: [liar] });
    expect(split.files[0].applied.map((a) => a.ruleId)).toEqual(['liar', 'liar']);
    expect(view(split)).toBe(view(all));
  });

  test('the built-in rules that cannot fix report no fix, over the corpus', () => {
    const r = lintSources(
      CORPUS.map((f) => ({ file: f, text: fs.readFileSync(path.join(RENDERED, f), 'utf8') })),
      { rules: ALL_RULES, policy: POLICY, version: VERSION },
    );
    const fixable = new Map(ALL_RULES.map((x) => [x.meta.id, x.meta.fixable]));
    expect(r.findings.filter((f) => f.fix).length).toBeGreaterThan(50);
    expect(r.findings.filter((f) => f.fix && !fixable.get(f.ruleId)).map((f) => f.ruleId)).toEqual([]);
  });
});
