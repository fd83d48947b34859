import { ResolvedPolicy } from '../../lib/engine/policy';
import { exitCode, lintSources } from '../../lib/engine/run';
import { Rule } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

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

describe('absence findings beside a document that could not be read', () => {
  // Review round 30: a syntax error dropped the stable/minio Deployment, and its Service was then
  // said to match no pod template (an error). What a rule finds missing may be in such a document.
  const dep = (name: string) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: demo}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec:\n      containers: [{name: c, image: "x:1"}]\n`;
  const broken = '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb, namespace: demo}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: [a}}\n';
  const run = (files: Array<{ file: string; text: string }>) =>
    lintSources(files, { rules: ALL_RULES.filter((r) => r.meta.id === 'pdb-missing'), policy, version: KubeVersion.parse('1.31') });
  test('reported as info on the objects of that file, saying why; at their severity elsewhere', () => {
    const r = run([
      { file: 'a.yaml', text: dep('a') + broken },
      { file: 'b.yaml', text: dep('b') },
    ]);
    expect(r.errors.map((e) => `${e.file}:${e.line} ${e.message.slice(0, 17)}`)).toEqual(['a.yaml:17 YAML syntax error']);
    expect(r.findings.map((f) => `${f.file} ${f.ruleId} ${f.severity}`)).toEqual(['a.yaml pdb-missing info', 'b.yaml pdb-missing warning']);
    expect(r.findings[0].message).toMatch(/^a document of this file could not be read \(the input error at line 17\), and what this finds missing may be there: replicas 3 but no PodDisruptionBudget/);
    expect(r.findings[1].message).toMatch(/^replicas 3 but no PodDisruptionBudget/);
  });
  test('a file read whole keeps its severities', () => {
    expect(run([{ file: 'a.yaml', text: dep('a') }]).findings.map((f) => f.severity)).toEqual(['warning']);
  });
});
