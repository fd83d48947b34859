import * as fs from 'fs';
import * as path from 'path';
import { spreadBlocksSurge } from '../../lib/rules/spread-blocks-surge';
import { ruleTester, runRule } from '../helpers/rule-tester';

function deploy(podSpec: string, opts: { replicas?: string; strategy?: string; kind?: string; annotations?: string } = {}): string {
  return `apiVersion: apps/v1
kind: ${opts.kind ?? 'Deployment'}
metadata: {name: web}
spec:
${opts.replicas === '' ? '' : `  replicas: ${opts.replicas ?? '3'}\n`}${opts.strategy ? `  strategy:\n${opts.strategy}\n` : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${podSpec}      containers: [{name: app, image: web}]
`;
}
const tsc = (extra: string, selector = '{matchLabels: {app: web}}') => `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, labelSelector: ${selector}${extra ? `, ${extra}` : ''}}
`;
const dns = 'whenUnsatisfiable: DoNotSchedule';
const hash = 'matchLabelKeys: [pod-template-hash]';
const requiredAnti = (extra = '', key = 'kubernetes.io/hostname') => `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: ${key}, labelSelector: {matchLabels: {app: web}}${extra ? `, ${extra}` : ''}}
`;
const rolling = (surge: string, unavail: string) => `    type: RollingUpdate\n    rollingUpdate: {maxSurge: ${surge}, maxUnavailable: ${unavail}}`;

