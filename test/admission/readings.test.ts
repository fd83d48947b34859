/**
 * Readings the exported policies re-implement in CEL, checked name by name against the linter's
 * own functions (the differential tests compare whole verdicts; these pin the building blocks).
 */
import { acceleratorName } from '../../lib/admission/catalog';
import { exportPolicies } from '../../lib/admission/policies';
import { builtinCatalog, Catalog } from '../../lib/catalog';
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

describe('recreate-strategy: the policy reads the image tag as the linter does (catalog match.tags: SonarQube DCE application nodes)', () => {
  const read = bothReadings('recreate-strategy', 'warning');
  const deployment = (image: string) => webDeployment('', '', '').replace('spec:\n  selector', 'spec:\n  replicas: 2\n  strategy: {type: Recreate}\n  selector').replace('image: "web:1"', `image: ${JSON.stringify(image)}`);
  test.each([
    ['sonarqube:2026.4.0-datacenter-app', false],
    ['registry.example.com:5000/sonarqube:datacenter-app@sha256:00', false],
    ['  sonarqube:2025.4-lta-datacenter-app ', false],
    ['sonarqube:2026.4.0-datacenter-search', true],
    ['sonarqube:26.7.0.124771-community', true],
    ['sonarqube', true],
    ['registry.example.com:5000/sonarqube', true],
    ['sonarqube@sha256:00', true],
    ['sonarqube:2026.4.0-DATACENTER-APP', true],
  ] as const)('%s: warned %s', (image, warned) => {
    const yaml = deployment(image);
    expect(read.linter(yaml).length).toBe(warned ? 1 : 0);
    expect(read.policy(yaml) !== undefined).toBe(warned);
  });
});
