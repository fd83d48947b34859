/**
 * `explain` and `lint` agree: over every workload of the corpus, every test fixture and the
 * synthesized charts-src apps, the violations explain lists for the timeline rules are exactly the
 * lint findings of those rules (as a multiset of workload, rule and severity). The budget rules and
 * explain read one decision, terminationSchedule (lib/timeline/schedule.ts); the mesh drain rules'
 * findings are what explain lists for them.
 */
import { Testing, Yaml } from 'cdk8s';
import * as fs from 'fs';
import * as path from 'path';
import { APPS } from '../../charts-src/apps';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { explainSources } from '../../lib/explain';
import { Source } from '../../lib/model/sources';
import { ALL_RULES } from '../../lib/rules';

const ROOT = path.resolve(__dirname, '../..');
const CORPUS = path.resolve(ROOT, '../shared/corpus/rendered');
const TIMELINE_RULES = new Set(['grace-period-budget', 'native-sidecar-grace-budget', 'linkerd-proxy-drain', 'istio-proxy-drain', 'zero-grace-period']);

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...yamlFiles(p));
    else if (/\.(ya?ml|json)$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

const source = (p: string): Source => ({ file: path.relative(ROOT, p), path: p, text: fs.readFileSync(p, 'utf8') });

/** (workload, rule, severity) of lint's findings and of explain's violations, sorted, for one input. */
function agreement(sources: Source[], policyName = 'recommended', version = KubeVersion.parse('1.31')) {
  const policy = loadPolicy(policyName, ALL_RULES);
  const run = explainSources(sources, { rules: ALL_RULES, policy, version });
  const ref = (o: { file: string; kind: string; namespace?: string; name: string }) => `${o.file} ${o.kind}/${o.namespace ?? 'default'}/${o.name}`;
  const explained = new Set(run.timelines.map((t) => ref(t.object)));
  const lint = run.lint.findings
    .filter((f) => TIMELINE_RULES.has(f.ruleId) && !f.suppressed)
    .map((f) => `${ref({ file: f.file, ...f.object })} ${f.ruleId} ${f.severity}`)
    .sort();
  const explain = run.timelines.flatMap((t) => t.violations.filter((v) => TIMELINE_RULES.has(v.ruleId)).map((v) => `${ref(t.object)} ${v.ruleId} ${v.severity}`)).sort();
  return { lint, explain, explained, timelines: run.timelines.length };
}

describe('explain lists exactly the timeline findings lint reports', () => {
  const corpus = fs.existsSync(CORPUS) ? yamlFiles(CORPUS) : [];
  test('the corpus is there (39 rendered files)', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(39);
  });

  test.each(corpus.map((p) => [path.basename(p), p]))('corpus %s', (_name, p) => {
    const a = agreement([source(p)]);
    expect(a.explain).toEqual(a.lint);
  });

  const fixtures = [...yamlFiles(path.join(ROOT, 'test/fixtures')), ...yamlFiles(path.join(ROOT, 'test/explain/fixtures'))];
  test.each(fixtures.map((p) => [path.relative(ROOT, p), p]))('fixture %s', (_name, p) => {
    const a = agreement([source(p)]);
    expect(a.explain).toEqual(a.lint);
  });

  test.each(Object.keys(APPS))('charts-src app %s, synthesized', (name) => {
    const text = Yaml.stringify(...Testing.synth(APPS[name](Testing.app(), name)));
    const a = agreement([{ file: `${name}.yaml`, text }]);
    expect(a.timelines).toBeGreaterThan(0);
    expect(a.explain).toEqual(a.lint);
  });

  test('the strict policy (other severities) agrees on the corpus too', () => {
    const a = agreement(corpus.map(source), 'strict');
    expect(a.explain).toEqual(a.lint);
  });
});

/**
 * A rule a rollout note names in parentheses is a rule lint reports: for the workload, or for
 * pdb-blocks-eviction on the PodDisruptionBudget the note is about (the notes decide with the rules'
 * own decision functions).
 */
