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
      yaml: deploy({ replicas: 2, strategy: '{rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', extra: pvc('[ReadWriteOnce]') }),
      findings: [{ severity: 'warning', pointer: VOL0, message: 'PVC "data" (ReadWriteOnce) and maxSurge 1 resolves to 1 with replicas 2' }],
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
      findings: [{ severity: 'warning', message: 'maxSurge "10%" resolves to 1 with HPA minReplicas 4 (HorizontalPodAutoscaler/web)' }],
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
