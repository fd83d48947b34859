import * as fs from 'fs';
import * as path from 'path';
import { unknownReservedKey } from '../../lib/rules/mesh-util';
import { spreadBlocksSurge } from '../../lib/rules/spread-blocks-surge';
import { ruleTester, runRule } from '../helpers/rule-tester';

function deploy(podSpec: string, opts: { replicas?: string; strategy?: string; kind?: string; annotations?: string; containers?: string } = {}): string {
  return `apiVersion: apps/v1
kind: ${opts.kind ?? 'Deployment'}
metadata: {name: web}
spec:
${opts.replicas === '' ? '' : `  replicas: ${opts.replicas ?? '3'}\n`}${opts.strategy ? `  strategy:\n${opts.strategy}\n` : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${podSpec}      containers: ${opts.containers ?? '[{name: app, image: web}]'}
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
/** Contour's examples/render/contour-deployment.yaml envoy: host ports 80/443, maxSurge 10% (-> 1), maxUnavailable 25% by default (-> 0 with 2 replicas). */
const envoy = '[{name: envoy, image: envoy, ports: [{name: http, containerPort: 8080, hostPort: 80}, {name: https, containerPort: 8443, hostPort: 443}, {name: metrics, containerPort: 8002}]}]';
const contourStrategy = '    type: RollingUpdate\n    rollingUpdate: {maxSurge: 10%}';
const hostNet = '      hostNetwork: true\n';
/** A spread constraint on `key` (DoNotSchedule unless `when` says otherwise). */
const keyed = (key: string, when = 'whenUnsatisfiable: DoNotSchedule', extra = '') => `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: ${key}, ${when ? `${when}, ` : ''}labelSelector: {matchLabels: {app: web}}${extra}}
`;
const sts = { kind: 'StatefulSet' };
const declared = '[{name: app, image: web, ports: [{name: health, containerPort: 9234}, {name: prom, containerPort: 9963}]}]';

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
    { name: 'StatefulSets do not surge', yaml: deploy(tsc(dns), { kind: 'StatefulSet' }) },
    { name: 'minDomains with DoNotSchedule (default) on 1.30', yaml: deploy(tsc(`minDomains: 3, ${hash}`)), kubeVersion: '1.30' },
    { name: 'host ports with maxSurge 0, maxUnavailable 1: an old pod frees its node first', yaml: deploy('', { replicas: '2', containers: envoy, strategy: rolling('0', '1') }) },
    { name: 'host ports, four replicas with the defaults: maxUnavailable resolves to 1', yaml: deploy('', { replicas: '4', containers: envoy }) },
    { name: 'cilium-operator style: hostNetwork and hostPorts, maxUnavailable 50% of 2 resolves to 1', yaml: deploy(hostNet + requiredAnti(), { replicas: '2', containers: declared, strategy: rolling('"25%"', '"50%"') }) },
    { name: 'host ports, Recreate: no surge', yaml: deploy('', { containers: envoy, strategy: '    type: Recreate' }) },
    { name: 'host ports on a StatefulSet: no surge', yaml: deploy('', { kind: 'StatefulSet', containers: envoy }) },
    { name: "host ports on a DaemonSet rolling surge first: daemonset-surge's, not this rule's", yaml: deploy('', { kind: 'DaemonSet', replicas: '', containers: envoy }).replace('spec:\n  selector', 'spec:\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n  selector') },
    { name: 'hostNetwork without declared ports: the scheduler sees no port', yaml: deploy(hostNet) },
    { name: 'hostPort 0 is no host port', yaml: deploy('', { containers: '[{name: app, image: web, ports: [{containerPort: 8080, hostPort: 0}]}]' }) },
    { name: 'a host port on a classic init container: it has exited before the pod runs', yaml: deploy('      initContainers: [{name: setup, image: s, ports: [{containerPort: 80, hostPort: 80}]}]\n') },
    { name: 'ScheduleAnyway on kubernetes.io/zone leaves no pod Pending (replicas-not-spread says it spreads nothing)', yaml: deploy(keyed('kubernetes.io/zone', 'whenUnsatisfiable: ScheduleAnyway'), sts) },
    { name: 'a custom key (example.com/rack): admins label nodes with their own keys', yaml: deploy(keyed('example.com/rack'), sts) },
    { name: 'node.kubernetes.io/ is open: kubelets may set any label there (--node-labels)', yaml: deploy(keyed('node.kubernetes.io/pool'), sts) },
    { name: 'node-role.kubernetes.io/ roles', yaml: deploy(keyed('node-role.kubernetes.io/ingress'), sts) },
    { name: 'node-restriction.kubernetes.io/: the prefix NodeRestriction leaves to admins', yaml: deploy(keyed('node-restriction.kubernetes.io/rack'), sts) },
    { name: "node-feature-discovery's feature.node.kubernetes.io/", yaml: deploy(keyed('feature.node.kubernetes.io/cpu-model.vendor_id'), sts) },
    { name: "a Kubernetes project's own namespace under k8s.io (kops.k8s.io/instancegroup)", yaml: deploy(keyed('kops.k8s.io/instancegroup'), sts) },
    { name: 'the deprecated beta zone key is well known', yaml: deploy(keyed('failure-domain.beta.kubernetes.io/zone'), sts) },
    { name: 'the region key is well known', yaml: deploy(keyed('topology.kubernetes.io/region'), sts) },
    {
      name: 'required anti-affinity on kubernetes.io/zone: a node without the key satisfies the term, so no pod is left Pending',
      yaml: deploy(requiredAnti('', 'kubernetes.io/zone'), sts),
    },
  ],
  invalid: [
    {
      name: 'explicit DoNotSchedule, 3 replicas, default 25%/25% (surge 1, unavailable 0)',
      yaml: deploy(tsc(dns)),
      kubeVersion: '1.27',
      findings: [
        {
          severity: 'info',
          pointer: '/spec/template/spec/topologySpreadConstraints/0/whenUnsatisfiable',
          message:
            /^topologySpreadConstraints\[0\] \(topologyKey kubernetes\.io\/hostname, maxSkew 1, whenUnsatisfiable DoNotSchedule\) counts old and new pods together while the rollout surges 1 pod and takes none down first \(maxSurge "25%" \(default\) and maxUnavailable "25%" \(default\) with replicas 3\): the surge pod may go only to the nodes that run the fewest of these pods, old ones included; when those cannot take it \(no room, or a tainted or cordoned node the spread counts under the default nodeTaintsPolicy: Ignore \(a tainted pool or a control-plane node is a domain with none of these pods, so the surge pod must go to a node without one\)\) it stays Pending, no old pod is removed, and the rollout stalls: progressDeadlineSeconds \(600s\) only marks it failed \(ProgressDeadlineExceeded\) and nothing rolls it back, and once the old pods are gone the new ones can be spread unevenly \(kubernetes\/kubernetes#98215\); add matchLabelKeys: \[pod-template-hash\]/,
        },
      ],
    },
    {
      // (Ory's charts' values example, review round 10: the domains with the fewest pods always pass the skew check.)
      name: 'a zone constraint: domains, not nodes; nodeTaintsPolicy: Honor leaves tainted nodes out; minDomains named',
      yaml: deploy(keyed('topology.kubernetes.io/zone', `${dns}, nodeTaintsPolicy: Honor, minDomains: 3`)),
      kubeVersion: '1.31',
      findings: [
        {
          severity: 'info',
          message: /the surge pod may go only to the domains that run the fewest of these pods, old ones included; when those cannot take it \(no room, or fewer eligible domains than minDomains 3\) it stays Pending/,
        },
      ],
    },
    {
      name: 'nodeTaintsPolicy: Ignore written: not called the default',
      yaml: deploy(keyed('topology.kubernetes.io/zone', `${dns}, nodeTaintsPolicy: Ignore`)),
      kubeVersion: '1.31',
      findings: [{ severity: 'info', message: '(no room, or tainted or cordoned nodes the spread counts under nodeTaintsPolicy: Ignore) it stays Pending' }],
    },
    {
      name: 'whenUnsatisfiable absent is DoNotSchedule: pointer at the constraint',
      yaml: deploy(tsc('')),
      findings: [{ severity: 'info', pointer: '/spec/template/spec/topologySpreadConstraints/0', message: 'whenUnsatisfiable DoNotSchedule by default' }],
    },
    {
      name: 'below 1.27 matchLabelKeys is not available: a different fix',
      yaml: deploy(tsc(dns)),
      kubeVersion: '1.26',
      findings: [{ severity: 'info', message: 'matchLabelKeys: [pod-template-hash] needs >= 1.27 (off on 1.26): use whenUnsatisfiable: ScheduleAnyway, or allow maxUnavailable: 1' }],
    },
    {
      name: 'matchLabelKeys written but ignored on 1.26',
      yaml: deploy(tsc(`${dns}, ${hash}`)),
      kubeVersion: '1.26',
      findings: [{ severity: 'info', message: 'matchLabelKeys is ignored on 1.26' }],
    },
    {
      name: 'explicit surge-only strategy with more replicas',
      yaml: deploy(tsc(dns), { replicas: '5', strategy: rolling('1', '0') }),
      findings: [{ severity: 'info', message: '(maxSurge 1 and maxUnavailable 0 with replicas 5)' }],
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
      findings: [{ severity: 'info', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/web)' }],
    },
    {
      name: 'required zone anti-affinity (gke-stateful-mysql, 3 replicas in 3 zones): the surge pod finds no zone without an old pod',
      yaml: deploy(requiredAnti('', 'topology.kubernetes.io/zone'), { replicas: '3' }),
      kubeVersion: '1.31',
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0', message: /^required pod anti-affinity on topology.kubernetes.io\/zone \(requiredDuringSchedulingIgnoredDuringExecution\[0\]\) keeps the surge pod off every zone that still runs an old pod .*when there are no more zones than replicas/ }],
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
      name: 'Contour envoy: host ports 80/443 with maxSurge 10% and the default maxUnavailable (2 replicas: surge 1, unavailable 0)',
      yaml: deploy('', { replicas: '2', containers: envoy, strategy: contourStrategy }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/containers/0/ports/0/hostPort',
          message:
            /^the pod binds host ports \(container "envoy" hostPorts 80, 443\) while the rollout surges 1 pod and takes none down first \(maxSurge "10%" and maxUnavailable "25%" \(default\) with replicas 2\): the surge pod cannot run on a node that still runs an old pod \(the ports are taken there; kube-scheduler NodePorts: "node\(s\) didn't have free ports for the requested pod ports"\), so on a cluster with fewer than 3 nodes these pods can run on, it stays Pending, no old pod is removed, and the rollout stalls: progressDeadlineSeconds \(600s\) only marks it failed \(ProgressDeadlineExceeded\) and nothing rolls it back; matchLabelKeys cannot help with host ports: set strategy.rollingUpdate to \{maxSurge: 0, maxUnavailable: 1\}/,
        },
      ],
    },
    {
      // LiveKit (review round 24): grace 18000 for participants to leave; the proposal's maxSurge 0 makes each step wait for it.
      name: 'host ports and a grace period longer than progressDeadlineSeconds: the advice says each step waits for an old pod, and to raise the deadline',
      yaml: deploy(hostNet + '      terminationGracePeriodSeconds: 18000\n', { replicas: '2', containers: declared }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/hostNetwork',
          message:
            /set strategy.rollingUpdate to \{maxSurge: 0, maxUnavailable: 1\} so an old pod frees its node first \(one pod less serves during the rollout\), or keep a spare node; but an old pod's termination lasts up to its grace period, 18000s, longer than progressDeadlineSeconds \(600s\): with maxSurge 0 each step waits for it .*raise progressDeadlineSeconds to at least 18060s/,
        },
      ],
    },
    {
      name: 'hostNetwork: every declared port is a host port (the API defaults hostPort to containerPort); pointer at hostNetwork',
      yaml: deploy(hostNet, { containers: declared }),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/hostNetwork', message: 'container "app" ports 9234, 9963 (hostNetwork: true makes every declared port a host port)' }],
    },
    {
      // Review p38 item 6: one replica that may run on any node needs only a second node: info.
      name: 'one replica: stalls only when one node can run it; info, advice without a strategy change',
      yaml: deploy('', { replicas: '1', containers: '[{name: app, image: web, ports: [{containerPort: 80, hostPort: 80}]}]' }),
      findings: [{ severity: 'info', message: /binds host port \(container "app" hostPort 80\).*with fewer than 2 nodes these pods can run on.*keep a second node these pods can run on/ }],
    },
    {
      name: 'one replica pinned by a nodeSelector (a pool that may be one node): warning',
      yaml: deploy('      nodeSelector: {role: edge}\n', { replicas: '1', containers: '[{name: app, image: web, ports: [{containerPort: 80, hostPort: 80}]}]' }),
      findings: [{ severity: 'warning', message: /binds host port/ }],
    },
    {
      name: 'one replica, required hostname anti-affinity, any node: info (linkerd-viz HA values)',
      yaml: deploy(requiredAnti(), { replicas: '1' }),
      kubeVersion: '1.31',
      findings: [{ severity: 'info', pointer: '/spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0', message: /keeps the surge pod off the node that still runs the old pod .*on a cluster with a single node these pods can run on, the surge pod stays Pending .*hence info; add matchLabelKeys: \[pod-template-hash\]/ }],
    },
    {
      name: 'one replica, required hostname anti-affinity, nodeSelector kubernetes.io/os: linux only (a platform, not a pool): info',
      yaml: deploy('      nodeSelector: {kubernetes.io/os: linux}\n' + requiredAnti(), { replicas: '1' }),
      kubeVersion: '1.31',
      findings: [{ severity: 'info', message: /on a cluster with a single node these pods can run on/ }],
    },
    {
      name: 'one replica, required hostname anti-affinity, required node affinity: warning',
      yaml: deploy(requiredAnti().replace('        podAntiAffinity:', '        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [infra]}]}]}\n        podAntiAffinity:'), { replicas: '1' }),
      kubeVersion: '1.31',
      findings: [{ severity: 'warning', message: /keeps the surge pod off every node that still runs an old pod/ }],
    },
    {
      name: 'one replica, required zone anti-affinity: still a warning (single-zone clusters are common)',
      yaml: deploy(requiredAnti('', 'topology.kubernetes.io/zone'), { replicas: '1' }),
      findings: [{ severity: 'warning', message: /keeps the surge pod off every zone that still runs an old pod/ }],
    },
    {
      name: 'a native sidecar binding a host port counts',
      yaml: deploy('      initContainers: [{name: proxy, image: p, restartPolicy: Always, ports: [{containerPort: 9901, hostPort: 9901}]}]\n'),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/ports/0/hostPort', message: 'container "proxy" hostPort 9901' }],
    },
    {
      name: 'required hostname anti-affinity and host ports: both, and the anti-affinity finding says matchLabelKeys does not free the node',
      yaml: deploy(requiredAnti(), { replicas: '2', containers: envoy }),
      kubeVersion: '1.31',
      findings: [
        { severity: 'warning', pointer: '/spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0', message: '; the pod also binds host ports (container "envoy" hostPorts 80, 443), which keep the surge pod off every node with an old pod whatever matchLabelKeys says' },
        { severity: 'warning', pointer: '/spec/template/spec/containers/0/ports/0/hostPort' },
      ],
    },
    {
      name: "haproxytech's values example: DoNotSchedule on kubernetes.io/zone (matchLabelKeys set, so no surge finding): every pod Pending unless nodes carry the key",
      yaml: deploy(keyed('kubernetes.io/zone', dns, `, ${hash}`)),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/topologySpreadConstraints/0/topologyKey',
          message:
            /^topologySpreadConstraints\[0\] \(topologyKey kubernetes\.io\/zone, whenUnsatisfiable DoNotSchedule\) spreads over a label no node carries unless an admin set it: kubernetes\.io\/zone is under the kubernetes\.io\/ prefix Kubernetes reserves but is not a well-known node label \(the well-known one is topology\.kubernetes\.io\/zone\), and kube-scheduler rejects every node without it \("node\(s\) didn't match pod topology spread constraints \(missing required label\)"\), so every pod stays Pending; use topologyKey: topology\.kubernetes\.io\/zone, or, if the nodes are labelled with kubernetes\.io\/zone on purpose, suppress this finding$/,
        },
      ],
    },
    {
      name: 'any workload kind, whenUnsatisfiable absent (DoNotSchedule by default), a key with no well-known twin',
      yaml: deploy(keyed('topology.kubernetes.io/rack', ''), { kind: 'DaemonSet', replicas: '' }),
      findings: [{ severity: 'warning', object: 'DaemonSet/web', message: /whenUnsatisfiable DoNotSchedule by default\).*not a well-known node label, and kube-scheduler.*; use a label the nodes carry \(kubernetes\.io\/hostname, topology\.kubernetes\.io\/zone\)/ }],
    },
    {
      name: 'the k8s.io/ prefix, on a bare Pod, selecting other pods: the filter reads the node first',
      yaml: `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: other}}}]
  containers: [{name: app, image: web}]
