/**
 * The exported admission policies agree with the linter: for every workload-bearing object of the
 * corpus and of every rule table (test/rules/*.test.ts), each exported validation fires exactly when
 * `kubegrace lint` on that object alone reports the rule's condition at that severity, and each
 * mutation repairs what the linter's safe fix repairs, to the same value, idempotently. Both sides
 * are computed by running the real code: the linter, and the policies in a CEL evaluator.
 */
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { exportPolicies, ExportResult } from '../../lib/admission/policies';
import { ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { Finding } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { workloadOf } from '../../lib/model/workload';
import { ALL_RULES } from '../../lib/rules';
import { applyEdits, applyPatches, mutate, validate } from './evaluator';
import { collectTableCases, TableCase } from './table-cases';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const CORPUS_VERSION = '1.34';

interface Subject {
  origin: string;
  raw: JsonObject;
  version: string;
  params?: { ruleId: string; params: Record<string, unknown> };
}

function policyFor(s: Subject): ResolvedPolicy {
  return { name: 'test', rules: new Map(s.params ? [[s.params.ruleId, { params: s.params.params }]] : []), customRules: [] };
}

/** Lints one object alone (what admission sees) with every rule. */
function lintAlone(raw: JsonObject, s: Subject): Finding[] {
  const r = lintSources([{ file: 'object.yaml', text: stringify(raw) }], { rules: ALL_RULES, policy: policyFor(s), version: KubeVersion.parse(s.version) });
  return r.findings;
}

const exported = new Map<string, ExportResult>();
function exportFor(s: Subject): ExportResult {
  const key = `${s.version} ${JSON.stringify(s.params ?? null)}`;
  let e = exported.get(key);
  if (!e) exported.set(key, (e = exportPolicies({ rules: ALL_RULES, policy: policyFor(s), version: KubeVersion.parse(s.version), mode: 'both' })));
  return e;
}

function subjectsOf(text: string, origin: string, version: string, params?: Subject['params']): Subject[] {
  const parsed = parseText(origin, text);
  return parsed.objects
    .filter((o) => o.kind === 'PodDisruptionBudget' || workloadOf(o) !== undefined)
    .map((o) => ({ origin: `${origin} ${o.kind}/${o.name}`, raw: o.raw, version, params }));
}

function corpusSubjects(): Subject[] {
  const files = fs.readdirSync(CORPUS).filter((f) => /\.ya?ml$/.test(f)).sort();
  return files.flatMap((f) => subjectsOf(fs.readFileSync(path.join(CORPUS, f), 'utf8'), `corpus/${f}`, CORPUS_VERSION));
}

function caseSubjects(cases: TableCase[]): Subject[] {
  return cases
    .filter((c) => KubeVersion.parse(c.kubeVersion ?? '1.33').atLeast(1, 30))
    .flatMap((c) => subjectsOf(c.yaml, `table ${c.ruleId}: ${c.name}`, c.kubeVersion ?? '1.33', c.params ? { ruleId: c.ruleId, params: c.params } : undefined));
}

interface Divergence {
  object: string;
  rule: string;
  detail: string;
}

function withServedHint(raw: JsonObject): JsonObject {
  // On the pod template (whose annotations win over the object's), or the Pod's own metadata.
  const copy = JSON.parse(JSON.stringify(raw)) as JsonObject;
  const spec = copy.spec as JsonObject | undefined;
  const tmpl = copy.kind === 'Pod' ? copy : copy.kind === 'CronJob' ? (((spec?.jobTemplate as JsonObject)?.spec as JsonObject)?.template as JsonObject) : (spec?.template as JsonObject);
  if (!tmpl || typeof tmpl !== 'object') return copy;
  const meta = ((tmpl.metadata as JsonObject | undefined) ?? (tmpl.metadata = {})) as JsonObject;
  meta.annotations = { ...((meta.annotations as JsonObject | undefined) ?? {}), 'kubegrace.dev/served': 'true' };
  return copy;
}

/**
 * Each object as written, and once more marked served by the hint (`kubegrace.dev/served: "true"`,
 * the one way an admitted object can say a Service routes to it), so rules the linter judges only on
 * served workloads are compared too.
 */
function withTwins(subjects: Subject[]): Subject[] {
  return subjects.flatMap((s) => (s.raw.kind === 'PodDisruptionBudget' ? [s] : [s, { ...s, origin: `${s.origin} [served hint]`, raw: withServedHint(s.raw) }]));
}

function check(all: Subject[]): { divergences: Divergence[]; stats: Record<string, number>; perPolicy: Map<string, { fired: number; silent: number }> } {
  const subjects = withTwins(all);
  const divergences: Divergence[] = [];
  const stats: Record<string, number> = { objects: subjects.length, verdicts: 0, fired: 0, repaired: 0 };
  const perPolicy = new Map<string, { fired: number; silent: number }>();
  for (const s of subjects) {
    const e = exportFor(s);
    const findings = lintAlone(s.raw, s).filter((f) => !f.suppressed);
    for (const v of e.validations) {
      stats.verdicts++;
      let policy: string[] | undefined;
      try {
        policy = v.kinds.includes(String(s.raw.kind)) ? validate(v.policy, s.raw) : undefined;
      } catch (err) {
        divergences.push({ object: s.origin, rule: `${v.ruleId} (${v.conditionSeverity})`, detail: `policy evaluation error: ${(err as Error).message}` });
        continue;
      }
      const linter = findings.filter((f) => f.ruleId === v.ruleId && f.severity === v.conditionSeverity);
      if (policy) stats.fired++;
      const key = `${v.ruleId} (${v.conditionSeverity})`;
      const pp = perPolicy.get(key) ?? { fired: 0, silent: 0 };
      if (policy) pp.fired++;
      else pp.silent++;
      perPolicy.set(key, pp);
      if (!!policy !== linter.length > 0) {
        divergences.push({
          object: s.origin,
          rule: `${v.ruleId} (${v.conditionSeverity})`,
          detail: policy ? `policy fires (${policy[0]}), linter does not` : `linter fires (${linter[0].message}), policy does not`,
        });
      }
    }
    for (const m of e.mutations) {
      if (!m.kinds.includes(String(s.raw.kind))) continue;
      const where = { object: s.origin, rule: `${m.ruleId} (repair)` };
      try {
        const patches = mutate(m.policy, s.raw);
        const safe = findings.filter((f) => f.ruleId === m.ruleId && f.fix?.safety === 'safe');
        if (!patches.length) {
          const ps = perPolicy.get(`${m.ruleId} (repair)`) ?? { fired: 0, silent: 0 };
          ps.silent++;
          perPolicy.set(`${m.ruleId} (repair)`, ps);
          if (safe.length) divergences.push({ ...where, detail: `linter offers a safe fix (${safe[0].fix!.description}), policy does not repair` });
          continue;
        }
        stats.repaired++;
        const pm = perPolicy.get(`${m.ruleId} (repair)`) ?? { fired: 0, silent: 0 };
        pm.fired++;
        perPolicy.set(`${m.ruleId} (repair)`, pm);
        // The result must be the linter's: its own safe fix, or (for a repair the linter gives only
        // served workloads) the fix it gives the same object marked served, applied to the object.
        const offer = safe.length ? safe : lintAlone(withServedHint(s.raw), s).filter((f) => f.ruleId === m.ruleId && !f.suppressed && f.fix?.safety === 'safe');
        const fixes = [...new Map(offer.map((f) => [JSON.stringify(f.fix!.edits), f.fix!.edits])).values()];
        const byLinter = fixes.reduce((o, edits) => applyEdits(o, edits), s.raw);
        const byPolicy = applyPatches(s.raw, patches);
        if (!fixes.length || JSON.stringify(byLinter) !== JSON.stringify(byPolicy)) {
          divergences.push({ ...where, detail: `policy patches ${JSON.stringify(patches)}; the linter's safe fixes: ${JSON.stringify(fixes)}` });
        }
        const repaired = applyPatches(s.raw, patches);
        const after = lintAlone(repaired, s).filter((f) => f.ruleId === m.ruleId && !f.suppressed && f.fix?.safety === 'safe');
        if (after.length) divergences.push({ ...where, detail: `re-linted after the repair, still: ${after[0].message}` });
        const again = mutate(m.policy, repaired);
        if (again.length) divergences.push({ ...where, detail: `not idempotent: re-admission patches ${JSON.stringify(again)}` });
      } catch (err) {
        divergences.push({ ...where, detail: `policy evaluation error: ${(err as Error).message}` });
      }
    }
  }
  return { divergences, stats, perPolicy };
}

function report(d: Divergence[]): string[] {
  return d.map((x) => `${x.object} | ${x.rule} | ${x.detail}`);
}

/** A Deployment with the given template annotations and containers (flow YAML), for the edge cases. */
function dep(name: string, containers: string, annotations = '{}', extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: ${annotations}
    spec:
${extra}      containers: ${containers}
`;
}

const exec = (cmd: string[], image = 'example/app:1') => `[{name: app, image: "${image}", lifecycle: {preStop: {exec: {command: ${JSON.stringify(cmd)}}}}}]`;

/** Edge cases of the readings the CEL re-implements: sleep arguments, shells, hints, sidecars, meshes. */
const EDGE_CASES: string[] = [
  dep('sleep-decimal-minutes', exec(['sleep', '1.5m']), '{}', '      terminationGracePeriodSeconds: 60\n'),
  dep('sleep-days', exec(['/bin/sleep', '1d'])),
  dep('sleep-go-duration', exec(['sleep', '1m30s']), '{}', '      terminationGracePeriodSeconds: 95\n'),
  dep('sleep-ms', exec(['sleep', '500ms'])),
  dep('sleep-zero', exec(['/usr/bin/sleep', '0'])),
  dep('sleep-garbage', exec(['sleep', 'abc'])),
  dep('sleep-three-args', exec(['sleep', '5', '6'])),
  dep('sh-only', exec(['sh', '-c', 'sleep 31'])),
  dep('sh-exec', exec(['/bin/sh', '-c', ' exec sleep 7; '])),
  dep('sh-semicolon-space', exec(['bash', '-c', 'sleep 40 ;'])),
  dep('sh-then', exec(['sh', '-c', 'sleep 25 && nginx -s quit'])),
  dep('sh-then-semicolon', exec(['ash', '-c', 'sleep 28;kill 1'])),
  dep('sh-tab', exec(['sh', '-c', 'sleep\t33'])),
  dep('sh-other', exec(['sh', '-c', 'echo bye'])),
  dep('teleport-wait', exec(['teleport', 'wait', 'duration', '30s'])),
  dep('teleport-wait-path', exec(['/usr/bin/teleport', 'wait', 'duration', '1m'])),
  dep('program-hinted', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "40"}'),
  dep('program-hinted-by-name', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "other=5, app = 45"}'),
  dep('program-hint-bad', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "app=soon"}'),
  dep('program-hint-empty-name', exec(['/app/drain']), '{"kubegrace.dev/prestop-seconds": "=5"}'),
  dep('sleep-then-hinted', exec(['sh', '-c', 'sleep 5; /app/drain']), '{"kubegrace.dev/prestop-seconds": "35s"}'),
  dep('httpget-hinted', '[{name: app, image: a, lifecycle: {preStop: {httpGet: {path: /drain, port: 8080}}}}]', '{"kubegrace.dev/prestop-seconds": "1m"}'),
  dep('sleep-action-hint-ignored', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 20}}}}]', '{"kubegrace.dev/prestop-seconds": "50"}'),
  dep('drain-hint-duration', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}]', '{"kubegrace.dev/drain-seconds": "25s"}'),
  dep('drain-hint-decimal', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}]', '{"kubegrace.dev/drain-seconds": "15.5"}'),
  dep('drain-hint-ms', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 19}}}}]', '{"kubegrace.dev/drain-seconds": "1500ms"}'),
  dep('drain-hint-garbage', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 15}}}}]', '{"kubegrace.dev/drain-seconds": "lots"}'),
  dep('drain-only-declared', '[{name: app, image: a}]', '{"kubegrace.dev/drain-seconds": "45"}'),
  dep(
    'native-sidecars',
    '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 10}}}}]',
    '{"kubegrace.dev/sidecar-drain-seconds": "3, proxy=8, logs=0, bad"}',
    '      initContainers: [{name: proxy, image: p, restartPolicy: Always}, {name: logs, image: l, restartPolicy: Always}, {name: other, image: o, restartPolicy: Always}, {name: setup, image: s}]\n',
  ),
  dep('linkerd-native-injected', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"linkerd.io/inject": "enabled", "config.beta.linkerd.io/proxy-enable-native-sidecar": "true"}'),
  dep('linkerd-native-first-key-false', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"linkerd.io/inject": "enabled", "config.linkerd.io/proxy-enable-native-sidecar": "false", "config.alpha.linkerd.io/proxy-enable-native-sidecar": "true"}'),
  dep('istio-native-injected', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true", "kubegrace.dev/sidecar-drain-seconds": "istio-proxy=9"}'),
  dep('istio-gateway', '[{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 12}}}}]', '{"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true", "inject.istio.io/templates": "gateway"}'),
  dep('distroless-exec-sleep', exec(['sleep', '5'], 'gcr.io/distroless/static:nonroot')),
  dep('distroless-debug', exec(['sleep', '5'], 'gcr.io/distroless/base:debug')),
  dep('chainguard-static-sh', exec(['sh', '-c', 'sleep 5'], 'cgr.dev/chainguard/static:latest')),
  dep('suppressed', exec(['sleep', '40']), '{"kubegrace.dev/ignore": "prestop-handler, grace-period-budget"}'),
  dep('suppressed-all', exec(['sleep', '40']), '{"kubegrace.dev/ignore": "all"}'),
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: owned, ownerReferences: [{apiVersion: example.com/v1, kind: App, name: x, uid: u, controller: true}]}
spec:
  selector: {matchLabels: {app: owned}}
  template:
    metadata: {labels: {app: owned}}
    spec: {terminationGracePeriodSeconds: 0, containers: [{name: app, image: a, lifecycle: {preStop: {tcpSocket: {port: 80}}}}]}
`,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: slow-start}
spec:
  minReadySeconds: 900
  selector: {matchLabels: {app: s}}
  template:
    metadata: {labels: {app: s}}
    spec:
      readinessGates: [{conditionType: "target-health.elbv2.k8s.aws/x"}]
      initContainers:
      - {name: proxy, image: p, restartPolicy: Always, startupProbe: {httpGet: {port: 1}, failureThreshold: 5}}
      - {name: logs, image: l, restartPolicy: Always, startupProbe: {exec: {command: [x]}, initialDelaySeconds: 7, periodSeconds: 2}}
      containers:
      - {name: a, image: a, startupProbe: {tcpSocket: {port: 1}, failureThreshold: 30}}
      - {name: b, image: b, startupProbe: {tcpSocket: {port: 1}, failureThreshold: 31, periodSeconds: 1}}
`,
  `apiVersion: apps/v1
kind: Deployment
metadata: {name: deadline-equal}
spec:
  minReadySeconds: 30
  progressDeadlineSeconds: 30
  selector: {matchLabels: {app: d}}
  template: {metadata: {labels: {app: d}}, spec: {containers: [{name: a, image: a}]}}
`,
  `apiVersion: batch/v1
kind: CronJob
metadata: {name: cron, annotations: {"kubegrace.dev/drain-seconds": "40"}}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: job, image: a, lifecycle: {preStop: {sleep: {seconds: 5}}}}]}
`,
  `apiVersion: v1
