/**
 * Readings the exported policies re-implement in CEL, checked name by name against the linter's
 * own functions (the differential tests compare whole verdicts; these pin the building blocks).
 */
import { acceleratorName } from '../../lib/admission/catalog';
import { exportPolicies } from '../../lib/admission/policies';
import { builtinCatalog, Catalog, imageVersion, parseCatalogOverride } from '../../lib/catalog';
import { versionBelowRegex } from '../../lib/admission/cel';
import { ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { parseText } from '../../lib/model/parse';
import { ALL_RULES } from '../../lib/rules';
import { ACCELERATOR_PATTERNS, scarcityOf } from '../../lib/rules/surge-resource-deadlock';
import { compile, validate } from './evaluator';

describe('acceleratorName (surge-resource-deadlock scarcityOf == accelerator)', () => {
  const names = [
    ...ACCELERATOR_PATTERNS.map((p) => (p.endsWith('*') ? `${p.slice(0, -1)}x` : p)),
    ...ACCELERATOR_PATTERNS.map((p) => `requests.${p.replace('*', 'x')}`),
    'nvidia.com/gpu', 'nvidia.comx/gpu', 'xnvidia.com/gpu', 'google.com/tpu', 'google.com/tpux', 'aws.amazon.com/neuroncore', 'aws.amazon.com/neuron',
    'cpu', 'memory', 'pods', 'hugepages-2Mi', 'attachable-volumes-aws-ebs', 'example.com/widget', 'devices.kubevirt.io/kvm',
    'vpc.amazonaws.com/pod-eni', 'nvidia.com/a.kubernetes.io/b', 'gpu', 'qualcomm.com/qaic', 'qualcomm.com/qaic2', 'huawei.com/Ascend910',
  ];
  const program = compile(acceleratorName('k'));
  test.each(names)('%s', (name) => {
    expect(program({ k: name })).toBe(scarcityOf(name) === 'accelerator');
  });
});

describe("the policy's catalog (spec.catalog) is the one the exported policies read", () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 5
      containers: [{name: app, image: "nginx:1", lifecycle: {preStop: {exec: {command: [nginx, -s, quit]}}}}]
`;
  const obj = parseText('web.yaml', yaml).objects[0].raw;
  const policyWith = (catalog: Catalog): ResolvedPolicy => ({ name: 'p', rules: new Map(), customRules: [], catalog });
  test.each([
    ['built-in (nginx -s quit: 0 s, so preStop 0 + drain 10 > grace 5)', builtinCatalog(), true],
    ['nginx-quit disabled (an unknown program: not judged)', builtinCatalog().withOverride({ disable: ['nginx-quit'] }), false],
  ] as const)('%s', (_name, catalog, fires) => {
    const policy = policyWith(catalog);
    const linter = lintSources([{ file: 'web.yaml', text: yaml }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.34') }).findings.filter((f) => f.ruleId === 'grace-period-budget' && f.severity === 'warning');
    const v = exportPolicies({ rules: ALL_RULES, policy, version: KubeVersion.parse('1.34'), mode: 'validate' }).validations.find((x) => x.ruleId === 'grace-period-budget' && x.conditionSeverity === 'warning')!;
    expect(linter.length > 0).toBe(fires);
    expect(validate(v.policy, obj) !== undefined).toBe(fires);
  });
});

/** A Deployment of one served container: pod template annotations, container fields after its ports, pod spec lines. */
const webDeployment = (annotations: string, containerExtra: string, podSpec = '') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {${annotations}}}
    spec:
${podSpec}      containers: [{name: app, image: "web:1", ports: [{containerPort: 8080}]${containerExtra}}]
`;
const defaultPolicy: ResolvedPolicy = { name: 'p', rules: new Map(), customRules: [], catalog: builtinCatalog() };
/** The exported validation of a rule and severity, and the linter's findings of that rule, for the same policy and version. */
function bothReadings(ruleId: string, severity: string, version = KubeVersion.parse('1.34')) {
  const v = exportPolicies({ rules: ALL_RULES, policy: defaultPolicy, version, mode: 'validate' }).validations.find((x) => x.ruleId === ruleId && x.conditionSeverity === severity)!;
  return {
    policy: (yaml: string) => validate(v.policy, parseText('web.yaml', yaml).objects[0].raw),
    linter: (yaml: string) => lintSources([{ file: 'web.yaml', text: yaml }], { rules: ALL_RULES, policy: defaultPolicy, version }).findings.filter((f) => f.ruleId === ruleId && f.severity === severity),
  };
}

describe('zero-grace-period: the policy says preStop hooks are skipped only when there are some, as the linter does', () => {
  const deployment = (lifecycle: string) => webDeployment('', lifecycle, '      terminationGracePeriodSeconds: 0\n');
  const read = bothReadings('zero-grace-period', 'warning');
  test.each([
    // (The linter, with the objects around the Deployment in view, also names the container that
    // prestop-missing reports once the grace period is above 0: here assumed served from its port.
    // The policy sees the Deployment alone, and says what holds for it alone.)
    [
      'no preStop hook',
      '',
      /^terminationGracePeriodSeconds is 0: the app gets only the kubelet's 2s minimum .* or set it to preStop \+ drain \+ 5s, and give container "app" a preStop delay: it has none and declares a port, so it is assumed served \(no Service in the input selects the pods\) \(prestop-missing reports it once the grace period is above 0\)$/,
      /terminationGracePeriodSeconds is 0: the app gets only 2s .* or set it to drain \+ 5s$/,
    ],
    [
      'no preStop hook, and no port (nothing to give a hook)',
      '',
      /^terminationGracePeriodSeconds is 0: the app gets only the kubelet's 2s minimum .* or set it to drain \+ 5s$/,
      /terminationGracePeriodSeconds is 0: the app gets only 2s .* or set it to drain \+ 5s$/,
    ],
    ['a preStop hook', ', lifecycle: {preStop: {sleep: {seconds: 5}}}', /^terminationGracePeriodSeconds is 0: its preStop hooks are skipped and .* or set it to preStop \+ drain \+ 5s$/, /terminationGracePeriodSeconds is 0: its preStop hooks are skipped and .* or set it to preStop \+ drain \+ 5s$/],
  ] as const)('%s', (name, lifecycle, linterMessage, policyMessage) => {
    const yaml = name.includes('no port') ? deployment(lifecycle).replace(', ports: [{containerPort: 8080}]', '') : deployment(lifecycle);
    expect(read.linter(yaml).map((f) => f.message)).toEqual([expect.stringMatching(linterMessage)]);
    expect(read.policy(yaml)).toEqual([expect.stringMatching(policyMessage)]);
  });
});

describe('linkerd-proxy-drain without a wait before exit: the policy fires exactly where the linter does', () => {
  const deployment = (annotations: string, lifecycle: string) => webDeployment(`"linkerd.io/inject": enabled${annotations}`, lifecycle);
  const read = bothReadings('linkerd-proxy-drain', 'warning');
  const sleep10 = ', lifecycle: {preStop: {sleep: {seconds: 10}}}';
  test.each([
    ['no wait, app preStop 10s', '', sleep10, true],
    ['wait "0", app preStop 10s', ', "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "0"', sleep10, true],
    ['no wait, no app preStop', '', '', false],
    ['wait 20 above the app preStop 10s', ', "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "20"', sleep10, false],
    ['native proxy, no wait, app preStop 10s', ', "config.linkerd.io/proxy-enable-native-sidecar": "true"', sleep10, false],
  ] as const)('%s', (_name, annotations, lifecycle, fires) => {
    const yaml = deployment(annotations, lifecycle);
    const messages = read.policy(yaml);
    expect(read.linter(yaml).length > 0).toBe(fires);
    expect(messages !== undefined).toBe(fires);
    if (fires) expect(messages).toEqual([expect.stringMatching(/the linkerd-proxy gets SIGTERM as soon as the pod starts terminating \(no wait before exit\), while an app container sleeps 10s in its preStop/)]);
  });
});

describe('recreate-strategy: the policy reads the image tag as the linter does (catalog match.tags: SonarQube DCE application nodes, and the standalone tags of review round 34, report p47)', () => {
  const read = bothReadings('recreate-strategy', 'warning');
  const deployment = (image: string) => webDeployment('', '', '').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector').replace('image: "web:1"', `image: ${JSON.stringify(image)}`);
  test.each([
    ['sonarqube:2026.4.0-datacenter-app', false],
    ['registry.example.com:5000/sonarqube:datacenter-app@sha256:00', false],
    ['  sonarqube:2025.4-lta-datacenter-app ', false],
    ['sonarqube:2026.4.0-datacenter-search', true],
    ['sonarqube:26.7.0.124771-community', false],
    ['sonarqube:2025.4-lta-developer', false],
    ['sonarqube', false],
    ['registry.example.com:5000/sonarqube', false],
    ['sonarqube:9.6', true],
    ['sonarqube@sha256:00', true],
    ['sonarqube:2026.4.0-DATACENTER-APP', true],
  ] as const)('%s: warned %s', (image, warned) => {
    const yaml = deployment(image);
    expect(read.linter(yaml).length).toBe(warned ? 1 : 0);
    expect(read.policy(yaml) !== undefined).toBe(warned);
  });
});

describe('catalog match.minVersion: the policy rules out the same image tags as the linter (a policy-added single-version entry)', () => {
  const catalog = builtinCatalog().withOverride(
    parseCatalogOverride({ add: [{ id: 'acme-db', kind: 'single-version', title: 'ACME db', match: { images: ['*/acme/db'], minVersion: '2.10.3' }, why: 'one schema version at a time', source: ['ACME runbook DB-3'] }] }),
  );
  const policy: ResolvedPolicy = { name: 'p', rules: new Map(), customRules: [], catalog };
  const version = KubeVersion.parse('1.34');
  const v = exportPolicies({ rules: ALL_RULES, policy, version, mode: 'validate' }).validations.find((x) => x.ruleId === 'recreate-strategy' && x.conditionSeverity === 'warning')!;
  const deployment = (image: string) => webDeployment('', '', '').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector').replace('image: "web:1"', `image: ${JSON.stringify(image)}`);
  const tags = ['2.10.3', '2.10.2', '2.9.99', '1.99.99', '02.010.003', 'v2.10.4-rc1', '2.10.2+build', '2.10.2.1', '2.11.0', '10.0.0', '3.0.0', '0.0.0', 'latest', '2.10', 'main-abc123'];
  test.each(tags)('acme/db:%s', (tag) => {
    const yaml = deployment(`registry.example.com/acme/db:${tag}`);
    const linter = lintSources([{ file: 'web.yaml', text: yaml }], { rules: ALL_RULES, policy, version }).findings.filter((f) => f.ruleId === 'recreate-strategy' && f.severity === 'warning');
    // Below 2.10.3 the entry does not match: Recreate is warned about; otherwise it is the entry's info.
    const below = ['2.10.2', '2.9.99', '1.99.99', '2.10.2+build', '2.10.2.1', '0.0.0'].includes(tag);
    // (The linter's own reading: a version tag below minVersion; other tags count as current.)
    const v2 = imageVersion(`acme/db:${tag}`);
    expect(v2 !== undefined && (v2[0] !== 2 ? v2[0] < 2 : v2[1] !== 10 ? v2[1] < 10 : v2[2] < 3)).toBe(below);
    expect(linter.length).toBe(below ? 1 : 0);
    expect(validate(v.policy, parseText('web.yaml', yaml).objects[0].raw) !== undefined).toBe(below);
  });
  test('versionBelowRegex agrees with the linter on generated versions', () => {
    const mins: [number, number, number][] = [[0, 15, 0], [2, 10, 3], [1, 0, 0], [0, 0, 1], [10, 99, 100], [0, 0, 0]];
    for (const min of mins) {
      const re = new RegExp(versionBelowRegex(min));
      for (let a = 0; a <= 11; a++) for (const b of [0, 1, 9, 10, 14, 15, 16, 98, 99, 100, 101]) for (const c of [0, 1, 2, 3, 4, 99, 100, 101]) {
        const tag = `${a}.${b}.${c}`;
        const below = a !== min[0] ? a < min[0] : b !== min[1] ? b < min[1] : c < min[2];
        expect([min, tag, re.test(tag)]).toEqual([min, tag, below]);
      }
    }
  });
});

describe('catalog match.beforeVersion: the policy matches the same image tags as the linter (a policy-added single-version entry for old releases)', () => {
  const catalog = builtinCatalog().withOverride(
    parseCatalogOverride({ add: [{ id: 'acme-db-old', kind: 'single-version', title: 'ACME db before 2.10.3', match: { images: ['*/acme/db'], beforeVersion: '2.10.3' }, why: 'one schema version at a time before 2.10.3', source: ['ACME runbook DB-3'] }] }),
  );
  const policy: ResolvedPolicy = { name: 'p', rules: new Map(), customRules: [], catalog };
  const version = KubeVersion.parse('1.34');
  const v = exportPolicies({ rules: ALL_RULES, policy, version, mode: 'validate' }).validations.find((x) => x.ruleId === 'recreate-strategy' && x.conditionSeverity === 'warning')!;
  const deployment = (image: string) => webDeployment('', '', '').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector').replace('image: "web:1"', `image: ${JSON.stringify(image)}`);
  const tags = ['2.10.3', '2.10.2', '2.9.99', '1.99.99', '02.010.003', 'v2.10.4-rc1', '2.10.2+build', '2.10.2.1', '2.11.0', '10.0.0', '3.0.0', '0.0.0', 'latest', '2.10', 'main-abc123'];
  test.each(tags)('acme/db:%s', (tag) => {
    const yaml = deployment(`registry.example.com/acme/db:${tag}`);
    const linter = lintSources([{ file: 'web.yaml', text: yaml }], { rules: ALL_RULES, policy, version }).findings.filter((f) => f.ruleId === 'recreate-strategy' && f.severity === 'warning');
    // Only a version tag below 2.10.3 matches (Recreate is then the entry's info); other tags, later versions and no version, do not.
    const below = ['2.10.2', '2.9.99', '1.99.99', '2.10.2+build', '2.10.2.1', '0.0.0'].includes(tag);
    expect(linter.length).toBe(below ? 0 : 1);
    expect(validate(v.policy, parseText('web.yaml', yaml).objects[0].raw) !== undefined).toBe(!below);
  });
});
