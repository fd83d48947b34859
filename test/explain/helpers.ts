/** Shared helpers for the explain tests: YAML text -> graph -> timeline, with the linter's findings. */
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { explainSources, Timeline } from '../../lib/explain';
import { ALL_RULES } from '../../lib/rules';

export const V133 = KubeVersion.parse('1.33');

/** Timelines of every workload in `text` (as `kubegrace explain` builds them). */
export function explainText(text: string, opts: { version?: KubeVersion; object?: string; file?: string } = {}): Timeline[] {
  const policy = loadPolicy('recommended', ALL_RULES);
  return explainSources([{ file: opts.file ?? 'test.yaml', text }], { rules: ALL_RULES, policy, version: opts.version ?? V133, object: opts.object }).timelines;
}

/** The only timeline of `text`. */
export function explainOne(text: string, opts: { version?: KubeVersion; object?: string } = {}): Timeline {
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