kind: Pod
metadata: {name: bare, annotations: {"kubegrace.dev/served": "true"}}
spec: {terminationGracePeriodSeconds: 20, containers: [{name: app, image: a, lifecycle: {preStop: {exec: {command: [sleep, "20"]}}}}]}
`,
];

describe('exported admission policies agree with the linter', () => {
  test('hand-written edge cases of the readings the CEL re-implements', () => {
    const subjects = EDGE_CASES.flatMap((y, i) => subjectsOf(y, `edge case ${i}`, '1.34'));
    expect(subjects.length).toBe(EDGE_CASES.length);
    const { divergences, stats } = check(subjects);
    expect(report(divergences)).toEqual([]);
    expect(stats.fired).toBeGreaterThan(30);
    process.stdout.write(`edge cases: ${JSON.stringify(stats)}\n`);
  });

  test('every workload-bearing object of the corpus', () => {
    const subjects = corpusSubjects();
    expect(subjects.length).toBeGreaterThan(140);
    const { divergences, stats } = check(subjects);
    expect(report(divergences)).toEqual([]);
    // The comparison is not vacuous: policies fire and repair on the corpus.
    expect(stats.fired).toBeGreaterThan(0);
    process.stdout.write(`corpus: ${JSON.stringify(stats)}\n`);
  });

  test('every workload-bearing object of every rule table case', () => {
    const cases = collectTableCases();
    expect(cases.length).toBeGreaterThan(100);
    const { divergences, stats, perPolicy } = check(caseSubjects(cases));
    expect(report(divergences)).toEqual([]);
    // Not vacuous: every exported validation both fires and stays silent on some table case.
    for (const m of exportFor({ origin: '', raw: {}, version: '1.34' }).mutations) if (!perPolicy.has(`${m.ruleId} (repair)`)) perPolicy.set(`${m.ruleId} (repair)`, { fired: 0, silent: 1 });
    const vacuous = [...perPolicy].filter(([, c]) => c.fired === 0 || c.silent === 0).map(([k, c]) => `${k}: fired ${c.fired}, silent ${c.silent}`);
    expect(vacuous).toEqual([]);
    process.stdout.write(`per policy: ${[...perPolicy].map(([k, c]) => `${k} ${c.fired}/${c.fired + c.silent}`).join(', ')}\n`);
    expect(stats.fired).toBeGreaterThan(20);
    expect(stats.repaired).toBeGreaterThan(0);
    process.stdout.write(`tables: ${cases.length} cases, ${JSON.stringify(stats)}\n`);
  });
});
