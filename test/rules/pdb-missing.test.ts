import { pdbMissing } from '../../lib/rules/pdb-missing';
import { ruleTester, runRule } from '../helpers/rule-tester';

function wl(kind: string, replicas: number | undefined, o: { ns?: string; annotations?: string; meta?: string } = {}): string {
  return `apiVersion: apps/v1
kind: ${kind}
metadata:
  name: web
${o.ns ? `  namespace: ${o.ns}\n` : ''}${o.meta ?? ''}spec:
${replicas === undefined ? '' : `  replicas: ${replicas}\n`}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web, tier: front}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: [{name: app, image: web:1}]
`;
}

const pdb = (selector: string, ns?: string) => `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web${ns ? `, namespace: ${ns}` : ''}}
spec:
  maxUnavailable: 1
  selector: ${selector}
`;
const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: ${min}
  maxReplicas: 10
`;

/** The workload mounting PVC "data", and that PVC with the given access modes. */
const withClaim = (yaml: string) => yaml.replace('      containers: [{name: app, image: web:1}]\n', '      containers: [{name: app, image: web:1}]\n      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n');
const pvc = (modes: string) => `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: ${modes}, resources: {requests: {storage: 1Gi}}}
`;

/** A prometheus-operator resource (the operator runs it as a StatefulSet per shard). */
const cr = (kind: string, name: string, spec: string, ns = 'monitoring') => `---
apiVersion: monitoring.coreos.com/${kind === 'PrometheusAgent' ? 'v1alpha1' : 'v1'}
kind: ${kind}
metadata: {name: ${name}, namespace: ${ns}}
spec: ${spec}
`;
const crPdb = (name: string, selector: string, ns = 'monitoring', budget = 'maxUnavailable: 1') => `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ${name}, namespace: ${ns}}
spec:
  ${budget}
  selector: ${selector}
`;
const svc = (name: string, selector: string) => `---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: monitoring}
spec:
  selector: ${selector}
  ports: [{name: web, port: 9093, targetPort: web}]
`;

/** A 2-replica webhook backend behind Service web, called by one fail-closed validating webhook on the API group given. */
const webhookBackend = (group: string) =>
  wl('Deployment', 2).replace('image: web:1', 'image: ghcr.io/external-secrets/external-secrets:v2.9.0, args: [webhook], ports: [{containerPort: 10250}]') +
  `---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{port: 443, targetPort: 10250}]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: externalsecret-validate}
webhooks:
- name: validate.externalsecret.external-secrets.io
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {service: {namespace: default, name: web, path: /validate}}
  rules: [{apiGroups: [${group}], apiVersions: ['*'], operations: [CREATE, UPDATE], resources: ['*']}]
