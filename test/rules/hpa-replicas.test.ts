import { hpaReplicas } from '../../lib/rules/hpa-replicas';
import { ruleTester, runRule } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  replicas?: number;
  min?: number | null;
  service?: boolean;
  annotations?: string;
  hpaAnnotations?: string;
  target?: string;
}

function set(o: Opts = {}): string {
  const kind = o.kind ?? 'Deployment';
  const svc = o.service
    ? `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`
    : '';
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: web}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: [{name: app, image: web:1, ports: [{containerPort: 8080}]}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
${o.hpaAnnotations ? `  annotations: {${o.hpaAnnotations}}\n` : ''}spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: ${kind}, name: ${o.target ?? 'web'}}
${o.min === null ? '' : `  minReplicas: ${o.min ?? 2}\n`}  maxReplicas: 10
${svc}`;
}

/** The workload of `set` mounting PVC "data", and that PVC with the given access modes. */
const withClaim = (yaml: string, modes: string) =>
  yaml.replace('ports: [{containerPort: 8080}]}]\n', 'ports: [{containerPort: 8080}]}]\n      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n') +
  `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: ${modes}, resources: {requests: {storage: 1Gi}}}
`;

ruleTester(hpaReplicas, {
  valid: [
    { name: 'replicas unset, minReplicas 2, served', yaml: set({ service: true }) },
    {
      name: 'minReplicas 1 on an unserved workload (another Service in the namespace, none selects it)',
      yaml: `${set({ min: 1 })}---