describe('every rule a rollout note names is reported by lint', () => {
  const RULE_IDS = new Set(ALL_RULES.map((r) => r.meta.id));
  function unreported(sources: Source[], policyName = 'recommended', version = KubeVersion.parse('1.31')): string[] {
    const policy = loadPolicy(policyName, ALL_RULES);
    const run = explainSources(sources, { rules: ALL_RULES, policy, version });
    const findings = run.lint.findings.filter((f) => !f.suppressed);
    const out: string[] = [];
    for (const t of run.timelines) {
      const o = t.object;
      const on = (kind: string, name: string, ruleId: string) => findings.some((f) => f.ruleId === ruleId && f.file === o.file && f.object.kind === kind && f.object.name === name && (f.object.namespace ?? '') === (o.namespace ?? ''));
      for (const note of t.rollout.notes) {
        for (const m of note.matchAll(/\(([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\)/g)) {
          const id = m[1];
          if (!RULE_IDS.has(id)) continue;
          const pdb = /^PodDisruptionBudget\/(\S+) /.exec(note)?.[1];
          const ok = (id === 'pdb-blocks-eviction' || id === 'pdb-missing') && pdb ? on('PodDisruptionBudget', pdb, id) : on(o.kind, o.name, id);
          if (!ok) out.push(`${o.file} ${o.kind}/${o.name}: ${id}: ${note}`);
        }
      }
    }
    return out;
  }

  const corpus = fs.existsSync(CORPUS) ? yamlFiles(CORPUS) : [];
  test.each(corpus.map((p) => [path.basename(p), p]))('corpus %s', (_name, p) => {
    expect(unreported([source(p)])).toEqual([]);
  });

  test('fixtures and the synthesized charts-src apps', () => {
    const fixtures = [...yamlFiles(path.join(ROOT, 'test/fixtures')), ...yamlFiles(path.join(ROOT, 'test/explain/fixtures'))];
    const apps = Object.keys(APPS).map((name) => ({ file: `${name}.yaml`, text: Yaml.stringify(...Testing.synth(APPS[name](Testing.app(), name))) }));
    expect([...fixtures.flatMap((p) => unreported([source(p)])), ...apps.flatMap((a) => unreported([a]))]).toEqual([]);
  });

  test('the strict policy (other params) agrees on the corpus too', () => {
    expect(unreported(corpus.map(source), 'strict')).toEqual([]);
  });
});

/** Table: the cases where explain and lint used to disagree, firing and not firing. */
describe('explain and lint agree on the termination schedule', () => {
  const deploy = (annotations: string, podSpec: string, service = true) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {${annotations}}
    spec:
${podSpec}${
    service
      ? `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`
      : ''
  }`;
  const pod = (grace: number, sidecarPreStop = '') => `      terminationGracePeriodSeconds: ${grace}
      initContainers:
      - {name: db-proxy, image: p, restartPolicy: Always${sidecarPreStop}}
      containers:
      - {name: app, image: a, ports: [{containerPort: 8080}], lifecycle: {preStop: {sleep: {seconds: 10}}}}
`;
  const linkerd = (wait: number) => `linkerd.io/inject: enabled, config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "${wait}", config.linkerd.io/proxy-enable-native-sidecar: "false", kubegrace.dev/drain-seconds: "20"`;

  const cases: { name: string; yaml: string; want: string[] }[] = [
    { name: 'mesh-api shape: the classic proxy leaves at 30s with the app, the sidecar drains 30-35s < 40s', yaml: deploy(linkerd(30), pod(40)), want: [] },
    { name: 'the same with no Service in the input (served unknown): same verdict', yaml: deploy(linkerd(30), pod(40), false), want: [] },
    { name: 'the classic proxy waits 38s: the sidecar gets 2s of its 5s', yaml: deploy(linkerd(38), pod(40)), want: ['native-sidecar-grace-budget warning'] },
    { name: 'the same with no Service in the input', yaml: deploy(linkerd(38), pod(40), false), want: ['native-sidecar-grace-budget warning'] },
    { name: 'app 10 + drain 20 + sidecar 5 > 30: grace-period-budget, once', yaml: deploy(linkerd(25), pod(30)), want: ['grace-period-budget warning'] },
    { name: 'grace shorter than the app preStop: an error', yaml: deploy('', pod(8)), want: ['grace-period-budget error'] },
    { name: 'a sidecar preStop that kills it', yaml: deploy('', pod(40, ', lifecycle: {preStop: {exec: {command: [kill, "1"]}}}')), want: ['native-sidecar-grace-budget warning'] },
  ];
  test.each(cases)('$name', ({ yaml, want }) => {
    const a = agreement([{ file: 'web.yaml', text: yaml }]);
    expect(a.explain).toEqual(a.lint);
    expect(a.lint.map((l) => l.split(' ').slice(2).join(' ')).filter((x) => !x.startsWith('linkerd-proxy-drain'))).toEqual(want);
  });

  test('explain says "served: unknown" when there is no Service in the input, never "not served"', () => {
    const policy = loadPolicy('recommended', ALL_RULES);
    const t = explainSources([{ file: 'web.yaml', text: deploy(linkerd(30), pod(40), false) }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.31') }).timelines[0];
    expect(t.servedState).toBe('unknown');
    expect(t.assumptions.join('\n')).toContain('served: unknown (no Service in the input)');
    expect(t.assumptions.join('\n')).not.toContain('not served');
  });
});