`;

ruleTester(pdbMissing, {
  valid: [
    {
      // traefik's and teleport's charts pick the version from the cluster's API versions, which helm template does not know.
      name: 'a policy/v1beta1 budget of a Helm render on 1.31: the chart may pick v1 at install, so it counts',
      yaml: wl('StatefulSet', 3) + pdb('{matchLabels: {app: web}}').replace('apiVersion: policy/v1', 'apiVersion: policy/v1beta1').replace('metadata: {name: web}', 'metadata: {name: web, labels: {helm.sh/chart: web-1.0.0}}'),
      kubeVersion: '1.31',
    },
    // Review report p28 item 4: the API server rejects the HPA, so the Deployment runs 1 replica (hpa-replicas: error).
    { name: 'an autoscaling/v2beta1 HPA minReplicas 2 on 1.31 is not served: it does not count', yaml: wl('Deployment', undefined) + hpa(2).replace('autoscaling/v2', 'autoscaling/v2beta1'), kubeVersion: '1.31' },
    { name: 'a policy/v1beta1 budget on 1.24, where it is served', yaml: wl('StatefulSet', 3) + pdb('{matchLabels: {app: web}}').replace('apiVersion: policy/v1', 'apiVersion: policy/v1beta1'), kubeVersion: '1.24' },
    {
      // disruption.go: getExpectedPodCount counts no pods without either field, and updatePdbStatus then allows no
      // disruption: the budget over-protects (pdb-blocks-eviction), it is not missing.
      name: 'a PDB with neither field (tempo-distributed renders maxUnavailable: with no value) is a budget: it refuses every eviction, which pdb-blocks-eviction reports',
      yaml: wl('StatefulSet', 3) + pdb('{matchLabels: {app: web}}').replace('  maxUnavailable: 1\n', '  maxUnavailable:\n'),
    },
    { name: 'replicas 1: a budget cannot protect a single pod', yaml: wl('Deployment', 1) },
    { name: 'default replicas (1)', yaml: wl('Deployment', undefined) },
    { name: 'replicas 3 with a PDB selecting the pods', yaml: wl('Deployment', 3) + pdb('{matchLabels: {app: web}}') },
    { name: 'a PDB selecting with matchExpressions', yaml: wl('StatefulSet', 3) + pdb('{matchExpressions: [{key: tier, operator: In, values: [front]}]}') },
    { name: 'a PDB in the same explicit namespace', yaml: wl('Deployment', 3, { ns: 'shop' }) + pdb('{matchLabels: {app: web}}', 'shop') },
    { name: 'DaemonSet: not checked', yaml: wl('DaemonSet', undefined) },
    { name: 'HPA minReplicas 1 is what counts, not replicas 3', yaml: wl('Deployment', 3) + hpa(1) },
    // Replicas sharing an exclusive claim: the replacement of an evicted one cannot attach the volume
    // elsewhere while another holds it, so a budget would stall the drain (surge-volume-deadlock reports the claim).
    { name: 'Deployment replicas 2 sharing a ReadWriteOnce claim (open-webui): no budget asked for', yaml: withClaim(wl('Deployment', 2)) + pvc('[ReadWriteOnce]') },
    { name: 'HPA minReplicas 2 sharing a ReadWriteOnce claim (sentry-web)', yaml: withClaim(wl('Deployment', undefined)) + hpa(2) + pvc('[ReadWriteOnce]') },
    { name: 'Deployment replicas 3 sharing a ReadWriteOncePod claim', yaml: withClaim(wl('Deployment', 3)) + pvc('[ReadWriteOncePod]') },
    // prometheus-operator's resources: their pods carry the labels the operator sets.
    {
      name: 'kube-prometheus-stack (HA values): the chart\'s PDBs select the operator\'s labels of the Alertmanager and Prometheus pods',
      yaml:
        cr('Alertmanager', 'kps-alertmanager', '{replicas: 3}') +
        cr('Prometheus', 'kps-prometheus', '{replicas: 2, shards: 1}') +
        crPdb('kps-alertmanager', '{matchLabels: {app.kubernetes.io/name: alertmanager, alertmanager: kps-alertmanager}}', 'monitoring', 'minAvailable: 1') +
        crPdb('kps-prometheus', '{matchLabels: {app.kubernetes.io/name: prometheus, operator.prometheus.io/name: kps-prometheus}}', 'monitoring', 'minAvailable: 1'),
    },
    {
      name: 'kube-prometheus: PDBs on the spec.podMetadata labels, with the operator\'s instance label',
      yaml:
        cr('Prometheus', 'k8s', '{replicas: 2, podMetadata: {labels: {app.kubernetes.io/component: prometheus, app.kubernetes.io/part-of: kube-prometheus}}}') +
        crPdb('prometheus-k8s', '{matchLabels: {app.kubernetes.io/component: prometheus, app.kubernetes.io/instance: k8s, app.kubernetes.io/part-of: kube-prometheus}}'),
    },
    { name: 'Alertmanager with one replica (the default) needs no budget', yaml: cr('Alertmanager', 'main', '{}') + cr('Alertmanager', 'one', '{replicas: 1}') },
    { name: 'Prometheus with 3 shards of 1 replica: each StatefulSet is a single pod', yaml: cr('Prometheus', 'k8s', '{shards: 3}') },
    { name: 'PrometheusAgent in DaemonSet mode: a pod per node, no replicas', yaml: cr('PrometheusAgent', 'node', '{mode: DaemonSet, replicas: 3}') },
    {
      name: 'one budget over every shard of a Prometheus protects them all',
      yaml: cr('Prometheus', 'k8s', '{replicas: 2, shards: 3}') + crPdb('prometheus-k8s', '{matchLabels: {prometheus: k8s}}'),
    },
    { name: 'an HPA with minReplicas 1 on an Alertmanager (its scale subresource is spec.replicas)', yaml: cr('Alertmanager', 'main', '{replicas: 3}') + hpa(1).replace('{apiVersion: apps/v1, kind: Deployment, name: web}', '{apiVersion: monitoring.coreos.com/v1, kind: Alertmanager, name: main}').replace('metadata: {name: web}', 'metadata: {name: web, namespace: monitoring}') },
    { name: 'a custom resource of another group named like one (kind Prometheus, group example.com)', yaml: cr('Prometheus', 'k8s', '{replicas: 2}').replace('monitoring.coreos.com/v1', 'example.com/v1') },
    { name: 'ReplicaSet owned by a Deployment (kubectl dump): not a workload of its own', yaml: wl('ReplicaSet', 3, { meta: '  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u1, controller: true}]\n' }) },
  ],
  invalid: [
    // Review p37 item 3 / p32 item 2: the warning is kept where losing every replica at once costs work or traffic.
    {
      name: "an unserved worker whose strategy Recreate already stops every replica on each rollout (Mastodon's sidekiq): info",
      yaml: wl('Deployment', 3).replace('  selector:', '  strategy: {type: Recreate}\n  selector:').replace('image: web:1', 'image: ghcr.io/mastodon/mastodon:v4.6.3, command: [bundle, exec, sidekiq, -q, default]'),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/replicas',
          message:
            'replicas 3 but no PodDisruptionBudget in its namespace selects its pods: a node drain or autoscaler consolidation may evict every replica at once; that costs little here: no Service routes clients to it, and its strategy Recreate already stops every replica at once on each rollout, so a drain that evicts them all costs the same pause in its work, and a budget still spaces drains out; add a PodDisruptionBudget with maxUnavailable: 1',
        },
      ],
    },
    {
      name: 'a Prometheus exporter whose only Service is a metrics port (harbor-exporter): info',
      yaml:
        wl('Deployment', 2).replace('labels: {app: web, tier: front}', 'labels: {app: web, tier: front, app.kubernetes.io/component: exporter}').replace('image: web:1', 'image: docker.io/goharbor/harbor-exporter:v2.13.0, ports: [{containerPort: 8001}]') +
        '---\napiVersion: v1\nkind: Service\nmetadata: {name: web-exporter}\nspec: {selector: {app: web}, ports: [{name: http-metrics, port: 8001}]}\n',
      findings: [{ severity: 'info', message: /that costs little here: it is a Prometheus exporter \(app\.kubernetes\.io\/component: exporter\) that no Service routes clients to, so evicting every replica costs a gap in scrapes, not client traffic/ }],
    },
    {
      name: 'an exporter known by its image alone, no Service: info',
      yaml: wl('Deployment', 2).replace('image: web:1', 'image: oliver006/redis_exporter:v1.62.0'),
      findings: [{ severity: 'info', message: /a Prometheus exporter \(image oliver006\/redis_exporter:v1\.62\.0\)/ }],
    },
    {
      name: 'Recreate but served (a Service routes to it): warning',
      yaml: wl('Deployment', 3).replace('  selector:', '  strategy: {type: Recreate}\n  selector:').replace('image: web:1', 'image: web:1, ports: [{containerPort: 8080}]') + '---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}\n',
      findings: [{ severity: 'warning', message: /may evict every replica at once; add a PodDisruptionBudget/ }],
    },
    {
      name: 'Recreate marked served by the hint: warning',
      yaml: wl('Deployment', 3, { annotations: '"kubegrace.dev/served": "true"' }).replace('  selector:', '  strategy: {type: Recreate}\n  selector:'),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'an unserved worker under RollingUpdate with a metrics Service (Celery): its processing stalls, warning',
      yaml: wl('Deployment', 3).replace('image: web:1', 'image: example/worker:1, ports: [{name: metrics, containerPort: 9808}]') + '---\napiVersion: v1\nkind: Service\nmetadata: {name: web-metrics}\nspec: {selector: {app: web}, ports: [{name: metrics, port: 9808}]}\n',
      findings: [{ severity: 'warning' }],
    },
    // Review round 33, report p40 item 1: External Secrets' webhook, 2 replicas, whose only client is the API server calling
    // webhooks on external-secrets.io: webhook-backend-availability rates losing every replica info.
    {
      name: 'a webhook backend whose only client is the API server, through fail-closed webhooks on custom resources only: info',
      yaml: webhookBackend('external-secrets.io'),
      findings: [
        {
          severity: 'info',
          message:
            'replicas 2 but no PodDisruptionBudget in its namespace selects its pods: a node drain or autoscaler consolidation may evict every replica at once; that costs little here: its only client is the API server, calling validate.externalsecret.external-secrets.io, which matches only custom resources (external-secrets.io): losing every replica fails only writes of those, which GitOps controllers and the operator\'s own reconcilers retry (a one-shot kubectl apply or helm upgrade fails and must be run again), as webhook-backend-availability rates that outage, and a budget still spaces drains out; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app: web}',
        },
      ],
    },
    { name: 'a webhook backend whose webhook matches pods (a built-in group): cluster-wide writes fail, warning', yaml: webhookBackend('""'), findings: [{ severity: 'warning', message: /may evict every replica at once; add a PodDisruptionBudget/ }] },
    {
      name: 'a webhook backend whose webhook fails open (Ignore) on custom resources: not the info case, warning',
      yaml: webhookBackend('external-secrets.io').replace('failurePolicy: Fail', 'failurePolicy: Ignore').replace('kind: ValidatingWebhookConfiguration', 'kind: MutatingWebhookConfiguration'),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'a webhook backend whose Service has another client port: warning',
      yaml: webhookBackend('external-secrets.io').replace('ports: [{port: 443, targetPort: 10250}]', 'ports: [{port: 443, targetPort: 10250}, {name: http, port: 8080}]'),
      findings: [{ severity: 'warning' }],
    },
    { name: 'a webhook backend marked served by the hint: warning', yaml: webhookBackend('external-secrets.io').replace('labels: {app: web, tier: front}', 'labels: {app: web, tier: front}\n      annotations: {"kubegrace.dev/served": "true"}'), findings: [{ severity: 'warning' }] },
    // Review round 33, report p44 item B: the Solr operator, 2 replicas, no Service, --leader-elect=true.
    {
      name: 'an unserved controller that runs leader election (--leader-elect=true): one replica works, info',
      yaml: wl('Deployment', 2).replace('image: web:1', 'image: apache/solr-operator:v0.9.1, args: [-zk-operator=false, --leader-elect=true]'),
      findings: [
        {
          severity: 'info',
          message:
            'replicas 2 but no PodDisruptionBudget in its namespace selects its pods: a node drain or autoscaler consolidation may evict every replica at once; that costs little here: no Service routes clients to it, and it runs leader election (--leader-elect=true in container "app"), so one replica works while the others wait for its lease: evicting the leader alone already pauses that work until a standby takes the lease over, and evicting every replica adds the start of a replacement to the pause; no client traffic is lost, and a budget still spaces drains out; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app: web}',
        },
      ],
    },
    { name: 'leader election by --enable-leader-election (kubebuilder v2): info', yaml: wl('Deployment', 2).replace('image: web:1', 'image: example/manager:1, command: [/manager, --enable-leader-election]'), findings: [{ severity: 'info', message: /--enable-leader-election in container "app"/ }] },
    { name: 'leader election switched off (--leader-elect=false): warning', yaml: wl('Deployment', 2).replace('image: web:1', 'image: example/manager:1, args: [--leader-elect=false]'), findings: [{ severity: 'warning' }] },
    { name: 'only a leader-election tuning flag, not the switch: warning', yaml: wl('Deployment', 2).replace('image: web:1', 'image: example/manager:1, args: [--leader-elect-lease-duration=30s]'), findings: [{ severity: 'warning' }] },
    {
      name: 'leader election but served (a Service routes clients to it): warning',
      yaml: wl('Deployment', 2).replace('image: web:1', 'image: example/manager:1, args: [--leader-elect], ports: [{containerPort: 8080}]') + '---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}\n',
      findings: [{ severity: 'warning' }],
    },
    {
      // bitnami/concourse: the worker budget's selector has one label wrong; a second budget beside it
      // would give the pods two once it is corrected (every eviction refused).
      name: 'a budget one label value off: correct it, no second budget proposed',
      yaml: wl('StatefulSet', 3) + pdb('{matchLabels: {app: web, tier: frontend}}'),
      findings: [{ severity: 'warning', message: "PodDisruptionBudget/web looks meant for them but selects tier: frontend, and the template has tier: front: correct that budget's selector rather than adding one" }],
    },
    {
      // Review round 18 (cp-helm-charts' ZooKeeper budget is policy/v1beta1): not served from 1.25, so it never exists.
      name: 'a policy/v1beta1 budget on 1.31: the API does not serve it, so the workload has none',
      yaml: wl('StatefulSet', 3) + pdb('{matchLabels: {app: web}}').replace('apiVersion: policy/v1', 'apiVersion: policy/v1beta1'),
      kubeVersion: '1.31',
      findings: [{ severity: 'error', pointer: '/apiVersion', object: 'PodDisruptionBudget/web', message: 'PodDisruptionBudget/web is policy/v1beta1, which the API server no longer serves from 1.25 (on 1.31 applying it fails): StatefulSet/web (replicas 3) has no budget' }],
    },
    {
      // Review round 13: Grafana OnCall's migrate Job carries the engine's labels. A budget over them cannot be
      // sized (the Job has no scale subresource) and allows no disruption: no budget proposed, the advice says why.
      name: 'the workload\'s selector also selects a Job\'s pods: no proposed budget, and the advice to narrow it',
      yaml: wl('Deployment', 3) + '---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: web-migrate}\nspec:\n  template:\n    metadata: {labels: {app: web, tier: front}}\n    spec: {restartPolicy: Never, containers: [{name: migrate, image: web:1}]}\n',
      findings: [
        {
          severity: 'warning',
          object: 'Deployment/web',
          message: 'selector.matchLabels {app: web}, narrowed by a label that only its pods carry: that selector also selects the pods of Job/web-migrate, which a budget with maxUnavailable cannot size (they have no scale subresource), so it would allow no disruption while they exist',
        },
      ],
    },
    {
      name: 'a PDB with both minAvailable and maxUnavailable (retail-store-sample-app\'s charts): the API rejects it, so the pods have none (error, at the budget)',
      yaml: wl('Deployment', 3) + pdb('{matchLabels: {app: web}}').replace('  maxUnavailable: 1\n', '  minAvailable: 2\n  maxUnavailable: 1\n'),
      findings: [{ severity: 'error', pointer: '/spec', object: 'PodDisruptionBudget/web', message: 'PodDisruptionBudget/web sets both minAvailable and maxUnavailable, which are mutually exclusive: the API rejects it, so Deployment/web (replicas 3) has no budget' }],
    },
    {
      // Review round 34, report p51 item 8 (z2jh's proxy.chp.pdb with both values set, over the 1-replica proxy).
      name: 'a PDB with both fields over a single replica: still an error at the budget, since applying it fails',
      yaml: wl('Deployment', 1) + pdb('{matchLabels: {app: web}}').replace('  maxUnavailable: 1\n', '  maxUnavailable: 1\n  minAvailable: 1\n'),
      findings: [{ severity: 'error', pointer: '/spec', object: 'PodDisruptionBudget/web', message: 'PodDisruptionBudget/web sets both minAvailable and maxUnavailable, which are mutually exclusive: the API server rejects it ("minAvailable and maxUnavailable cannot be both set"), so applying it fails' }],
    },
    {
      name: 'a PDB with both fields beside a working budget, and one over no workload of the input: each an error',
      yaml:
        wl('Deployment', 3) +
        pdb('{matchLabels: {app: web}}') +
        pdb('{matchLabels: {app: web}}').replace('{name: web}', '{name: web-both}').replace('  maxUnavailable: 1\n', '  maxUnavailable: 1\n  minAvailable: 2\n') +
        pdb('{matchLabels: {app: other}}').replace('{name: web}', '{name: other}').replace('  maxUnavailable: 1\n', '  maxUnavailable: 1\n  minAvailable: 2\n'),
      findings: [
        { severity: 'error', pointer: '/spec', object: 'PodDisruptionBudget/web-both', message: 'sets both minAvailable and maxUnavailable' },
        { severity: 'error', pointer: '/spec', object: 'PodDisruptionBudget/other', message: 'sets both minAvailable and maxUnavailable' },
      ],
    },
    {
      name: 'a policy/v1beta1 budget on 1.31 over a single replica: an error at the budget, since applying it fails',
      yaml: wl('StatefulSet', 1) + pdb('{matchLabels: {app: web}}').replace('apiVersion: policy/v1', 'apiVersion: policy/v1beta1'),
      kubeVersion: '1.31',
      findings: [{ severity: 'error', pointer: '/apiVersion', object: 'PodDisruptionBudget/web', message: 'PodDisruptionBudget/web is policy/v1beta1, which the API server no longer serves from 1.25 (on 1.31 applying it fails); use apiVersion: policy/v1' }],
    },
    {
      name: 'minAvailable: 0 (argo-events renders it from maxUnavailable: 0, which Go templates read as false) allows every eviction',
      yaml: wl('Deployment', 2) + pdb('{matchLabels: {app: web}}').replace('  maxUnavailable: 1\n', '  minAvailable: 0\n'),
      findings: [{ severity: 'warning', object: 'PodDisruptionBudget/web', message: 'PodDisruptionBudget/web sets minAvailable: 0, which allows every eviction, so Deployment/web (replicas 2) is not protected; set maxUnavailable: 1' }],
    },
    {
      name: 'maxUnavailable: "100%" allows every eviction too',
      yaml: wl('StatefulSet', 3) + pdb('{matchLabels: {app: web}}').replace('  maxUnavailable: 1\n', '  maxUnavailable: "100%"\n'),
      findings: [{ severity: 'warning', object: 'PodDisruptionBudget/web', message: 'sets maxUnavailable: "100%", which allows every eviction' }],
    },
    {
      name: 'Deployment replicas 3 without any PDB',
      yaml: wl('Deployment', 3),
      findings: [{ severity: 'warning', pointer: '/spec/replicas', object: 'Deployment/web', message: 'replicas 3 but no PodDisruptionBudget in its namespace selects its pods: a node drain or autoscaler consolidation may evict every replica at once; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app: web}' }],
    },
    { name: 'StatefulSet replicas 2', yaml: wl('StatefulSet', 2, { ns: 'db' }), findings: [{ severity: 'warning', object: 'StatefulSet/web', message: 'replicas 2 but no PodDisruptionBudget in namespace db' }] },
    { name: 'standalone ReplicaSet replicas 2', yaml: wl('ReplicaSet', 2), findings: [{ severity: 'warning', object: 'ReplicaSet/web' }] },
    {
      name: 'required hostname anti-affinity: one replica per node, so one drain takes one',
      yaml: wl('StatefulSet', 3).replace('    spec:\n', '    spec:\n      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n'),
      findings: [{ severity: 'warning', message: 'selects its pods: required pod anti-affinity on kubernetes.io/hostname keeps one replica per node, so a single drain takes only one, but drains run concurrently' }],
    },
    {
      // Review round 18 (azuredisk-csi-driver's controller: hostNetwork with a declared port).
      name: 'host ports: one replica per node, so one drain takes one',
      yaml: wl('Deployment', 2).replace('containers: [{name: app, image: web:1}]', 'hostNetwork: true\n      containers: [{name: app, image: web:1, ports: [{containerPort: 29604}]}]'),
      findings: [{ severity: 'warning', message: 'selects its pods: host ports (container "app" port 29604 (hostNetwork: true makes every declared port a host port)) keep one replica per node, so a single drain takes only one, but drains run concurrently' }],
    },
    {
      // maxSkew bounds the difference between nodes, not the count per node (review round 14: timescaledb's 3 replicas on 2 nodes).
      name: 'a DoNotSchedule hostname spread evens the replicas out: one per node only with as many nodes as replicas',
      yaml: wl('StatefulSet', 3).replace('    spec:\n', '    spec:\n      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]\n'),
      findings: [{ severity: 'warning', message: 'selects its pods: a DoNotSchedule topology spread on kubernetes.io/hostname (maxSkew 1) evens the replicas out over the nodes, so a single drain takes only one while there are at least as many nodes as replicas, but drains run concurrently' }],
    },
    { name: 'replicas sharing a ReadWriteMany claim still need a budget', yaml: withClaim(wl('Deployment', 2)) + pvc('[ReadWriteMany]'), findings: [{ severity: 'warning', message: 'replicas 2 but no PodDisruptionBudget' }] },
    { name: 'a claim whose PVC is not in the input: access mode unknown, still reported', yaml: withClaim(wl('Deployment', 2)), findings: [{ severity: 'warning', message: 'replicas 2 but no PodDisruptionBudget' }] },
    {
      name: 'replicas sharing a ReadWriteOnce claim, pinned to one node by nodeName: all run there, so a budget is asked for as before',
      yaml: withClaim(wl('Deployment', 2)).replace('    spec:\n', '    spec:\n      nodeName: node-1\n') + pvc('[ReadWriteOnce]'),
      findings: [{ severity: 'warning', message: 'replicas 2 but no PodDisruptionBudget' }],
    },
    {
      name: 'a StatefulSet with a ReadWriteOnce claim template (one claim per pod) still needs a budget',
      yaml: wl('StatefulSet', 2) + '  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n',
      findings: [{ severity: 'warning', object: 'StatefulSet/web' }],
    },
    {
      name: 'a budget that protects nothing over replicas sharing a ReadWriteOnce claim is still a mistake in that budget',
      yaml: withClaim(wl('Deployment', 2)) + pvc('[ReadWriteOnce]') + pdb('{matchLabels: {app: web}}').replace('  maxUnavailable: 1\n', '  minAvailable: 2\n  maxUnavailable: 1\n'),
      findings: [{ severity: 'error', object: 'PodDisruptionBudget/web', message: 'the API rejects it' }],
    },
    {
      name: 'HPA minReplicas 2 counts even with spec.replicas unset: pointer /spec',
      yaml: wl('Deployment', undefined) + hpa(2),
      findings: [{ severity: 'warning', pointer: '/spec', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/web) but no PodDisruptionBudget' }],
    },
    {
      // Review report p34 item B: Grafana Alloy's HPA writes kind: deployment, which the HPA controller
      // resolves (client-go's discovery RESTMapper also registers each kind in lower case).
      name: 'an HPA whose scaleTargetRef.kind is all in lower case counts: its minReplicas 2 needs a budget',
      yaml: wl('Deployment', undefined) + hpa(2).replace('kind: Deployment,', 'kind: deployment,'),
      findings: [{ severity: 'warning', pointer: '/spec', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/web) but no PodDisruptionBudget' }],
    },
    { name: 'a PDB in another namespace does not count', yaml: wl('Deployment', 3, { ns: 'shop' }) + pdb('{matchLabels: {app: web}}', 'other'), findings: [{ severity: 'warning', message: 'in namespace shop' }] },
    { name: 'a PDB selecting other labels does not count', yaml: wl('Deployment', 3) + pdb('{matchLabels: {app: api}}'), findings: [{ severity: 'warning' }] },
    { name: 'a PDB with a null selector matches nothing', yaml: wl('Deployment', 3) + pdb('null'), findings: [{ severity: 'warning' }] },
    {
      name: 'Alertmanager replicas 3 and no budget (kube-prometheus-stack\'s default podDisruptionBudget.enabled: false)',
      yaml: cr('Alertmanager', 'main', '{replicas: 3}') + svc('alertmanager-main', '{app.kubernetes.io/name: alertmanager, alertmanager: main}'),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/replicas',
          object: 'Alertmanager/main',
          message:
            'replicas 3 but no PodDisruptionBudget in namespace monitoring selects its pods (StatefulSet alertmanager-main, which prometheus-operator makes from it): a node drain or autoscaler consolidation may evict every replica at once; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app.kubernetes.io/name: alertmanager, alertmanager: main}',
        },
      ],
    },
    {
      name: 'Prometheus replicas 2 and no budget',
      yaml: cr('Prometheus', 'k8s', '{replicas: 2}'),
      findings: [{ severity: 'warning', object: 'Prometheus/k8s', message: 'replicas 2 but no PodDisruptionBudget in namespace monitoring selects its pods (StatefulSet prometheus-k8s, which prometheus-operator makes from it): a node drain or autoscaler consolidation may evict every replica at once; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app.kubernetes.io/name: prometheus, operator.prometheus.io/name: k8s}' }],
    },
    {
      name: 'Prometheus replicas 2 per shard in 3 shards, no budget: one budget over every shard is proposed',
      yaml: cr('Prometheus', 'k8s', '{replicas: 2, shards: 3}'),
      findings: [{ severity: 'warning', object: 'Prometheus/k8s', message: 'replicas 2 in each of its 3 shards but no PodDisruptionBudget in namespace monitoring selects its pods (StatefulSets prometheus-k8s, prometheus-k8s-shard-1, prometheus-k8s-shard-2, which prometheus-operator makes from it): a node drain or autoscaler consolidation may evict every replica of a shard at once; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app.kubernetes.io/name: prometheus, operator.prometheus.io/name: k8s} (every shard)' }],
    },
    {
      name: 'a budget on shard 0 alone leaves the other shards\' pods unprotected: named per shard',
      yaml: cr('Prometheus', 'k8s', '{replicas: 2, shards: 3}') + crPdb('prometheus-k8s', '{matchLabels: {operator.prometheus.io/name: k8s, operator.prometheus.io/shard: "0"}}'),
      findings: [{ severity: 'warning', object: 'Prometheus/k8s', message: 'replicas 2 in each of its 3 shards but no PodDisruptionBudget in namespace monitoring selects the pods of shards 1, 2 (StatefulSets prometheus-k8s-shard-1, prometheus-k8s-shard-2): a node drain or autoscaler consolidation may evict every replica of a shard at once; add a PodDisruptionBudget with maxUnavailable: 1 for each, selector.matchLabels {app.kubernetes.io/name: prometheus, operator.prometheus.io/name: k8s, operator.prometheus.io/shard: "1"} and so on' }],
    },
    {
      name: 'a budget for the Prometheus does not cover a PrometheusAgent of the same name (app.kubernetes.io/name: prometheus-agent)',
      yaml: cr('PrometheusAgent', 'k8s', '{replicas: 2}') + crPdb('prometheus-k8s', '{matchLabels: {app.kubernetes.io/name: prometheus, operator.prometheus.io/name: k8s}}'),
      findings: [{ severity: 'warning', object: 'PrometheusAgent/k8s', message: 'replicas 2 but no PodDisruptionBudget in namespace monitoring selects its pods (StatefulSet prom-agent-k8s, which prometheus-operator makes from it)' }],
    },
    { name: 'ThanosRuler replicas 2', yaml: cr('ThanosRuler', 'rules', '{replicas: 2}'), findings: [{ severity: 'warning', object: 'ThanosRuler/rules', message: 'selector.matchLabels {app.kubernetes.io/name: thanos-ruler, thanos-ruler: rules}' }] },
    {
      name: 'a budget on the resource\'s own metadata labels does not count: the operator does not put them on the pods',
      yaml: cr('Alertmanager', 'main', '{replicas: 3}').replace('metadata: {name: main, namespace: monitoring}', 'metadata: {name: main, namespace: monitoring, labels: {team: obs}}') + crPdb('alertmanager-main', '{matchLabels: {team: obs}}'),
      findings: [{ severity: 'warning', object: 'Alertmanager/main' }],
    },
    {
      name: 'an HPA with minReplicas 2 on an Alertmanager counts: pointer /spec',
      yaml: cr('Alertmanager', 'main', '{}') + hpa(2).replace('{apiVersion: apps/v1, kind: Deployment, name: web}', '{apiVersion: monitoring.coreos.com/v1, kind: Alertmanager, name: main}').replace('metadata: {name: web}', 'metadata: {name: web, namespace: monitoring}'),
      findings: [{ severity: 'warning', pointer: '/spec', object: 'Alertmanager/main', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/web) but no PodDisruptionBudget' }],
    },
    {
      name: 'a budget with both fields over an Alertmanager: said at the budget, naming it',
      yaml: cr('Alertmanager', 'main', '{replicas: 3}') + crPdb('alertmanager-main', '{matchLabels: {alertmanager: main}}', 'monitoring', 'minAvailable: 2\n  maxUnavailable: 1'),
      findings: [{ severity: 'error', object: 'PodDisruptionBudget/alertmanager-main', message: 'the API rejects it, so Alertmanager/main (replicas 3) has no budget' }],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: wl('Deployment', 3, { annotations: '"kubegrace.dev/ignore": "pdb-missing"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

test('no budget is proposed over a Job\'s pods; a sibling Deployment under the same selector keeps the proposal (a canary beside its stable track)', () => {
  const job = '---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: web-migrate}\nspec:\n  template:\n    metadata: {labels: {app: web, tier: front}}\n    spec: {restartPolicy: Never, containers: [{name: migrate, image: web:1}]}\n';
  const [withJob] = runRule(pdbMissing, wl('Deployment', 3) + job);
  expect(withJob.fix).toBeUndefined();
  const canary = wl('Deployment', 1).replace('name: web', 'name: web-canary');
  const [stable] = runRule(pdbMissing, wl('Deployment', 3) + '---\n' + canary);
  expect(stable.fix?.description).toBe('add PodDisruptionBudget web (maxUnavailable: 1) for Deployment/web');
  // A chart's test-connection Pod (a Helm test hook) exists only while `helm test` runs.
  const hook = '---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-test-connection, annotations: {helm.sh/hook: test}, labels: {app: web, tier: front}}\nspec: {restartPolicy: Never, containers: [{name: wget, image: busybox}]}\n';
  const [tested] = runRule(pdbMissing, wl('Deployment', 3) + hook);
  expect(tested.fix?.description).toBe('add PodDisruptionBudget web (maxUnavailable: 1) for Deployment/web');
  expect(tested.message).not.toContain('narrowed');
});

test('pdb-missing: no budget is proposed beside a budget one label value off (it would be a second budget once that one is corrected)', () => {
  const [f] = runRule(pdbMissing, wl('StatefulSet', 3) + pdb('{matchLabels: {app: web, tier: frontend}}'));
  expect(f.message).toContain('looks meant for them');
  expect(f.fix).toBeUndefined();
  // The same workload without that budget gets the proposal; and beside a budget whose value is
  // unlike its own (bitnami/kafka's broker budget, for a pool the chart did not render), too.
  expect(runRule(pdbMissing, wl('StatefulSet', 3))[0].fix).toBeDefined();
  const stray = runRule(pdbMissing, wl('StatefulSet', 3) + pdb('{matchLabels: {app: web, tier: back}}'));
  expect(stray[0].message).not.toContain('looks meant for them');
  expect(stray[0].fix).toBeDefined();
});

// Review round 23 (openfga): a Helm hook Job without hook-succeeded stays after it ran, with its
// Completed pod, which a proposed maxUnavailable budget would select: no budget is proposed. One
// deleted on success exists for its run at each install or upgrade, when that budget would allow no
// disruption (pdb-selector's warning since review round 34, report p48 item 2): no proposal either.
// A delete hook runs at uninstall, when the budget goes too: the proposal stays.
test('pdb-missing: a Helm hook Job of install or upgrade with the workload\'s labels withholds the proposal, lasting or deleted on success; a delete hook does not', () => {
  const job = (annotations: string) => `---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, annotations: {${annotations}}}
