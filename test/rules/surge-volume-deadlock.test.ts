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

const STS_SHARED = STS_VCT.replace('volumeMounts: [{name: data, mountPath: /data}]}]', 'volumeMounts: [{name: data, mountPath: /data}, {name: shared, mountPath: /shared}]}]\n      volumes: [{name: shared, persistentVolumeClaim: {claimName: shared}}, {name: data, persistentVolumeClaim: {claimName: data}}]');

ruleTester(surgeVolumeDeadlock, {
  valid: [
    // A template volume named like a volumeClaimTemplate is each pod's own claim (the controller replaces it).
    { name: 'StatefulSet: a template volume named like its volumeClaimTemplate is per pod', yaml: STS_SHARED.replace(', {name: shared, persistentVolumeClaim: {claimName: shared}}', '').replace(', {name: shared, mountPath: /shared}', '') + pvc('[ReadWriteOnce]') },
    { name: 'RWO claim with strategy Recreate', yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOnce]') }) },
    { name: 'RWOP claim with strategy Recreate', yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'RWO claim with maxSurge 0, maxUnavailable 1: surge 0', yaml: deploy({ strategy: '{rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', extra: pvc('[ReadWriteOnce]') }) },
    // Review round 30 (pihole's chart): the controller scales the old ReplicaSet down in the sync that creates the surge pod.
    { name: 'RWO claim, replicas 1 with maxSurge 1 and maxUnavailable 1: the old pod goes at once, nothing stalls', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}', extra: pvc('[ReadWriteOnce]') }) },
    { name: 'RWOP claim, replicas 1 with maxSurge 1 and maxUnavailable "100%": the old pod goes at once', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: "100%"}}', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'maxSurge "0%" resolves to 0 with replicas 1', yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: "0%", maxUnavailable: 1}}', extra: pvc('[ReadWriteOncePod]') }) },
    { name: 'PVC not in the linted set: access mode unknown, skipped', yaml: deploy() },
    // (The Deployment names its namespace: one that names none, beside a claim it uses that the file has only in
    // another namespace, is taken to be there, as a chart installed with -n puts it; test/cli/namespace-e2e.test.ts.)
    { name: 'PVC of the same name in another namespace does not count', yaml: deploy({ extra: pvc('[ReadWriteOncePod]', 'data', 'other') }).replace('metadata: {name: web}', 'metadata: {name: web, namespace: default}') },
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
  ],
  invalid: [
    {
      name: 'HPA minReplicas 1, maxReplicas 5, on a RWO claim: the replicas a scale-out adds share it (a warning)',
      yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOnce]') + hpa(1) }),
      findings: [{ severity: 'warning', pointer: VOL0, message: /in every replica \(HPA minReplicas 1 \(HorizontalPodAutoscaler\/web\), scaling out to maxReplicas 5\): a ReadWriteOnce volume attaches to one node at a time/ }],
    },
    {
      name: 'HPA minReplicas 1, maxReplicas 5, on a RWOP claim: still a warning (it happens when it scales out)',
      yaml: deploy({ strategy: '{type: Recreate}', extra: pvc('[ReadWriteOncePod]') + hpa(1) }),
      findings: [{ severity: 'warning', message: 'only one pod can use a ReadWriteOncePod claim' }],
    },
    {
      name: 'StatefulSet replicas sharing a template claim (not a volumeClaimTemplate): reported, the per-pod one not',
      yaml: STS_SHARED + pvc('[ReadWriteOnce]', 'shared') + pvc('[ReadWriteOnce]'),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/volumes/0', message: /volume "shared" mounts PVC "shared" \(ReadWriteOnce\) in every replica \(replicas 3\).*or move the claim into volumeClaimTemplates if each replica can own its data$/ }],
    },
    {
      name: 'RWOP claim with the default strategy (25% surge resolves to 1): error at the volume',
      yaml: deploy({ extra: pvc('[ReadWriteOncePod]') }),
      findings: [{ severity: 'error', pointer: VOL0, object: 'Deployment/web', message: 'volume "data" mounts PVC "data" (ReadWriteOncePod) and maxSurge "25%" (default) resolves to 1 with replicas 1 (default)' }],
    },
    {
      // Review round 31: strategy.type "" is RollingUpdate (SetDefaults_Deployment), not Recreate.
      name: 'strategy.type "" on a RWOP claim: the default RollingUpdate, so the surge is reported',
      yaml: deploy({ strategy: '{type: ""}', extra: pvc('[ReadWriteOncePod]') }),
      findings: [{ severity: 'error', pointer: VOL0, message: 'maxSurge "25%" (default) resolves to 1 with replicas 1 (default)' }],
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
      // Review round 34, report p52 item 2: the deadline does not end the stall, it only marks the rollout failed.
      name: 'RWO claim with surge: the message says what progressDeadlineSeconds does (marks the rollout failed, rolls nothing back)',
      yaml: deploy({ replicas: 1, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', extra: pvc('[ReadWriteOnce]') }),
      findings: [{ severity: 'warning', pointer: VOL0, message: 'stays Pending on Multi-Attach while the old pod keeps the volume, and the rollout stalls: progressDeadlineSeconds only marks it failed (ProgressDeadlineExceeded), the Pending pod stays and nothing rolls back; set strategy.type: Recreate' }],
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
      // Review round 15 (the gitea chart: one replica, hard hostname anti-affinity, a ReadWriteOnce claim).
      name: 'RWO, one replica, surge with maxUnavailable 0 and a required hostname anti-affinity: the surge pod never lands beside the volume (error)',
      yaml: deploy({
        replicas: 1,
        podExtra: '      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
      findings: [
        {
          severity: 'error',
          pointer: VOL0,
          message:
            'required pod anti-affinity on kubernetes.io/hostname keeps the surge pod off the node of the old pod, which holds the volume, and maxUnavailable "25%" (default) resolves to 0, so no old pod goes first: on a cluster of more than one node the surge pod stays in ContainerCreating on a Multi-Attach error, and every rollout deadlocks: progressDeadlineSeconds only marks it failed (ProgressDeadlineExceeded), the surge pod stays and nothing rolls back',
        },
      ],
    },
    {
      name: 'the same with maxUnavailable 1 on 1 replica: the old pod goes in the sync that creates the surge pod and frees the volume: nothing (review round 30)',
      yaml: deploy({
        replicas: 1,
        strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}',
        podExtra: '      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n',
        extra: pvc('[ReadWriteOnce]'),
      }),
      findings: [],
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

// Workloads sharing one exclusive claim.
interface WlOpts {
  kind?: string;
  ns?: string;
  replicas?: number;
  strategy?: string;
  labels?: string;
  /** Extra pod-spec lines (indent given by the caller's template: 6 spaces, 10 for a CronJob). */
  podExtra?: string;
  claim?: string;
}

function wl(name: string, o: WlOpts = {}): string {
  const kind = o.kind ?? 'Deployment';
  const labels = o.labels ?? `{app: ${name}}`;
  const meta = `metadata: {name: ${name}${o.ns ? `, namespace: ${o.ns}` : ''}}`;
  const pod = (ind: string) =>
    `${o.podExtra ? o.podExtra.replace(/^ {6}/gm, ind) : ''}${ind}containers: [{name: app, image: app:1, volumeMounts: [{name: data, mountPath: /data}]}]\n${ind}volumes: [{name: data, persistentVolumeClaim: {claimName: ${o.claim ?? 'data'}}}]\n`;
  if (kind === 'Pod') return `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}${o.ns ? `, namespace: ${o.ns}` : ''}, labels: ${labels}}\nspec:\n${pod('  ')}`;
  if (kind === 'CronJob')
    return `---\napiVersion: batch/v1\nkind: CronJob\n${meta}\nspec:\n  schedule: "0 0 * * 0"\n  jobTemplate:\n    spec:\n      template:\n        metadata: {labels: ${labels}}\n        spec:\n          restartPolicy: OnFailure\n${pod('          ')}`;
  if (kind === 'Job') return `---\napiVersion: batch/v1\nkind: Job\n${meta}\nspec:\n  template:\n    metadata: {labels: ${labels}}\n    spec:\n      restartPolicy: Never\n${pod('      ')}`;
  return `---
apiVersion: apps/v1
kind: ${kind}
${meta}
spec:
${kind === 'DaemonSet' ? '' : `  replicas: ${o.replicas ?? 1}\n`}${kind === 'Deployment' ? `  strategy: ${o.strategy ?? '{type: Recreate}'}\n` : ''}${kind === 'StatefulSet' ? `  serviceName: ${name}\n` : ''}  selector: {matchLabels: ${labels}}
  template:
    metadata: {labels: ${labels}}
    spec:
${pod('      ')}`;
}

const affinityTo = (labels: string, key = 'kubernetes.io/hostname') => `      affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: ${key}, labelSelector: {matchLabels: ${labels}}}]}}\n`;
const antiAffinityTo = (labels: string) => `      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: ${labels}}}]}}\n`;

// Cut from mastodon/chart 6.9.3: templates/deployment-sidekiq.yaml and deployment-web.yaml both mount the
// ReadWriteOnce mastodon-system claim; neither sets an affinity by default (Recreate on both isolates the case).
const RAILS_AFFINITY = affinityTo('{part-of: rails}');
const RAILS_SIDEKIQ = wl('sidekiq', { labels: '{app: sidekiq, part-of: rails}', podExtra: RAILS_AFFINITY });
const RAILS_WEB = (o: WlOpts = {}) => wl('web', { labels: '{app: web, part-of: rails}', podExtra: RAILS_AFFINITY, ...o });

const MASTODON = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: mastodon-system, namespace: mastodon}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 100Gi}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: mastodon-sidekiq-all-queues, namespace: mastodon}
spec:
  replicas: 1
  strategy: {type: Recreate}
  selector: {matchLabels: {app.kubernetes.io/component: sidekiq-all-queues}}
  template:
    metadata: {labels: {app.kubernetes.io/component: sidekiq-all-queues, app.kubernetes.io/part-of: rails}}
    spec:
      containers:
      - name: mastodon
        image: ghcr.io/mastodon/mastodon:v4.6.3
        command: [bundle, exec, sidekiq]
        volumeMounts: [{name: system, mountPath: /opt/mastodon/public/system}]
      volumes: [{name: system, persistentVolumeClaim: {claimName: mastodon-system}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: mastodon-web, namespace: mastodon}
spec:
  replicas: 1
  strategy: {type: Recreate}   # chart default is RollingUpdate maxSurge 10%; Recreate here to isolate the cross-workload case
  selector: {matchLabels: {app.kubernetes.io/component: web}}
  template:
    metadata: {labels: {app.kubernetes.io/component: web, app.kubernetes.io/part-of: rails}}
    spec:
      containers:
      - name: mastodon-web
        image: ghcr.io/mastodon/mastodon:v4.6.3
        volumeMounts: [{name: system, mountPath: /opt/mastodon/public/system}]
      volumes: [{name: system, persistentVolumeClaim: {claimName: mastodon-system}}]
`;
const CROSS_RWO =
  'a ReadWriteOnce volume attaches to one node at a time (read-only mounts included), so a pod scheduled on a node other than the one that has it attached stays in ContainerCreating on a Multi-Attach error, and they all run only while every pod lands on that node, which nothing in the templates ensures';
const CROSS_FIX =
  'put them on one node with a required podAffinity on kubernetes.io/hostname in each template selecting a label all of their pods carry (such as app.kubernetes.io/part-of), use ReadWriteMany storage, or let one workload own the data and serve it to the others';

ruleTester(surgeVolumeDeadlock, {
  valid: [
    {
      name: 'web and sidekiq each with a required hostname podAffinity on a label both carry (the chart values\' "same node"), and the CronJob\'s term on it',
      yaml: pvc('[ReadWriteOnce]') + RAILS_SIDEKIQ + RAILS_WEB() + wl('media', { kind: 'CronJob', podExtra: RAILS_AFFINITY }),
    },
    {
      name: 'tied by podAffinity, a web RollingUpdate with a surge: its surge pod lands beside the volume too',
      yaml: pvc('[ReadWriteOnce]') + RAILS_SIDEKIQ + RAILS_WEB({ strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }),
    },
    {
      name: 'tied by podAffinity, web with replicas 2: every replica lands beside sidekiq',
      yaml: pvc('[ReadWriteOnce]') + RAILS_SIDEKIQ + RAILS_WEB({ replicas: 2 }),
    },
    {
      name: 'one pinned, the other tied to it by podAffinity',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('b', { podExtra: affinityTo('{app: a}') }),
    },
    { name: 'both pinned to the same node by nodeName', yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('b', { podExtra: '      nodeName: node-1\n' }) },
    {
      name: 'pinned to the same node by nodeName and by a hostname nodeSelector',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('b', { podExtra: '      nodeSelector: {kubernetes.io/hostname: node-1}\n' }),
    },
    { name: 'ReadWriteMany claim shared by two workloads', yaml: pvc('[ReadWriteMany]') + wl('a') + wl('b') },
    { name: 'ReadOnlyMany claim shared by two workloads', yaml: pvc('[ReadOnlyMany]') + wl('a') + wl('b') },
    { name: 'same claim name in different namespaces: two claims', yaml: pvc('[ReadWriteOnce]', 'data', 'one') + pvc('[ReadWriteOnce]', 'data', 'two') + wl('a', { ns: 'one' }) + wl('b', { ns: 'two' }) },
    { name: 'PVC not in the input: access mode unknown', yaml: wl('a') + wl('b') },
    { name: 'StatefulSets with volumeClaimTemplates named alike: per-pod claims', yaml: STS_VCT + '---\n' + STS_VCT.replace('name: db}', 'name: db2}').replace(/app: db/g, 'app: db2') },
    { name: 'one of them scaled to 0', yaml: pvc('[ReadWriteOncePod]') + wl('a') + wl('b', { replicas: 0 }) },
    { name: 'a suspended CronJob runs no pod', yaml: pvc('[ReadWriteOncePod]') + wl('a') + wl('media', { kind: 'CronJob' }).replace('  schedule:', '  suspend: true\n  schedule:') },
    { name: 'one workload alone on a RWOP claim', yaml: pvc('[ReadWriteOncePod]') + wl('a') },
    {
      // nexus-repository-manager's test-check-logs Pod reads the data volume: it runs only under
      // `helm test` (and can hang only that), never beside a rollout or a drain of the Deployment.
      name: 'a helm test hook Pod mounting the workload\'s RWO claim',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('a-test', { kind: 'Pod' }).replace('metadata: {name: a-test,', 'metadata: {annotations: {helm.sh/hook: test, helm.sh/hook-delete-policy: hook-succeeded}, name: a-test,'),
    },
  ],
  invalid: [
    {
      // A pre-upgrade hook Job runs while the release's pods still hold the volume.
      name: 'a pre-upgrade hook Job mounting the RWO claim still counts',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('migrate', { kind: 'Job' }).replace('metadata: {name: migrate}', 'metadata: {name: migrate, annotations: {helm.sh/hook: pre-upgrade}}'),
      findings: [{ severity: 'warning', object: 'Deployment/a', message: 'Job/migrate' }],
    },
    {
      name: 'the mastodon repro: web and sidekiq Deployments (Recreate, one replica each) on one RWO claim: one warning at the first, naming the other',
      yaml: MASTODON,
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/mastodon-sidekiq-all-queues',
          pointer: VOL0,
          message: `volume "system" mounts PVC "mastodon-system" (ReadWriteOnce), and the pods of Deployment/mastodon-web mount it too: ${CROSS_RWO}; ${CROSS_FIX}`,
        },
      ],
    },
    {
      name: 'RWOP claim shared by two one-replica Deployments: error, node pinning does not help',
      yaml: pvc('[ReadWriteOncePod]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('b', { podExtra: '      nodeName: node-1\n' }),
      findings: [
        {
          severity: 'error',
          object: 'Deployment/a',
          message:
            'volume "data" mounts PVC "data" (ReadWriteOncePod), and the pods of Deployment/b mount it too: only one pod can use a ReadWriteOncePod claim, so while one of them runs the others stay Pending; use ReadWriteMany storage, or ReadWriteOnce with a required podAffinity',
        },
      ],
    },
    {
      name: 'RWOP: a podAffinity tie does not help',
      yaml: pvc('[ReadWriteOncePod]') + wl('a') + wl('b', { podExtra: affinityTo('{app: a}') }),
      findings: [{ severity: 'error', object: 'Deployment/a', message: 'only one pod can use a ReadWriteOncePod claim' }],
    },
    {
      name: 'web tied to sidekiq, sidekiq tied to nothing: a new sidekiq pod starts anywhere while web holds the volume',
      yaml: pvc('[ReadWriteOnce]') + wl('sidekiq') + wl('web', { strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', podExtra: affinityTo('{app: sidekiq}') }),
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/sidekiq',
          message:
            "and they all run only while every pod lands on that node, which the template of Deployment/sidekiq does not ensure (no required podAffinity on kubernetes.io/hostname towards the others' pods, so a replacement pod starts on any node)",
        },
        // web's own surge pod follows sidekiq's pod: no surge finding.
      ],
    },
    {
      name: 'web (replicas 2) tied to sidekiq, sidekiq untied: web\'s replicas land beside sidekiq, so they are not folded in',
      yaml: pvc('[ReadWriteOnce]') + wl('sidekiq') + wl('web', { replicas: 2, podExtra: affinityTo('{app: sidekiq}') }),
      findings: [{ severity: 'warning', object: 'Deployment/sidekiq', message: 'and the pods of Deployment/web mount it too: a ReadWriteOnce volume' }],
    },
    {
      name: 'web and sidekiq selecting only each other: tied, but neither can start first (error)',
      yaml: pvc('[ReadWriteOnce]') + wl('sidekiq', { podExtra: affinityTo('{app: web}') }) + wl('web', { podExtra: affinityTo('{app: sidekiq}') }),
      findings: [
        {
          severity: 'error',
          object: 'Deployment/sidekiq',
          message:
            "and the pods of Deployment/web mount it too: the required podAffinity terms on kubernetes.io/hostname keep their pods on one node, but each selects only the others' pods, so when none of them runs (the first install, or after all were evicted) none can be scheduled: the scheduler lets a pod start alone only when its own labels match all its terms; make the terms select a label all of them carry",
        },
      ],
    },
    {
      name: 'a zone podAffinity does not put them on one node',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('b', { podExtra: affinityTo('{app: a}', 'topology.kubernetes.io/zone') }),
      findings: [{ severity: 'warning', message: CROSS_RWO }],
    },
    {
      name: 'a CronJob whose term selects two workloads not tied to each other (mastodon default): named, still a warning',
      yaml: pvc('[ReadWriteOnce]') + wl('sidekiq', { labels: '{app: sidekiq, part-of: rails}' }) + wl('web', { labels: '{app: web, part-of: rails}' }) + wl('media', { kind: 'CronJob', podExtra: affinityTo('{part-of: rails}') }),
      findings: [{ severity: 'warning', object: 'Deployment/sidekiq', message: 'and the pods of Deployment/web and CronJob/media mount it too: a ReadWriteOnce volume' }],
    },
    {
      name: 'a podAffinity towards a Deployment of 3 unpinned replicas elsewhere does not tie them',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: affinityTo('{app: cache}') }) + wl('b', { podExtra: affinityTo('{app: cache}') }) + wl('cache', { replicas: 3, claim: 'other' }),
      findings: [{ severity: 'warning', object: 'Deployment/a', message: 'and the pods of Deployment/b mount it too' }],
    },
    {
      name: 'a podAffinity term with a namespaceSelector is not followed (the pods it selects are not all in the input)',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('b', { podExtra: '      affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, namespaceSelector: {}, labelSelector: {matchLabels: {app: a}}}]}}\n' }),
      findings: [{ severity: 'warning', message: CROSS_RWO }],
    },
    {
      name: 'a Job pinned to the node the others are pinned to is beside them; a third workload unpinned is not',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('job', { kind: 'Job', podExtra: '      nodeName: node-1\n' }) + wl('c'),
      findings: [{ severity: 'warning', object: 'Deployment/a', message: 'and the pods of Job/job and Deployment/c mount it too' }],
    },
    {
      name: 'pinned to different nodes: error',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('b', { podExtra: '      nodeSelector: {kubernetes.io/hostname: node-2}\n' }),
      findings: [{ severity: 'error', message: 'and the pinning of Deployment/a to node node-1 and of Deployment/b to node node-2 keeps them on different nodes' }],
    },
    {
      name: 'one pinned, the other not: warning',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { podExtra: '      nodeName: node-1\n' }) + wl('b'),
      findings: [{ severity: 'warning', message: CROSS_RWO }],
    },
    {
      name: 'a required hostname anti-affinity of one against the other: error',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('b', { podExtra: antiAffinityTo('{app: a}') }),
      findings: [{ severity: 'error', message: 'and the required pod anti-affinity of Deployment/b on kubernetes.io/hostname against the pods of Deployment/a keeps them on different nodes' }],
    },
    {
      // Review round 15 (matomo: the Deployment's anti-affinity selects both CronJobs; only one was named).
      name: 'an anti-affinity against the pods of two other users names both',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { labels: '{app: a, tier: batch}' }) + wl('c', { labels: '{app: c, tier: batch}' }) + wl('b', { podExtra: "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {tier: batch}}}]}}\n" }),
      findings: [{ severity: 'error', message: 'the required pod anti-affinity of Deployment/b on kubernetes.io/hostname against the pods of Deployment/a and Deployment/c keeps them on different nodes' }],
    },
    {
      name: 'a bare Pod, a Job and a DaemonSet with no node selection on one RWO claim: error (the DaemonSet runs everywhere)',
      yaml: pvc('[ReadWriteOnce]') + wl('tool', { kind: 'Pod' }) + wl('backup', { kind: 'Job' }) + wl('agent', { kind: 'DaemonSet' }),
      findings: [{ severity: 'error', object: 'Pod/tool', pointer: '/spec/volumes/0', message: 'and the pods of Job/backup and DaemonSet/agent mount it too: a ReadWriteOnce volume attaches to one node at a time (read-only mounts included), and DaemonSet/agent, which runs a pod on every node, keeps them' }],
    },
    {
      name: 'a StatefulSet mounting the claim as a template volume and a Deployment',
      yaml: pvc('[ReadWriteOnce]') + wl('db', { kind: 'StatefulSet' }) + wl('web'),
      findings: [{ severity: 'warning', object: 'StatefulSet/db', message: 'and the pods of Deployment/web mount it too' }],
    },
    {
      name: 'the second workload runs 2 replicas on the claim: one finding, its replicas and their fix folded in',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('b', { replicas: 2, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }),
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/a',
          message: `and the pods of Deployment/b (every replica: replicas 2) mount it too: ${CROSS_RWO}; a rollout of Deployment/b adds its surge pod (maxSurge 1 resolves to 1) to the same claim; ${CROSS_FIX}; for the replicas of Deployment/b: ${SHARED_FIX}`,
        },
      ],
    },
    {
      name: 'the first workload runs 2 replicas kept apart by a required anti-affinity: error, said once',
      yaml: pvc('[ReadWriteOnce]') + wl('a', { replicas: 2, podExtra: antiAffinityTo('{app: a}') }) + wl('b'),
      findings: [
        {
          severity: 'error',
          object: 'Deployment/a',
          message: 'volume "data" mounts PVC "data" (ReadWriteOnce) in every replica (replicas 2), and the pods of Deployment/b mount it too: a ReadWriteOnce volume',
        },
      ],
    },
    {
      name: 'a surge Deployment in an untied pair keeps its own surge finding',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('b', { strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }),
      findings: [
        { severity: 'warning', object: 'Deployment/a', message: 'and the pods of Deployment/b mount it too' },
        { severity: 'warning', object: 'Deployment/b', message: 'and maxSurge 1 resolves to 1 with replicas 1: a surge pod scheduled on another node' },
      ],
    },
    {
      name: 'read-only mounts and persistentVolumeClaim.readOnly do not change ReadWriteOnce',
      yaml: pvc('[ReadWriteOnce]') + wl('a') + wl('b').replace('mountPath: /data}', 'mountPath: /data, readOnly: true}').replace('claimName: data}', 'claimName: data, readOnly: true}'),
      findings: [{ severity: 'warning', message: CROSS_RWO }],
    },
  ],
});
