import { ResolvedPolicy } from '../../lib/engine/policy';
import { exitCode, lintSources } from '../../lib/engine/run';
import { Rule } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';

const meta = (id: string): Rule['meta'] => ({ id, spec: 'TEST', defaultSeverity: 'warning', severities: ['warning'], description: id, doc: id, fixable: false });
const crashing: Rule = {
  meta: meta('crashing'),
  check() {
    throw new Error('boom');
  },
};
const reporting: Rule = {
  meta: meta('reporting'),
  check(ctx) {
    for (const o of ctx.graph.objects) ctx.report({ object: o, pointer: '', message: 'seen' });
  },
};
const policy: ResolvedPolicy = { name: 'test', rules: new Map(), customRules: [] };
const sources = [{ file: 'a.yaml', text: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' }];

describe('lintSources', () => {
  test('a rule that throws becomes a reported error; the other rules still report', () => {
    const r = lintSources(sources, { rules: [crashing, reporting], policy, version: KubeVersion.parse('1.33') });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['reporting']);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toContain('internal error in rule crashing: boom');
    expect(exitCode(r, 'error')).toBe(2);
  });

  test('a caller that handles rule errors itself gets them', () => {
    const seen: string[] = [];
    const r = lintSources(sources, { rules: [crashing], policy, version: KubeVersion.parse('1.33'), onRuleError: (id, e) => seen.push(`${id}: ${e.message}`) });
    expect(seen).toEqual(['crashing: boom']);
    expect(r.errors).toEqual([]);
  });
});