spec:
  template:
    metadata: {labels: {app: web}}
    spec:
      restartPolicy: Never
      containers: [{name: m, image: web:1}]
`;
  const lasting = runRule(pdbMissing, wl('Deployment', 3) + job('helm.sh/hook: post-install'));
  expect(lasting[0].fix).toBeUndefined();
  expect(lasting[0].message).toContain('that selector also selects the pods of Job/migrate');
  const deleted = runRule(pdbMissing, wl('Deployment', 3) + job('helm.sh/hook: "post-install,pre-upgrade", helm.sh/hook-delete-policy: hook-succeeded'));
  expect(deleted[0].fix).toBeUndefined();
  expect(deleted[0].message).toContain('that selector also selects the pods of Job/migrate');
  const atUninstall = runRule(pdbMissing, wl('Deployment', 3) + job('helm.sh/hook: pre-delete, helm.sh/hook-delete-policy: hook-succeeded'));
  expect(atUninstall[0].fix).toBeDefined();
  expect(atUninstall[0].message).not.toContain('narrowed');
});

// Review round 34, report p51 item 1: JupyterHub's user placeholders, a StatefulSet of pause
// containers whose eviction is their purpose (the chart's budget is minAvailable: 0 on purpose).
describe('pdb-missing: workloads whose every container is idle', () => {
  const placeholder = (container: string) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: user-placeholder, namespace: jhub}
spec:
  replicas: 4
  selector: {matchLabels: {component: user-placeholder}}
  template:
    metadata: {labels: {component: user-placeholder}}
    spec:
      terminationGracePeriodSeconds: 0
      priorityClassName: jupyterhub-user-placeholder-priority
      containers: [${container}]
`;
  const min0 = '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: user-placeholder, namespace: jhub}\nspec:\n  minAvailable: 0\n  selector: {matchLabels: {component: user-placeholder}}\n';
  test('pause placeholders: no finding without a budget, nor at their minAvailable: 0 budget', () => {
    const pause = '{name: pause, image: "registry.k8s.io/pause:3.10"}';
    expect(runRule(pdbMissing, placeholder(pause))).toEqual([]);
    expect(runRule(pdbMissing, placeholder(pause) + min0)).toEqual([]);
    expect(runRule(pdbMissing, placeholder('{name: sleep, image: busybox, command: [sleep, infinity]}'))).toEqual([]);
  });
  test('a workload with one working container is still judged (and its minAvailable: 0 budget reported)', () => {
    const mixed = '{name: pause, image: "registry.k8s.io/pause:3.10"}, {name: app, image: web:1}';
    expect(runRule(pdbMissing, placeholder(mixed)).map((f) => f.severity)).toEqual(['warning']);
    const [f] = runRule(pdbMissing, placeholder(mixed) + min0);
    expect(f.message).toContain('sets minAvailable: 0, which allows every eviction');
    // The pause image with a command of its own is not the pause program.
    expect(runRule(pdbMissing, placeholder('{name: p, image: "registry.k8s.io/pause:3.10", command: [/app]}'))).toHaveLength(1);
  });
});