apiVersion: v1
kind: Service
metadata: {name: other}
spec: {selector: {app: other}, ports: [{port: 80}]}
`,
    },
    {
      name: 'minReplicas 1, served status unknown and only a metrics port declared: not assumed served',
      yaml: set({ min: 1 }).replace('ports: [{containerPort: 8080}]', 'ports: [{name: metrics, containerPort: 9090}]'),
    },
    // A second replica would share the exclusive claim (surge-volume-deadlock): minReplicas 2 is not advised.
    { name: 'minReplicas 1 on a served Deployment mounting a ReadWriteOnce claim', yaml: withClaim(set({ min: 1, service: true }), '[ReadWriteOnce]') },
    { name: 'minReplicas 1 on a served Deployment mounting a ReadWriteOncePod claim', yaml: withClaim(set({ min: 1, service: true }), '[ReadWriteOncePod]') },
    { name: 'minReplicas 1, Service present but served hint false', yaml: set({ min: 1, service: true, annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'HPA targets a workload not in the set', yaml: set({ replicas: 3, min: 1, service: true, target: 'other' }) },
    {
      name: 'no HPA: replicas is fine',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: web:1}]
`,
    },
    // Review report p28 item 4: served on 1.24 (v2beta1) and 1.25 (v2beta2).
    { name: 'an autoscaling/v2beta1 HPA on 1.24, where it is served', yaml: set({ service: true }).replace('autoscaling/v2', 'autoscaling/v2beta1'), kubeVersion: '1.24' },
    { name: 'an autoscaling/v2beta2 HPA on 1.25, where it is served', yaml: set({ service: true }).replace('autoscaling/v2', 'autoscaling/v2beta2'), kubeVersion: '1.25' },
    {
      // helm template answers .Capabilities.APIVersions.Has "autoscaling/v2beta1" true and Has
      // "autoscaling/v2/HorizontalPodAutoscaler" false: the chart may install v2 on the cluster.
      name: 'an autoscaling/v2beta1 HPA of a Helm render on 1.31: the chart may pick v2 at install',
      yaml: set({ service: true }).replace('autoscaling/v2', 'autoscaling/v2beta1').replace('  name: web\nspec:\n  scaleTargetRef', '  name: web\n  labels: {helm.sh/chart: web-1.0.0}\nspec:\n  scaleTargetRef'),
      kubeVersion: '1.31',
    },
  ],
  invalid: [
    {
      // Review report p28 item 4: the Pomerium chart's proxy HPA (autoscaling/v2beta1, metrics
      // targetAverageUtilization); the API server rejects it, so it never exists and nothing else counts it.
      name: 'an autoscaling/v2beta1 HPA on 1.31: not served from 1.25 (error; minReplicas 1 is not reported)',
      yaml: set({ min: 1, service: true }).replace('autoscaling/v2', 'autoscaling/v2beta1').replace('  maxReplicas: 10\n', '  maxReplicas: 10\n  metrics: [{type: Resource, resource: {name: cpu, targetAverageUtilization: 50}}]\n'),
      kubeVersion: '1.31',
      findings: [
        {
          severity: 'error',
          pointer: '/apiVersion',
          object: 'HorizontalPodAutoscaler/web',
          message: 'HorizontalPodAutoscaler/web is autoscaling/v2beta1, which the API server no longer serves from 1.25 (on 1.31 applying it fails): Deployment/web is not autoscaled and runs 1 replica (no spec.replicas); use apiVersion: autoscaling/v2 (its metrics write targetAverageUtilization: N as target: {type: Utilization, averageUtilization: N}',
        },
      ],
    },
    {
      name: 'an autoscaling/v2beta2 HPA on 1.26 over spec.replicas 3: the replicas stay, and no warning about them',
      yaml: set({ replicas: 3, service: true }).replace('autoscaling/v2', 'autoscaling/v2beta2'),
      kubeVersion: '1.26',
      findings: [{ severity: 'error', object: 'HorizontalPodAutoscaler/web', message: /^HorizontalPodAutoscaler\/web is autoscaling\/v2beta2, which the API server no longer serves from 1\.26 \(on 1\.26 applying it fails\): Deployment\/web is not autoscaled and runs its spec\.replicas 3; use apiVersion: autoscaling\/v2$/ }],
    },
    {
      // Review round 17 (bitnami/charts#30834: `no matches for kind "Statefulset"`).
      name: 'scaleTargetRef.kind in mixed case: the HPA controller never finds the workload',
      yaml: set({ kind: 'StatefulSet' }).replace('kind: StatefulSet, name: web}', 'kind: Statefulset, name: web}'),
      findings: [{ severity: 'warning', object: 'HorizontalPodAutoscaler/web', pointer: '/spec/scaleTargetRef/kind', message: 'scaleTargetRef.kind "Statefulset" names no workload: the HPA controller resolves a kind only as written or all in lower case, so it cannot find StatefulSet/web (FailedGetScale) and never scales it; write kind: StatefulSet' }],
    },
    {
      // bitnami/concourse: kind: statefulset, name: ci-concourse, for StatefulSet/ci-concourse-worker. The
      // lower-case kind resolves (review report p34 item B); the name does not.
      name: 'an all-lower-case kind and a name no workload has: the name is said, the likely workload named',
      yaml: set({ kind: 'StatefulSet' }).replace('kind: StatefulSet, name: web}', 'kind: statefulset, name: we}'),
      findings: [{ severity: 'warning', pointer: '/spec/scaleTargetRef/name', message: 'scaleTargetRef.name "we" names no workload in the set, which holds StatefulSet/web: unless StatefulSet/we is created elsewhere, the HPA controller cannot find its target (FailedGetScale) and never scales it; did you mean name: web?' }],
    },
    {
      name: 'a mixed-case kind and a name no workload has: both said, the likely workload named',
      yaml: set({ kind: 'StatefulSet' }).replace('kind: StatefulSet, name: web}', 'kind: Statefulset, name: we}'),
      findings: [{ severity: 'warning', pointer: '/spec/scaleTargetRef/kind', message: 'scaleTargetRef.kind "Statefulset" is no kind: the HPA controller resolves a kind only as written or all in lower case, so it cannot resolve its target (FailedGetScale) and never scales it; write kind: StatefulSet; no workload in the set is named we either (did you mean StatefulSet/web?), so check scaleTargetRef.name too' }],
    },
    {
      name: 'a miscased kind linted alone: the kind is said, nothing about the name',
      yaml: set({ kind: 'StatefulSet' }).replace('kind: StatefulSet, name: web}', 'kind: DeployMent, name: web}').replace(/^apiVersion: apps\/v1\nkind: StatefulSet[\s\S]*?---\n/m, ''),
      findings: [{ severity: 'warning', message: /write kind: Deployment$/ }],
    },
    {
      name: 'a mixed-case kind beside a workload of that name but another kind: the name is not doubted',
      yaml: set({ kind: 'StatefulSet' }).replace('kind: StatefulSet, name: web}', 'kind: DEPLOYMENT, name: web}'),
      findings: [{ severity: 'warning', message: /write kind: Deployment$/ }],
    },
    {
      // Review report p34 item B: Grafana Alloy's chart writes kind: {{ .Values.controller.type }}
      // (deployment / statefulset). client-go's discovery RESTMapper registers each kind also in lower
      // case, so the HPA targets the workload and its spec.replicas conflicts with it.
      name: 'an all-lower-case kind targets the workload (spec.replicas set: warning)',
      yaml: set({ kind: 'StatefulSet', replicas: 3 }).replace('kind: StatefulSet, name: web}', 'kind: statefulset, name: web}'),
      findings: [{ severity: 'warning', pointer: '/spec/replicas', object: 'StatefulSet/web', message: /^spec\.replicas 3 is set although HorizontalPodAutoscaler\/web manages/ }],
    },
    {
      name: 'spec.replicas set on an HPA-managed Deployment: warning',
      yaml: set({ replicas: 3 }),
      findings: [{ severity: 'warning', pointer: '/spec/replicas', object: 'Deployment/web', message: 'spec.replicas 3 is set although HorizontalPodAutoscaler/web manages its replica count' }],
    },
    {
      name: 'StatefulSet too',
      yaml: set({ kind: 'StatefulSet', replicas: 2 }),
      findings: [{ severity: 'warning', object: 'StatefulSet/web', message: 'remove spec.replicas' }],
    },
    {
      name: 'minReplicas 1, served status unknown (no Service in the set) and port 8080 declared: assumed served, and said so',
      yaml: set({ min: 1 }),
      findings: [{ severity: 'info', pointer: '/spec/minReplicas', message: /minReplicas 1 for the Deployment\/web: when it scales down to one pod.*\(served status unknown: no Service in the input selects it, but it declares port 8080, so it is assumed served; annotate kubegrace.dev\/served: "false" if nothing routes to it\)$/ }],
    },
    {
      name: 'minReplicas 1 on a served Deployment mounting a ReadWriteMany claim: replicas can share it, so still advised',
      yaml: withClaim(set({ min: 1, service: true }), '[ReadWriteMany]'),
      findings: [{ severity: 'info', message: 'set minReplicas: 2' }],
    },
    {
      name: 'minReplicas 1 on a served Deployment mounting a ReadWriteOnce claim pinned to one node: replicas share it there, so still advised',
      yaml: withClaim(set({ min: 1, service: true }), '[ReadWriteOnce]').replace('    spec:\n', '    spec:\n      nodeSelector: {kubernetes.io/hostname: node-1}\n'),
      findings: [{ severity: 'info', message: 'set minReplicas: 2' }],
    },
    {
      name: 'minReplicas 1 on a served workload: info at minReplicas',
      yaml: set({ min: 1, service: true }),
      findings: [{ severity: 'info', pointer: '/spec/minReplicas', object: 'HorizontalPodAutoscaler/web', message: 'minReplicas 1 for the served Deployment/web' }],
    },
    {
      name: 'minReplicas defaulted to 1: info at /spec',
      yaml: set({ min: null, service: true }),
      findings: [{ severity: 'info', pointer: '/spec', message: 'minReplicas 1 (default)' }],
    },
    {
      name: 'served by hint only',
      yaml: set({ min: 1, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'info', message: 'set minReplicas: 2' }],
    },
    {
      name: 'both conditions',
      yaml: set({ replicas: 1, min: 1, service: true }),
      findings: [
        { severity: 'warning', object: 'Deployment/web' },
        { severity: 'info', object: 'HorizontalPodAutoscaler/web' },
      ],
    },
    {
      name: 'suppressed on each object',
      yaml: set({ replicas: 2, min: 1, service: true, annotations: '"kubegrace.dev/ignore": "hpa-replicas"', hpaAnnotations: '"kubegrace.dev/ignore": "all"' }),
      findings: [
        { severity: 'warning', suppressed: true },
        { severity: 'info', suppressed: true },
      ],
    },
  ],
});

// Review round 23 (kestra's worker groups: replicas 1 under an HPA with minReplicas 2).
test('hpa-replicas: spec.replicas below the HPA\'s minReplicas: every apply terminates pods', () => {
  const [f] = runRule(hpaReplicas, set({ replicas: 1, min: 2 }));
  expect(f.message).toContain('resets the workload to 1 pod, below the HPA\'s minReplicas 2, so every apply terminates pods the HPA then has to start again');
  const [g] = runRule(hpaReplicas, set({ replicas: 3, min: 2 }));
  expect(g.message).toContain('resets the workload to 3 pods until the HPA scales it again');
});