`,
      findings: [{ severity: 'warning', object: 'Pod/web', message: 'k8s.io/hostname is under the k8s.io/ prefix Kubernetes reserves but is not a well-known node label (the well-known one is kubernetes.io/hostname)' }],
    },
    {
      name: 'a surge-only Deployment without matchLabelKeys: the unknown key and the surge stall, both',
      yaml: deploy(keyed('kubernetes.io/zone')),
      kubeVersion: '1.31',
      findings: [
        { severity: 'warning', pointer: '/spec/template/spec/topologySpreadConstraints/0/topologyKey', message: 'spreads over a label no node carries' },
        { severity: 'info', pointer: '/spec/template/spec/topologySpreadConstraints/0/whenUnsatisfiable', message: 'counts old and new pods together' },
      ],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: deploy(tsc(dns), { annotations: '"kubegrace.dev/ignore": "spread-blocks-surge"' }),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});

describe('unknownReservedKey: reserved topology keys no node carries by default', () => {
  test.each([
    ['kubernetes.io/zone', { meant: 'topology.kubernetes.io/zone' }],
    ['kubernetes.io/region', { meant: 'topology.kubernetes.io/region' }],
    ['topology.kubernetes.io/hostname', { meant: 'kubernetes.io/hostname' }],
    ['failure-domain.kubernetes.io/zone', { meant: 'topology.kubernetes.io/zone' }],
    ['k8s.io/zone', { meant: 'topology.kubernetes.io/zone' }],
    ['topology.kubernetes.io/rack', { meant: undefined }],
    ['app.kubernetes.io/name', { meant: undefined }],
    ['kubernetes.io/role', { meant: undefined }],
  ])('%s is reserved and not well known', (key, expected) => expect(unknownReservedKey(key)).toEqual(expected));
  test.each([
    'kubernetes.io/hostname',
    'topology.kubernetes.io/zone',
    'topology.kubernetes.io/region',
    'failure-domain.beta.kubernetes.io/zone',
    'kubernetes.io/os',
    'beta.kubernetes.io/arch',
    'node.kubernetes.io/instance-type',
    'node.kubernetes.io/anything',
    'team.node.kubernetes.io/pool',
    'kubelet.kubernetes.io/x',
    'node-role.kubernetes.io/control-plane',
    'node-restriction.kubernetes.io/pool',
    'kops.k8s.io/instancegroup',
    'cluster.x-k8s.io/deployment-name',
    'example.com/rack',
    'topology.gke.io/zone',
    'zone',
  ])('%s is not reported', (key) => expect(unknownReservedKey(key)).toBeUndefined());
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

describe('spread-blocks-surge host-port proposal and a long termination (review round 24)', () => {
  const edits = (yaml: string) => runRule(spreadBlocksSurge, yaml, '1.31').find((f) => f.message.startsWith('the pod binds host'))!.fix!;
  test('grace 18000 above the deadline: the proposal also raises progressDeadlineSeconds to grace + a realistic step', () => {
    const fix = edits(deploy(hostNet + '      terminationGracePeriodSeconds: 18000\n', { replicas: '2', containers: declared }));
    expect(fix.description).toMatch(/and progressDeadlineSeconds to 18060 \(each step then waits for an old pod's termination, up to its grace period, 18000s\)$/);
    expect(fix.edits).toEqual([
      { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxSurge', value: 0 },
      { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxUnavailable', value: 1 },
      { op: 'set', pointer: '/spec/progressDeadlineSeconds', value: 18060 },
    ]);
  });
  test('a declared drain that ends well before the deadline: the strategy change only', () => {
    const fix = edits(deploy(hostNet + '      terminationGracePeriodSeconds: 18000\n', { replicas: '2', containers: declared, annotations: 'kubegrace.dev/drain-seconds: "30"' }));
    expect(fix.description).toBe('set strategy.rollingUpdate to maxSurge 0, maxUnavailable 1 (the pod binds host ports, so a surge pod needs a spare node)');
    expect(fix.edits).toHaveLength(2);
  });
  test('the default grace period (30 s): the strategy change only, and no word of the deadline', () => {
    const f = runRule(spreadBlocksSurge, deploy(hostNet, { replicas: '2', containers: declared }), '1.31').find((x) => x.message.startsWith('the pod binds host'))!;
    expect(f.fix!.edits).toHaveLength(2);
    expect(f.message).not.toMatch(/termination lasts/);
  });
});