// Review round 34, report p50 item 2: a Neo4j cluster is one 1-replica StatefulSet per member
// (one release each), behind one Service, with no budget by default.
describe('pdb-missing: one-replica members of a group that one Service serves', () => {
  const member = (name: string, image = 'neo4j:5.17.0-enterprise', replicas = 1) => `---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}, namespace: neo4j}
spec:
  serviceName: ${name}
  replicas: ${replicas}
  selector: {matchLabels: {app: my-cluster, helm.neo4j.com/instance: ${name}}}
  template:
    metadata: {labels: {app: my-cluster, helm.neo4j.com/clustering: "true", helm.neo4j.com/instance: ${name}, helm.neo4j.com/pod_category: neo4j-instance}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: my-cluster, helm.neo4j.com/pod_category: neo4j-instance}}, topologyKey: kubernetes.io/hostname}
      containers: [{name: neo4j, image: "${image}", ports: [{containerPort: 7687, name: bolt}]}]
`;
  const lb = '---\napiVersion: v1\nkind: Service\nmetadata: {name: my-cluster-lb-neo4j, namespace: neo4j}\nspec:\n  type: LoadBalancer\n  selector: {app: my-cluster, helm.neo4j.com/clustering: "true"}\n  ports: [{name: tcp-bolt, port: 7687, targetPort: 7687}]\n';
  const cluster = member('server-1') + member('server-2') + member('server-3') + lb;
  test('three members with no budget: one warning at the first member, naming them all, with one budget over the Service selector', () => {
    const fs = runRule(pdbMissing, cluster, '1.31');
    expect(fs).toHaveLength(1);
    const [f] = fs;
    expect(f.severity).toBe('warning');
    expect(f.object.name).toBe('server-1');
    expect(f.message).toBe(
      '3 one-replica StatefulSets (StatefulSet/server-1, StatefulSet/server-2, StatefulSet/server-3; StatefulSets of the image neo4j) are the members of one group that Service/my-cluster-lb-neo4j serves together, and no PodDisruptionBudget in namespace neo4j selects any of them: required pod anti-affinity on kubernetes.io/hostname over the members keeps one member per node, so a single drain takes only one, but concurrent drains (cluster upgrades drain several nodes at a time, the autoscaler consolidates several at once) may evict several members at once, and a clustered program that needs a majority of its members (a Raft quorum) then stops; add one PodDisruptionBudget over the labels the members share, such as the Service\'s selector {app: my-cluster, helm.neo4j.com/clustering: "true"}, with maxUnavailable: 1 (or a minAvailable that keeps the quorum), not one per member (maxUnavailable: 1 on each member would still let concurrent drains evict one of each)',
    );
    expect(f.fix?.safety).toBe('proposal');
    expect(f.fix?.edits[0]).toEqual({
      op: 'add-object',
      value: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'my-cluster-lb-neo4j', namespace: 'neo4j' }, spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow', selector: { matchLabels: { app: 'my-cluster', 'helm.neo4j.com/clustering': 'true' } } } },
    });
  });
  test('a single one-replica StatefulSet, a group with a budget, and unlike members stay silent', () => {
    expect(runRule(pdbMissing, member('server-1') + lb)).toEqual([]);
    const memberPdb = '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: server-1, namespace: neo4j}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {helm.neo4j.com/instance: server-1}}\n';
    expect(runRule(pdbMissing, cluster + memberPdb)).toEqual([]);
    const groupPdb = '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: all, namespace: neo4j}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: my-cluster}}\n';
    expect(runRule(pdbMissing, cluster + groupPdb)).toEqual([]);
    // Different programs behind one Service are not members of one group (memberGroup).
    expect(runRule(pdbMissing, member('server-1') + member('server-2', 'redis:7') + lb)).toEqual([]);
    // A member with several replicas is judged alone (its own warning), not as a member.
    expect(runRule(pdbMissing, member('server-1') + member('server-2', undefined, 2) + lb).map((f) => f.object.name)).toEqual(['server-2']);
  });
});

