/** Shared helpers for the explain tests: YAML text -> graph -> timeline, with the linter's findings. */
import { loadPolicy, ResolvedPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { explainSources, Timeline } from '../../lib/explain';
import { ALL_RULES } from '../../lib/rules';

export const V133 = KubeVersion.parse('1.33');

/** Timelines of every workload in `text` (as `kubegrace explain` builds them). */
export function explainText(text: string, opts: { version?: KubeVersion; object?: string; file?: string; policy?: ResolvedPolicy } = {}): Timeline[] {
  const policy = opts.policy ?? loadPolicy('recommended', ALL_RULES);
  return explainSources([{ file: opts.file ?? 'test.yaml', text }], { rules: ALL_RULES, policy, version: opts.version ?? V133, object: opts.object }).timelines;
}

/** The only timeline of `text`. */
export function explainOne(text: string, opts: { version?: KubeVersion; object?: string; policy?: ResolvedPolicy } = {}): Timeline {
  const ts = explainText(text, opts);
  if (ts.length !== 1) throw new Error(`expected one workload, got ${ts.length}`);
  return ts[0];
}

/** A Deployment "web" with the given container list (YAML flow or block, indented 6), grace and annotations, plus a Service. */
export function deployment(opts: { containers: string; initContainers?: string; grace?: number; annotations?: Record<string, string>; served?: boolean; replicas?: number; extra?: string; name?: string }): string {
  const ann = opts.annotations ? `      annotations:\n${Object.entries(opts.annotations).map(([k, v]) => `        ${k}: ${JSON.stringify(v)}`).join('\n')}\n` : '';
  const name = opts.name ?? 'web';
  const svc =
    opts.served === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: 8080}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${JSON.stringify(name)}}
spec:
  replicas: ${opts.replicas ?? 2}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
${ann}    spec:
${opts.grace !== undefined ? `      terminationGracePeriodSeconds: ${opts.grace}\n` : ''}${opts.initContainers ? `      initContainers:\n${opts.initContainers}\n` : ''}      containers:
${opts.containers}
${opts.extra ?? ''}${svc}`;
}

/** One container `name` listening on 8080 with the given preStop handler (flow YAML) or none. */
export function container(name: string, preStop?: string): string {
  return `      - name: ${name}
        image: example/${name}:1
        ports: [{containerPort: 8080}]${preStop ? `\n        lifecycle: {preStop: ${preStop}}` : ''}`;
}

/** The recommended policy with one rule turned off. */
export function policyWithout(ruleId: string): ResolvedPolicy {
  const p = loadPolicy('recommended', ALL_RULES);
  const rules = new Map(p.rules);
  rules.set(ruleId, { ...(rules.get(ruleId) ?? {}), off: true });
  return { ...p, rules };
}

/** The recommended policy with params set for one rule. */
export function policyWithParams(ruleId: string, params: Record<string, unknown>): ResolvedPolicy {
  const p = loadPolicy('recommended', ALL_RULES);
  const rules = new Map(p.rules);
  rules.set(ruleId, { ...(rules.get(ruleId) ?? {}), params: { ...(rules.get(ruleId)?.params ?? {}), ...params } });
  return { ...p, rules };
}

/** The rule IDs a workload's rollout notes name in parentheses, e.g. "(daemonset-surge)". */
export function citedRules(t: Timeline): string[] {
  return [...t.rollout.notes.join('\n').matchAll(/\(([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\)/g)].map((m) => m[1]);
}
