import { surgeVolumeDeadlock } from '../../lib/rules/surge-volume-deadlock';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  replicas?: number;
  strategy?: string;
  /** Extra pod-spec lines (6-space indent). */
  podExtra?: string;
  volumes?: string;
  annotations?: string;
  extra?: string;
}

function deploy(o: Opts = {}): string {
  return `apiVersion: apps/v1
kind: ${o.kind ?? 'Deployment'}
metadata: {name: web}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}${o.strategy ? `  strategy: ${o.strategy}\n` : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.podExtra ?? ''}      containers: [{name: app, image: web:1, volumeMounts: [{name: data, mountPath: /data}]}]
      volumes: ${o.volumes ?? '[{name: data, persistentVolumeClaim: {claimName: data}}]'}
${o.extra ?? ''}`;
}

const pvc = (modes: string, name = 'data', ns = '') => `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}${ns ? `, namespace: ${ns}` : ''}}
spec:
  accessModes: ${modes}
  resources: {requests: {storage: 1Gi}}
`;

const VOL0 = '/spec/template/spec/volumes/0';

const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: ${min}
  maxReplicas: 5
`;

const STS_VCT = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: db:1, volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

const NODE_AFFINITY_ONE_HOST = '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-1]}]}]}}}\n';
const SHARED_RWO =
  'in every replica (replicas 2): a ReadWriteOnce volume attaches to one node at a time, so a replica scheduled on a node other than the one that has it attached stays in ContainerCreating on a Multi-Attach error';
const SHARED_FIX =
  'run one replica with strategy.type: Recreate so a rollout never runs two, use ReadWriteMany storage if the replicas may share the data, or make it a StatefulSet with volumeClaimTemplates if each replica can own its data';

ruleTester(surgeVolumeDeadlock, {
  valid: [
    { name: 'RWO claim with strategy Recreate', yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOnce]') }) },
    { name: 'RWOP claim with strategy Recreate', yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'RWO claim with maxSurge 0, maxUnavailable 1: surge 0', yaml: deploy({ strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', extra: pvc('[ReadWriteOnce]') }) },
    { name: 'maxSurge "0%" resolves to 0 with replicas 1', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: "0%", maxUnavailable: 1}}', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'PVC not in the linted set: access mode unknown, skipped', yaml: deploy() },
    { name: 'PVC of the same name in another namespace does not count', yaml: deploy({ extra: pvc('[ReadWriteOncePod]', 'data', 'other') }) },
    { name: 'ReadWriteMany claim', yaml: deploy({ extra: pvc('[ReadWriteMany]') }) },
    { name: 'ReadOnlyMany claim', yaml: deploy({ extra: pvc('[ReadOnlyMany]') }) },
    { name: 'RWO together with RWX: multi-attach allowed', yaml: deploy({ extra: pvc('[ReadWriteOnce, ReadWriteMany]') }) },
    { name: 'RWO pinned by nodeName', yaml: deploy({ podExtra: '      nodeName: node-1\n', extra: pvc('[ReadWriteOnce]') }) },
    { name: 'RWO pinned by a hostname nodeSelector', yaml: deploy({ podExtra: '      nodeSelector: {kubernetes.io/hostname: node-1}\n', extra: pvc('[ReadWriteOnce]') }) },
    {
      name: 'RWO pinned by required node affinity on the hostname',
      yaml: deploy({
        podExtra: '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-1]}]}]}}}\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
    },
    { name: 'StatefulSet: not a Deployment', yaml: deploy({ kind: 'StatefulSet', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'scaled to 0: no rollout', yaml: deploy({ replicas: 0, extra: pvc('[ReadWriteOncePod]') }) },
    // Replicas sharing a claim.
    { name: 'replicas 1 with Recreate on a RWOP claim: one pod, nothing shared', yaml: deploy({ replicas: 1, strategy: '{type: Recreate}', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'replicas 3 sharing a ReadWriteMany claim', yaml: deploy({ replicas: 3, strategy: '{type: Recreate}', extra: pvc('[ReadWriteMany]') }) },
    { name: 'replicas 3 sharing a claim that lists ReadWriteOnce and ReadWriteMany', yaml: deploy({ replicas: 3, extra: pvc('[ReadWriteOnce, ReadWriteMany]') }) },
    { name: 'replicas 2 on a claim whose PVC is not in the input: access mode unknown', yaml: deploy({ replicas: 2, strategy: '{type: Recreate}' }) },
    { name: 'replicas 2 pinned by nodeName on a RWO claim: every replica runs on that node', yaml: deploy({ replicas: 2, podExtra: '      nodeName: node-1\n', extra: pvc('[ReadWriteOnce]') }) },
    { name: 'replicas 2 pinned by required node affinity to one hostname on a RWO claim, Recreate', yaml: deploy({ replicas: 2, strategy: '{type: Recreate}', podExtra: NODE_AFFINITY_ONE_HOST, extra: pvc('[ReadWriteOnce]') }) },
    { name: 'StatefulSet with volumeClaimTemplates: each pod owns its claim', yaml: STS_VCT },
    { name: 'HPA minReplicas 1 with Recreate on a RWO claim: one pod at the minimum', yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOnce]') + hpa(1) }) },
  ],
  invalid: [
    {
      name: 'RWOP claim with the default strategy (25% surge resolves to 1): error at the volume',
      yaml: deploy({ extra: pvc('[ReadWriteOncePod]') }),
      findings: [{ severity: 'error', pointer: VOL0, object: 'Deployment/web', message: 'volume "data" mounts PVC "data" (ReadWriteOncePod) and maxSurge "25%" (default) resolves to 1 with replicas 1 (default)' }],
    },
    {
      name: 'RWOP is pod-exclusive: node pinning does not help',
      yaml: deploy({ podExtra: '      nodeName: node-1\n', extra: pvc('[ReadWriteOncePod]') }),
      findings: [{ severity: 'error', pointer: VOL0, message: 'every rollout deadlocks' }],
    },
    {
      name: 'RWO claim with surge: warning',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', extra: pvc('[ReadWriteOnce]') }),
      findings: [{ severity: 'warning', pointer: VOL0, message: 'PVC "data" (ReadWriteOnce) and maxSurge 1 resolves to 1 with replicas 1' }],
    },
    {
      name: 'RWO claim shared by replicas 2 (Recreate, as sentry-web): warning at the volume, with what happens and what to do',
      yaml: deploy({ replicas: 2, strategy: '{type: Recreate}', extra: pvc('[ReadWriteOnce]') }),
      findings: [
        {
          severity: 'warning',
          pointer: VOL0,
          object: 'Deployment/web',
          message: `volume "data" mounts PVC "data" (ReadWriteOnce) ${SHARED_RWO}, and the replicas all run only while every one lands on that node, which nothing in the template ensures; ${SHARED_FIX}`,
        },
      ],
    },
    {
      name: 'RWO claim shared by replicas 2 with a surge rollout (open-webui): one finding, naming the surge pod too',
      yaml: deploy({ replicas: 2, extra: pvc('[ReadWriteOnce]') }),
      findings: [{ severity: 'warning', pointer: VOL0, message: 'ensures; a rollout adds its surge pod (maxSurge "25%" (default) resolves to 1) to the same claim; run one replica' }],
    },
    {
      name: 'RWOP claim shared by replicas 2: error, only one pod runs (one finding, not a second for the surge)',
      yaml: deploy({ replicas: 2, extra: pvc('[ReadWriteOncePod]') }),
      findings: [
        {
          severity: 'error',
          pointer: VOL0,
          message: 'PVC "data" (ReadWriteOncePod) in every replica (replicas 2): only one pod can use a ReadWriteOncePod claim, so one replica runs and the others stay Pending; a rollout adds',
        },
      ],
    },
    {
      name: 'RWOP claim shared by replicas 2: node pinning does not help',
      yaml: deploy({ replicas: 2, strategy: '{type: Recreate}', podExtra: '      nodeName: node-1\n', extra: pvc('[ReadWriteOncePod]') }),
      findings: [{ severity: 'error', message: 'only one pod can use a ReadWriteOncePod claim' }],
    },
    {
      name: 'HPA minReplicas 2 with replicas unset (Recreate): the HPA counts, and the fix names it',
      yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOnce]') + hpa(2) }),
      findings: [
        {
          severity: 'warning',
          message: /in every replica \(HPA minReplicas 2 \(HorizontalPodAutoscaler\/web\)\): a ReadWriteOnce volume attaches to one node at a time.*; run one replica \(remove HorizontalPodAutoscaler\/web, or set its minReplicas and maxReplicas to 1\) with strategy.type: Recreate/,
        },
      ],
    },
    {
      name: 'a ReplicaSet with replicas 2 on a RWO claim',
      yaml: deploy({ kind: 'ReplicaSet', replicas: 2, extra: pvc('[ReadWriteOnce]') }),
      findings: [{ severity: 'warning', object: 'ReplicaSet/web', message: SHARED_RWO }],
    },
    {
      name: 'RWO shared by replicas 2 with a required hostname anti-affinity: they are kept apart, so all but one fail (error)',
      yaml: deploy({
        replicas: 2,
        strategy: '{type: Recreate}',
        podExtra: '      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
      findings: [
        {
          severity: 'error',
          message: 'required pod anti-affinity on kubernetes.io/hostname keeps the replicas on different nodes, so on a cluster of more than one node every replica but one stays in ContainerCreating on a Multi-Attach error',
        },
      ],
    },
    {
      name: 'RWO shared by replicas 2 with a DoNotSchedule hostname spread of maxSkew 1 (the default whenUnsatisfiable): error',
      yaml: deploy({
        replicas: 2,
        strategy: '{type: Recreate}',
        podExtra: '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
      findings: [{ severity: 'error', message: 'topologySpreadConstraints[0] (DoNotSchedule, maxSkew 1 on kubernetes.io/hostname) keeps the replicas on different nodes' }],
    },
    {
      name: 'RWO shared by replicas 2 with a ScheduleAnyway hostname spread: a warning that says the spread makes the failure likely',
      yaml: deploy({
        replicas: 2,
        strategy: '{type: Recreate}',
        podExtra: '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
      findings: [{ severity: 'warning', message: '(topologySpreadConstraints[0] on kubernetes.io/hostname asks the scheduler to place them on different nodes, which makes the failure likely)' }],
    },
    {
      name: 'RWO with node affinity allowing two hostnames is not pinned',
      yaml: deploy({
        podExtra: '      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node-1, node-2]}]}]}}}\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
      findings: [{ severity: 'warning', message: 'Multi-Attach' }],
    },
    {
      name: 'RWO with a zone nodeSelector is not pinned',
      yaml: deploy({ podExtra: '      nodeSelector: {topology.kubernetes.io/zone: eu-1a}\n', extra: pvc('[ReadWriteOnce]') }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'HPA minReplicas 4 re-resolves maxSurge "10%": ceil(0.4) = 1',
      yaml: deploy({
        replicas: 0,
        strategy: '{rollingUpdate: {maxSurge: "10%", maxUnavailable: 0}}',
        extra: pvc('[ReadWriteOnce]') + `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 4
  maxReplicas: 8
`,
      }),
      findings: [{ severity: 'warning', message: /in every replica \(HPA minReplicas 4 \(HorizontalPodAutoscaler\/web\)\): a ReadWriteOnce volume .*a rollout adds its surge pod \(maxSurge "10%" resolves to 1\)/ }],
    },
    {
      name: 'two claims: RWOP error and RWO warning, each at its volume',
      yaml: deploy({
        volumes: '[{name: data, persistentVolumeClaim: {claimName: data}}, {name: cache, persistentVolumeClaim: {claimName: cache}}]',
        extra: pvc('[ReadWriteOncePod]') + pvc('[ReadWriteOnce]', 'cache'),
      }),
      findings: [
        { severity: 'error', pointer: VOL0, message: 'volume "data"' },
        { severity: 'warning', pointer: '/spec/template/spec/volumes/1', message: 'volume "cache" mounts PVC "cache"' },
      ],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: deploy({ annotations: '"kubegrace.dev/ignore": "surge-volume-deadlock"', extra: pvc('[ReadWriteOncePod]') }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});