// Review round 34, report p50 item 4: TiDB's controllers elect a leader from code or a config file, not a flag.
describe('pdb-missing: leader election read from RBAC and a mounted component config', () => {
  const ctrl = (o: { sa?: string; args?: string; volumes?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: tidb-controller-manager, namespace: tidb-admin}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/component: controller-manager}}
  template:
    metadata: {labels: {app.kubernetes.io/component: controller-manager}}
    spec:
${o.sa ? `      ${o.sa}\n` : ''}      containers:
      - name: tidb-operator
        image: pingcap/tidb-operator:v1.6.6
        command: [/usr/local/bin/tidb-controller-manager, -v=2${o.args ?? ''}]
${o.volumes ?? ''}`;
  const rbac = (rules: string, kind = 'ClusterRole') => `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}
metadata: {name: ctrl, namespace: tidb-admin}
rules: ${rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}Binding
metadata: {name: ctrl, namespace: tidb-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ${kind}, name: ctrl}
subjects: [{kind: ServiceAccount, name: tidb-controller-manager, namespace: tidb-admin}]
`;
  const leases = '[{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create, get, list, watch, update, delete]}, {apiGroups: [apps], resources: [statefulsets], verbs: ["*"]}]';
  const sa = 'serviceAccountName: tidb-controller-manager';
  const sev = (yaml: string) => runRule(pdbMissing, yaml).map((f) => f.severity);
  test('a ServiceAccount that may create and update leases: info, saying so', () => {
    const [f] = runRule(pdbMissing, ctrl({ sa }) + rbac(leases));
    expect(f.severity).toBe('info');
    expect(f.message).toContain('it runs leader election (its ServiceAccount tidb-controller-manager may create and update coordination.k8s.io leases through ClusterRole/ctrl, the lock of client-go\'s leader election)');
    // The deprecated serviceAccount alias (the v1.6 chart writes it), a Role, and create and update in two rules (tidb-scheduler's role).
    expect(sev(ctrl({ sa: 'serviceAccount: tidb-controller-manager' }) + rbac(leases))).toEqual(['info']);
    expect(sev(ctrl({ sa }) + rbac(leases, 'Role'))).toEqual(['info']);
    expect(sev(ctrl({ sa }) + rbac('[{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [create]}, {apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [tidb-scheduler], verbs: [get, update]}]'))).toEqual(['info']);
    // An older lock: update on a ConfigMap named like a lock.
    expect(sev(ctrl({ sa }) + rbac('[{apiGroups: [""], resources: [configmaps], resourceNames: [my-controller-leader-election], verbs: [get, update]}]'))).toEqual(['info']);
  });
  test('no evidence, or evidence that says nothing: warning', () => {
    expect(sev(ctrl({ sa }))).toEqual(['warning']);
    // Only reading leases, wildcards over every group (cluster-admin), any ConfigMap, or the default ServiceAccount.
    expect(sev(ctrl({ sa }) + rbac('[{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch]}]'))).toEqual(['warning']);
    expect(sev(ctrl({ sa }) + rbac('[{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]'))).toEqual(['warning']);
    expect(sev(ctrl({ sa }) + rbac('[{apiGroups: [""], resources: [configmaps], verbs: [create, update]}]'))).toEqual(['warning']);
    expect(sev(ctrl() + rbac(leases).replace('name: tidb-controller-manager, namespace', 'name: default, namespace'))).toEqual(['warning']);
    // Leader election switched off by its flag.
    expect(sev(ctrl({ sa, args: ', --leader-elect=false' }) + rbac(leases))).toEqual(['warning']);
    // ... or by an environment variable (the Percona XtraDB operator's PXCO_LEADER_ELECTION_ENABLED; its CI values set it false).
    expect(sev(ctrl({ sa, volumes: '        env: [{name: PXCO_LEADER_ELECTION_ENABLED, value: "false"}]\n' }) + rbac(leases))).toEqual(['warning']);
    expect(sev(ctrl({ sa, volumes: '        env: [{name: PXCO_LEADER_ELECTION_ENABLED, value: "true"}]\n' }) + rbac(leases))).toEqual(['info']);
    // The ServiceAccount is shared with a workload that runs another program: the grant may be that one's.
    const other = '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: other, namespace: tidb-admin}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: other}}\n  template:\n    metadata: {labels: {app: other}}\n    spec:\n      serviceAccountName: tidb-controller-manager\n      containers: [{name: o, image: example/other:1}]\n';
    expect(sev(ctrl({ sa }) + rbac(leases) + other)).toEqual(['warning']);
    // Served: the warning stays.
    const served = ctrl({ sa }).replace('-v=2]\n', '-v=2]\n        ports: [{containerPort: 8080}]\n') + rbac(leases) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: tidb-admin}\nspec: {selector: {app.kubernetes.io/component: controller-manager}, ports: [{port: 80, targetPort: 8080}]}\n';
    expect(sev(served)).toEqual(['warning']);
  });
  test('leaderElect: true in a ConfigMap a main container mounts (kube-scheduler\'s config): info; false: warning', () => {
    const cm = (v: string) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: tidb-scheduler-config, namespace: tidb-admin}\ndata:\n  scheduler-config.yaml: |-\n    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n    leaderElection:\n      leaderElect: ${v}\n      resourceNamespace: tidb-admin\n`;
    const mounted = ctrl({ volumes: '        volumeMounts: [{name: scheduler-config, mountPath: /etc/kubernetes}]\n      volumes: [{name: scheduler-config, configMap: {name: tidb-scheduler-config}}]\n' });
    const [f] = runRule(pdbMissing, mounted + cm('true'));
    expect(f.severity).toBe('info');
    expect(f.message).toContain('it runs leader election (leaderElect: true in ConfigMap/tidb-scheduler-config, which container "tidb-operator" mounts)');
    expect(sev(mounted + cm('false'))).toEqual(['warning']);
    // Written false in the config, a lease grant says nothing more.
    expect(sev(mounted.replace('    spec:\n', `    spec:\n      ${sa}\n`) + cm('false') + rbac(leases))).toEqual(['warning']);
    // Not mounted by a container: no evidence.
    expect(sev(ctrl({ volumes: '      volumes: [{name: scheduler-config, configMap: {name: tidb-scheduler-config}}]\n' }) + cm('true'))).toEqual(['warning']);
  });
});
