import { pdbBlocksEviction } from '../../lib/rules/pdb-blocks-eviction';
import { ruleTester } from '../helpers/rule-tester';

function wl(name: string, replicas: number | undefined, kind = 'Deployment', labels = `{app: ${name}, team: a}`): string {
  return `---
apiVersion: apps/v1
kind: ${kind}
metadata: {name: ${name}}
spec:
${replicas === undefined ? '' : `  replicas: ${replicas}\n`}  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: ${labels}
    spec:
      containers: [{name: app, image: ${name}:1}]
`;
}

/** A PDB with the given budget line(s) selecting `selector`. */
function pdb(budget: string, selector = '{matchLabels: {app: web}}', annotations = ''): string {
  return `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
${annotations ? `  annotations: {${annotations}}\n` : ''}spec:
  ${budget}
  selector: ${selector}
`;
}
const hpa = (min?: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
${min === undefined ? '' : `  minReplicas: ${min}\n`}  maxReplicas: 10
`;
const TEAM = '{matchLabels: {team: a}}';
const MIN = '/spec/minAvailable';
const MAX = '/spec/maxUnavailable';

ruleTester(pdbBlocksEviction, {
  valid: [
    {
      name: 'an Alertmanager of 3 replicas (prometheus-operator makes the StatefulSet) under minAvailable 1: one may go',
      yaml: 'apiVersion: monitoring.coreos.com/v1\nkind: Alertmanager\nmetadata: {name: main}\nspec: {replicas: 3}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: am}\nspec: {minAvailable: 1, selector: {matchLabels: {app.kubernetes.io/name: alertmanager, alertmanager: main}}}\n',
    },
    {
      name: 'a PrometheusAgent in DaemonSet mode: a pod per node, not counted',
      yaml: 'apiVersion: monitoring.coreos.com/v1\nkind: PrometheusAgent\nmetadata: {name: main}\nspec: {mode: DaemonSet}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: ag}\nspec: {minAvailable: 1, selector: {matchLabels: {app.kubernetes.io/name: prometheus-agent}}}\n',
    },
    { name: 'both minAvailable and maxUnavailable: the API rejects the budget (pdb-missing reports it), so it blocks nothing', yaml: wl('web', 3) + pdb('minAvailable: 3\n  maxUnavailable: 0') },
    { name: 'minAvailable 1 with replicas 3', yaml: wl('web', 3) + pdb('minAvailable: 1') },
    { name: 'minAvailable 2 with replicas 3', yaml: wl('web', 3) + pdb('minAvailable: 2') },
    { name: 'maxUnavailable 1 with replicas 1', yaml: wl('web', 1) + pdb('maxUnavailable: 1') },
    { name: 'maxUnavailable "10%" with replicas 1 rounds up to 1', yaml: wl('web', 1) + pdb('maxUnavailable: "10%"') },
    { name: 'minAvailable "66%" with r = 3: ceil(1.98) = 2 < 3', yaml: wl('web', 3) + pdb('minAvailable: "66%"') },
    { name: 'minAvailable "50%" with r = 2: ceil(1) = 1', yaml: wl('web', 2) + pdb('minAvailable: "50%"') },
    { name: 'PDB matching nothing is pdb-selector\'s business', yaml: wl('api', 1) + pdb('minAvailable: 1') },
    { name: 'PDB matching only a DaemonSet: drains skip DaemonSet pods', yaml: wl('web', undefined, 'DaemonSet') + pdb('minAvailable: 1') },
    { name: 'DaemonSet pods in the match: r unknown, minAvailable not judged', yaml: wl('web', 1, 'Deployment', '{app: web, team: a}') + wl('agent', undefined, 'DaemonSet', '{app: agent, team: a}') + pdb('minAvailable: 1', TEAM) },
    { name: 'HPA minReplicas 3 with spec.replicas 1: r = 3', yaml: wl('web', 1) + hpa(3) + pdb('minAvailable: 2') },
    { name: 'r sums the matched workloads: 1 + 1 = 2 with minAvailable 1', yaml: wl('web', 1) + wl('api', 1) + pdb('minAvailable: 1', TEAM) },
    { name: 'scaled to 0: no pods to evict', yaml: wl('web', 0) + pdb('minAvailable: 1') },
  ],
  invalid: [
    {
      // kubernetes-dashboard's PDB toggle with its defaults renders neither field; disruption.go then allows no disruption.
      name: 'neither field set, 3 replicas: every eviction is refused (error, whatever the replicas)',
      yaml: wl('web', 3) + pdb('unhealthyPodEvictionPolicy: AlwaysAllow'),
      findings: [{ severity: 'error', pointer: '/spec', object: 'PodDisruptionBudget/web', message: /^sets neither minAvailable nor maxUnavailable for 3 pods \(Deployment\/web replicas 3\): the disruption controller then expects no pods \(it reads them only from one of the two fields\) and allows no disruption at all, so every eviction is refused: kubectl drain never finishes and node upgrades stall; set maxUnavailable: 1$/ }],
    },
    {
      name: 'neither field set, 1 replica: the same error, with the one-replica trade-off',
      yaml: wl('web', 1) + pdb('unhealthyPodEvictionPolicy: AlwaysAllow'),
      findings: [{ severity: 'error', message: /set maxUnavailable: 1 \(with one replica: a short outage while the pod starts on another node, or run 2 replicas\)$/ }],
    },
    {
      // kube-prometheus-stack with alertmanager.podDisruptionBudget.enabled and the default one replica.
      name: 'an Alertmanager of 1 replica under minAvailable 1: the StatefulSet prometheus-operator makes is counted like one in the input',
      yaml: 'apiVersion: monitoring.coreos.com/v1\nkind: Alertmanager\nmetadata: {name: main}\nspec: {replicas: 1}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: am}\nspec: {minAvailable: 1, selector: {matchLabels: {app.kubernetes.io/name: alertmanager, alertmanager: main}}}\n',
      findings: [{ severity: 'error', object: 'PodDisruptionBudget/am', message: /^minAvailable 1 with 1 pod \(StatefulSet\/alertmanager-main of Alertmanager\/main replicas 1\): the budget allows zero voluntary disruptions/ }],
    },
    {
      name: 'minAvailable 1 with replicas 1: error (the common chart default)',
      yaml: wl('web', 1) + pdb('minAvailable: 1'),
      findings: [{ severity: 'error', pointer: MIN, object: 'PodDisruptionBudget/web', message: 'minAvailable 1 with 1 pod (Deployment/web replicas 1): the budget allows zero voluntary disruptions' }],
    },
    {
      // (Review round 10: the neo4j chart, one StatefulSet and one budget per cluster member, behind one Service.)
      name: 'one replica that a Service serves with sibling workloads: a group member, so one budget over the shared labels',
      yaml:
        wl('web', 1, 'StatefulSet', '{app: web, cluster: "true"}') +
        wl('web2', 1, 'StatefulSet', '{app: web2, cluster: "true"}') +
        pdb('minAvailable: 1') +
        `---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec:
  selector: {cluster: "true"}
  ports: [{port: 7687}]
`,
      findings: [
        {
          severity: 'error',
          message:
            /; its pods are one member of a group that Service\/lb serves with StatefulSet\/web2: use one budget over the labels the members share, such as the Service's selector \{cluster: "true"\}, with maxUnavailable: 1 \(or a minAvailable that keeps the group's quorum\), in place of one budget per member; a budget of maxUnavailable: 1 per member would let concurrent drains evict several members at once$/,
        },
      ],
    },
    {
      // kube-prometheus-stack's prometheus-operator: one replica by design (no leader election), so "run 2" is not the only advice.
      name: 'one replica: the advice covers a singleton too (maxUnavailable: 1 or no budget)',
      yaml: wl('web', 1) + pdb('minAvailable: 1'),
      findings: [{ severity: 'error', message: /run at least 2 replicas and use maxUnavailable: 1 if the program can run two at once; for a singleton, use maxUnavailable: 1 \(a drain then evicts it: a short outage while it starts on another node\) or remove the budget$/ }],
    },
    {
      name: 'minAvailable 1 with the default replicas',
      yaml: wl('web', undefined) + pdb('minAvailable: 1'),
      findings: [{ severity: 'error', message: '(Deployment/web replicas 1 (default))' }],
    },
    {
      name: 'minAvailable 2 with replicas 1: error (teleport proxy case)',
      yaml: wl('web', 1) + pdb('minAvailable: 2'),
      findings: [{ severity: 'error', pointer: MIN, message: 'minAvailable 2 with 1 pod' }],
    },
    { name: 'minAvailable 3 with replicas 3: warning', yaml: wl('web', 3) + pdb('minAvailable: 3'), findings: [{ severity: 'warning', pointer: MIN, message: 'minAvailable 3 with 3 pods' }] },
    {
      name: 'minAvailable "100%": warning with the opt-out hint',
      yaml: wl('web', 3) + pdb('minAvailable: "100%"'),
      findings: [{ severity: 'warning', pointer: MIN, message: /minAvailable "100%" with 3 pods.*kubegrace\.dev\/ignore: pdb-blocks-eviction/ }],
    },
    // Review round 33, report p42 item 2: apisix's chart default minAvailable "90%" with 3 replicas. A percentage below 100% says "let
    // some go"; rounded up to every replica of a fixed count it blocks every drain by accident, as minAvailable 1 on 1 does.
    { name: 'minAvailable "90%" with r = 3 rounds up to 3: error (a fixed count)', yaml: wl('web', 3) + pdb('minAvailable: "90%"'), findings: [{ severity: 'error', message: 'minAvailable "90%" rounds up to 3 of 3 pods' }] },
    { name: 'minAvailable "67%" with r = 3: ceil(2.01) = 3: error', yaml: wl('web', 3) + pdb('minAvailable: "67%"'), findings: [{ severity: 'error', message: 'rounds up to 3 of 3 pods' }] },
    { name: 'minAvailable "90%" with r = 9: ceil(8.1) = 9: error', yaml: wl('web', 9, 'StatefulSet') + pdb('minAvailable: 90%'), findings: [{ severity: 'error', message: 'rounds up to 9 of 9 pods' }] },
    // A majority meant for a quorum, on one replica: the same budget as minAvailable 1 (bitnami etcd's
    // default pdb.minAvailable "51%" with replicaCount 1), so the same error.
    { name: 'minAvailable "50%" with r = 1 rounds up to 1: error, as minAvailable 1', yaml: wl('web', 1) + pdb('minAvailable: "50%"'), findings: [{ severity: 'error', message: 'rounds up to 1 of 1 pod' }] },
    { name: 'minAvailable "51%" with r = 1 (bitnami etcd defaults): error', yaml: wl('web', 1, 'StatefulSet') + pdb('minAvailable: 51%'), findings: [{ severity: 'error', message: 'minAvailable "51%" rounds up to 1 of 1 pod' }] },
    { name: 'minAvailable "100%" with r = 1: warning (a percentage, not the integer default)', yaml: wl('web', 1) + pdb('minAvailable: "100%"'), findings: [{ severity: 'warning' }] },
    {
      name: 'maxUnavailable 0: warning with the opt-out hint',
      yaml: wl('web', 3) + pdb('maxUnavailable: 0'),
      findings: [{ severity: 'warning', pointer: MAX, message: /maxUnavailable 0 for 3 pods.*"talk to me first"/ }],
    },
    { name: 'maxUnavailable "0%"', yaml: wl('web', 2) + pdb('maxUnavailable: "0%"'), findings: [{ severity: 'warning', pointer: MAX, message: 'maxUnavailable "0%"' }] },
    {
      name: 'maxUnavailable 0 is judged even with DaemonSet pods in the match',
      yaml: wl('web', 2, 'Deployment', '{app: web, team: a}') + wl('agent', undefined, 'DaemonSet', '{app: agent, team: a}') + pdb('maxUnavailable: 0', TEAM),
      findings: [{ severity: 'warning', pointer: MAX }],
    },
    {
      name: 'HPA minReplicas 1 with spec.replicas 3 and minAvailable 1: error (PDB-005)',
      yaml: wl('web', 3) + hpa(1) + pdb('minAvailable: 1'),
      findings: [{ severity: 'error', pointer: MIN, message: /Deployment\/web HPA minReplicas 1 \(HorizontalPodAutoscaler\/web\).*whenever the HPA has scaled down to its minimum.*set HPA minReplicas to at least 2/ }],
    },
    {
      name: 'HPA without minReplicas defaults to 1',
      yaml: wl('web', 4) + hpa() + pdb('minAvailable: 1'),
      findings: [{ severity: 'error', message: 'HPA minReplicas 1 (default)' }],
    },
    {
      // (At a larger scale the budget allows evictions: not the accidental fixed-count case, a warning.)
      name: 'HPA minReplicas 2 and minAvailable "90%": ceil(1.8) = 2: warning',
      yaml: wl('web', 5) + hpa(2) + pdb('minAvailable: "90%"'),
      findings: [{ severity: 'warning', message: 'rounds up to 2 of 2 pods' }],
    },
    {
      name: 'r sums the matched workloads: 1 + 1 = 2 with minAvailable 2 is a warning',
      yaml: wl('web', 1) + wl('api', 1) + pdb('minAvailable: 2', TEAM),
      findings: [{ severity: 'warning', message: '2 pods (Deployment/web replicas 1, Deployment/api replicas 1)' }],
    },
    {
      name: 'a bare Pod counts 1',
      yaml: `apiVersion: v1
kind: Pod
metadata: {name: solo, labels: {app: web}}
spec:
  containers: [{name: app, image: a}]
` + pdb('minAvailable: 1'),
      findings: [{ severity: 'error', message: 'Pod/solo (1 pod)' }],
    },
    {
      name: 'the "talk to me first" opt-out: kubegrace.dev/ignore on the PDB',
      yaml: wl('web', 3) + pdb('maxUnavailable: 0', '{matchLabels: {app: web}}', '"kubegrace.dev/ignore": "pdb-blocks-eviction", "kubegrace.dev/ignore-reason": "evictions need approval"'),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});