ruleTester(spreadBlocksSurge, {
  valid: [
    { name: 'DoNotSchedule with matchLabelKeys [pod-template-hash] (1.27 boundary)', yaml: deploy(tsc(`${dns}, ${hash}`)), kubeVersion: '1.27' },
    { name: 'ScheduleAnyway never blocks', yaml: deploy(tsc('whenUnsatisfiable: ScheduleAnyway')) },
    { name: 'maxUnavailable 1: the controller frees a node by removing an old pod (linkerd HA style)', yaml: deploy(tsc(dns), { strategy: rolling('"25%"', '1') }) },
    { name: 'four replicas with the defaults resolve to maxUnavailable 1', yaml: deploy(tsc(dns), { replicas: '4' }) },
    { name: 'no surge: maxSurge 0, maxUnavailable 1', yaml: deploy(requiredAnti(), { strategy: rolling('0', '1') }) },
    { name: 'Recreate: no surge', yaml: deploy(tsc(dns), { strategy: '    type: Recreate' }) },
    { name: 'constraint counting other pods', yaml: deploy(tsc(dns, '{matchLabels: {app: db}}')) },
    { name: 'required anti-affinity with matchLabelKeys on 1.31 (MatchLabelKeysInPodAffinity on)', yaml: deploy(requiredAnti(hash)), kubeVersion: '1.31' },
    {
      name: 'preferred anti-affinity',
      yaml: deploy(`      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - {weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}}
`),
    },
    { name: 'required anti-affinity on the zone key is not a hostname rule', yaml: deploy(requiredAnti('', 'topology.kubernetes.io/zone')) },
    { name: 'StatefulSets do not surge', yaml: deploy(tsc(dns), { kind: 'StatefulSet' }) },
    { name: 'minDomains with DoNotSchedule (default) on 1.30', yaml: deploy(tsc(`minDomains: 3, ${hash}`)), kubeVersion: '1.30' },
  ],
  invalid: [
    {
      name: 'explicit DoNotSchedule, 3 replicas, default 25%/25% (surge 1, unavailable 0)',
      yaml: deploy(tsc(dns)),
      kubeVersion: '1.27',
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/topologySpreadConstraints/0/whenUnsatisfiable',
          message: /topologySpreadConstraints\[0\] \(topologyKey kubernetes\.io\/hostname, maxSkew 1, whenUnsatisfiable DoNotSchedule\) counts old and new pods together while the rollout surges 1 pod and takes none down first \(maxSurge "25%" \(default\) and maxUnavailable "25%" \(default\) with replicas 3\).*progressDeadlineSeconds \(600s\); add matchLabelKeys: \[pod-template-hash\]/,
        },
      ],
    },
    {
      name: 'whenUnsatisfiable absent is DoNotSchedule: pointer at the constraint',
      yaml: deploy(tsc('')),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/topologySpreadConstraints/0', message: 'whenUnsatisfiable DoNotSchedule by default' }],
    },
    {
      name: 'below 1.27 matchLabelKeys is not available: a different fix',
      yaml: deploy(tsc(dns)),
      kubeVersion: '1.26',
      findings: [{ severity: 'warning', message: 'matchLabelKeys: [pod-template-hash] needs >= 1.27 (off on 1.26): use whenUnsatisfiable: ScheduleAnyway, or allow maxUnavailable: 1' }],
    },
    {
      name: 'matchLabelKeys written but ignored on 1.26',
      yaml: deploy(tsc(`${dns}, ${hash}`)),
      kubeVersion: '1.26',
      findings: [{ severity: 'warning', message: 'matchLabelKeys is ignored on 1.26' }],
    },
    {
      name: 'explicit surge-only strategy with more replicas',
      yaml: deploy(tsc(dns), { replicas: '5', strategy: rolling('1', '0') }),
      findings: [{ severity: 'warning', message: '(maxSurge 1 and maxUnavailable 0 with replicas 5)' }],
    },
    {
      name: 'HPA minReplicas decides the resolution',
      yaml:
        deploy(tsc(dns), { replicas: '' }) +
        `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 8
`,
      findings: [{ severity: 'warning', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/web)' }],
    },
    {
      name: 'required hostname anti-affinity (argo-cd HA style) on 1.31: add matchLabelKeys to the term',
      yaml: deploy(requiredAnti(), { replicas: '2' }),
      kubeVersion: '1.31',
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0', message: 'add matchLabelKeys: [pod-template-hash] to the term (MatchLabelKeysInPodAffinity, on since 1.31)' }],
    },
    {
      name: 'required anti-affinity with matchLabelKeys on 1.30: ignored there',
      yaml: deploy(requiredAnti(hash)),
      kubeVersion: '1.30',
      findings: [{ severity: 'warning', message: 'matchLabelKeys on affinity terms is ignored on 1.30 (MatchLabelKeysInPodAffinity is on from 1.31); make it preferredDuringSchedulingIgnoredDuringExecution, or replace it with a kubernetes.io/hostname topologySpreadConstraint with matchLabelKeys: [pod-template-hash]' }],
    },
    {
      name: 'required anti-affinity on 1.26: soft rules only',
      yaml: deploy(requiredAnti()),
      kubeVersion: '1.26',
      findings: [{ severity: 'warning', message: 'topologySpreadConstraint with whenUnsatisfiable: ScheduleAnyway' }],
    },
    {
      name: 'minDomains with ScheduleAnyway: the API rejects it (any workload kind)',
      yaml: deploy(tsc('whenUnsatisfiable: ScheduleAnyway, minDomains: 2'), { kind: 'StatefulSet' }),
      kubeVersion: '1.27',
      findings: [{ severity: 'error', pointer: '/spec/template/spec/topologySpreadConstraints/0/minDomains', message: 'the API rejects it ("can only use minDomains if whenUnsatisfiable=DoNotSchedule")' }],
    },
    {
      name: 'minDomains below 1.27 is dropped: info',
      yaml: deploy(tsc('whenUnsatisfiable: ScheduleAnyway, minDomains: 2'), { kind: 'StatefulSet' }),
      kubeVersion: '1.26',
      findings: [{ severity: 'info', message: 'minDomains is dropped on 1.26' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: deploy(tsc(dns), { annotations: '"kubegrace.dev/ignore": "spread-blocks-surge"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

/** Real charts (../shared/corpus/rendered, rendered for Kubernetes 1.31): reviewed findings, pinned. */
const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const corpusFile = (f: string) => fs.readFileSync(path.join(CORPUS, f), 'utf8');
const describeCorpus = fs.existsSync(CORPUS) ? describe : describe.skip;

describeCorpus('spread-blocks-surge on the corpus', () => {
  test('argo-cd HA: required hostname anti-affinity with the default surge-first rollout', () => {
    const got = runRule(spreadBlocksSurge, corpusFile('argo-cd-ha-install.yaml'), '1.31').map((f) => `${f.object.name} ${f.severity}`);
    expect(got).toEqual(['argocd-redis-ha-haproxy warning', 'argocd-repo-server warning', 'argocd-server warning']);
  });
  test('linkerd HA: required anti-affinity, but maxUnavailable 1 lets the rollout free a node', () => {
    expect(runRule(spreadBlocksSurge, corpusFile('linkerd-control-plane-ha.yaml'), '1.31')).toEqual([]);
  });
});
