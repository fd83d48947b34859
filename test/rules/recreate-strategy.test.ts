import { builtinCatalog, CatalogError, parseCatalogOverride } from '../../lib/catalog';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { recreateStrategy } from '../../lib/rules/recreate-strategy';
import { ruleTester, runRule } from '../helpers/rule-tester';

interface Opts {
  replicas?: number;
  strategy?: string;
  volumes?: string;
  annotations?: string;
  service?: boolean;
  extra?: string;
  image?: string;
  /** More fields of the container (flow map entries, after the ports). */
  container?: string;
}

function deploy(o: Opts = {}): string {
  const svc = o.service === false
    ? ''
    : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}  strategy: ${o.strategy ?? '{type: Recreate}'}
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: [{name: app, image: ${o.image ?? 'web:1'}, ports: [{containerPort: 8080}]${o.container ?? ''}}]
${o.volumes ? `      volumes: ${o.volumes}\n` : ''}${svc}${o.extra ?? ''}`;
}

const pvc = (name: string, modes?: string) => `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
${modes ? `  accessModes: ${modes}\n` : ''}  resources: {requests: {storage: 1Gi}}
`;
const claim = (name: string) => `{name: ${name}, persistentVolumeClaim: {claimName: ${name}}}`;
const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: ${min}
  maxReplicas: 10
`;

/** RBAC binding the default ServiceAccount to a role without leases (no leader election). */
const RBAC_NO_LEASES = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: web}
rules: [{apiGroups: [flyte.lyft.com], resources: [flyteworkflows], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: web}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: web}
subjects: [{kind: ServiceAccount, name: default, namespace: default}]
`;

ruleTester(recreateStrategy, {
  valid: [
    // Review round 18 (flyte-binary: one replica, Recreate, a controller without leader election).
    { name: "Recreate with replicas 1 whose ServiceAccount's roles grant no leader-election lock: a singleton", yaml: deploy({ replicas: 1, extra: RBAC_NO_LEASES }) },
    // The deprecated serviceAccount field names the ServiceAccount when serviceAccountName is absent (the API
    // server copies it over; the v1.6 tidb-operator chart writes it).
    {
      name: 'the same, the ServiceAccount named by the deprecated serviceAccount field',
      yaml: deploy({ replicas: 1, extra: RBAC_NO_LEASES.replace('name: default, namespace: default', 'name: ctl, namespace: default') }).replace('    spec:\n      containers:', '    spec:\n      serviceAccount: ctl\n      containers:'),
    },
    // One pod holding a GPU or binding host ports: surge first is no repair (the surge pod waits for a spare
    // device, or for a node without the ports), so the one-replica info is not given.
    { name: 'one replica requesting a GPU: Recreate is the trade (surge-resource-deadlock)', yaml: deploy({ container: ', resources: {limits: {nvidia.com/gpu: 1}}' }) },
    { name: 'one replica binding a host port', yaml: deploy({ container: '' }).replace('ports: [{containerPort: 8080}]', 'ports: [{containerPort: 8080, hostPort: 8080}]') },
    { name: 'RollingUpdate with replicas 3', yaml: deploy({ replicas: 3, strategy: '{type: RollingUpdate}' }) },
    { name: 'Recreate justified by a ReadWriteOnce PVC', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]`, extra: pvc('data', '[ReadWriteOnce]') }) },
    { name: 'Recreate justified by a ReadWriteOncePod PVC', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]`, extra: pvc('data', '[ReadWriteOncePod]') }) },
    { name: 'Recreate justified by a claim whose PVC is not in the set (mode unknown)', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]` }) },
    { name: 'PVC without accessModes: unknown, justified', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]`, extra: pvc('data') }) },
    { name: 'one RWX and one RWO claim: the RWO one justifies it', yaml: deploy({ replicas: 3, volumes: `[${claim('shared')}, ${claim('data')}]`, extra: pvc('shared', '[ReadWriteMany]') + pvc('data', '[ReadWriteOnce]') }) },
    { name: 'unserved: another Service in the namespace, none selects the pods', yaml: deploy({ replicas: 3, service: false }) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {selector: {app: other}, ports: [{port: 80}]}\n' },
    // Review report p26 item 1: the external-dns chart's Service reaches only the metrics and health server
    // (port http, 7979, for its ServiceMonitor); external-dns has no leader election and its chart uses Recreate.
    { name: 'external-dns: a Service on its --metrics-address port only (catalog monitoring-port), unserved', yaml: deploy({ replicas: 1, image: 'registry.k8s.io/external-dns/external-dns:v0.21.0', container: ', args: [--source=service, --provider=aws, --metrics-address=:8080]' }) },
    // Review round 33, report p43 item 1: the kuberay-operator chart's Service reaches controller-runtime's metrics server,
    // bound on :8080 by default (the chart passes no --metrics-addr), for its ServiceMonitor.
    { name: 'KubeRay operator: a Service on its default metrics port only (catalog monitoring-port), unserved', yaml: deploy({ replicas: 2, image: 'quay.io/kuberay/operator:v1.4.2', container: ', command: [/manager], args: [--enable-leader-election=true, --enable-metrics=true]' }) },
    { name: 'served hint "false" wins over the Service', yaml: deploy({ replicas: 3, annotations: '"kubegrace.dev/served": "false"' }) },
    // Review rounds 21 and 22: a single-version program under a RollingUpdate.
    { name: 'Kibana with a RollingUpdate that removes every old pod first: rollout-full-outage\'s', yaml: deploy({ replicas: 1, image: 'kibana:8.15.0', strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}' }) },
    { name: 'a celery worker without beat', yaml: deploy({ replicas: 1, strategy: '{type: RollingUpdate}', container: ", command: [sh, -c, 'celery --app=tasks worker --concurrency 4']" }) },
    { name: 'celery beat under Recreate, unserved', yaml: deploy({ replicas: 1, service: false, container: ", command: [celery, -A, tasks, beat]" }).replace('ports: [{containerPort: 8080}], ', '') },
    // Review round 34, report p52 item 1: the image of Zammad's singletons also runs puma and nginx, which scale.
    { name: 'Zammad rails server (puma) from the same image, rolling: not a singleton', yaml: deploy({ replicas: 2, strategy: '{type: RollingUpdate}', image: 'ghcr.io/zammad/zammad:7.1.2-0013', container: ', command: [bundle, exec, puma, -b, "tcp://[::]:3000", -w, "0"]' }) },
    { name: 'Zammad nginx from the same image, rolling: not a singleton', yaml: deploy({ replicas: 2, strategy: '{type: RollingUpdate}', image: 'ghcr.io/zammad/zammad:7.1.2-0013', container: ", command: [/usr/sbin/nginx, -g, 'daemon off;']" }) },
  ],
  invalid: [
    {
      name: 'KubeRay operator whose --metrics-addr moves the metrics server off the port the Service reaches: served',
      yaml: deploy({ replicas: 2, image: 'quay.io/kuberay/operator:v1.4.2', container: ', command: [/manager], args: [--metrics-addr=:9090]' }),
      findings: [{ severity: 'warning', message: 'strategy Recreate with replicas 2 on a served workload' }],
    },
    {
      name: 'Kibana with the default RollingUpdate: old and new side by side, served or not',
      yaml: deploy({ replicas: 2, image: 'docker.elastic.co/kibana/kibana:8.15.0', service: false, strategy: '{type: RollingUpdate}' }),
      findings: [{ severity: 'warning', object: 'Deployment/web', message: 'strategy RollingUpdate with replicas 2 runs old and new pods side by side (maxSurge "25%" (default) resolves to 1: a new pod starts while the old ones run), but container "app" runs Kibana (does not support rolling upgrades; catalog entry kibana), which must not run that way; use strategy.type: Recreate' }],
    },
    {
      // Apache Superset's celery beat Deployment: one replica, no strategy.
      name: 'celery beat in a shell script with the default strategy: warning (duplicate periodic tasks)',
      yaml: deploy({ replicas: 1, service: false, container: ", command: [/bin/sh, -c, '. /app/bootstrap.sh; celery --app=superset.tasks.celery_app:app beat --pidfile /tmp/celerybeat.pid']" }).replace('  strategy: {type: Recreate}\n', ''),
      findings: [{ severity: 'warning', message: 'runs Celery beat (the periodic task scheduler, one at a time; catalog entry celery-beat)' }],
    },
    {
      name: 'a celery worker with beat embedded (-B): the same scheduler',
      yaml: deploy({ replicas: 1, strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', container: ", command: [celery, -A, tasks, worker, -B, -l, info]" }),
      findings: [{ severity: 'warning', message: 'catalog entry celery-beat' }],
    },
    {
      // Review round 34, report p47 item A: the SonarSource sonarqube chart with deploymentType Deployment (Recreate by default).
      name: 'standalone SonarQube under Recreate: required (one server per database), said as an info without RollingUpdate advice',
      yaml: deploy({ replicas: 1, image: 'sonarqube:26.7.0.124771-community' }),
      findings: [{ severity: 'info', message: /^strategy Recreate with replicas 1 is required here: container "app" runs SonarQube Server or Community Build, standalone \(one server per database; catalog entry sonarqube-standalone\), of which two instances must not run at once, whatever their versions, which a RollingUpdate would do\. The price .*keep the termination and the startup short$/ }],
    },
    {
      // Review round 34, report p47: "There should not be more than 1 SonarQube instance connected to
      // the same database"; two replicas run two at once whatever the strategy (overlap: instances).
      name: 'standalone SonarQube on two replicas under Recreate: the info also says the replicas run at once',
      yaml: deploy({ replicas: 2, image: 'sonarqube:26.7.0.124771-community' }),
      findings: [{ severity: 'info', message: /, of which two instances must not run at once, whatever their versions, which a RollingUpdate would do\. .*keep the termination and the startup short; and with replicas 2, 2 instances run at once whatever the strategy, which this program must not do either: it needs one replica$/ }],
    },
    {
      name: 'celery beat on two replicas with a RollingUpdate: the warning also says one replica',
      yaml: deploy({ replicas: 2, service: false, strategy: '{type: RollingUpdate}', container: ", command: [celery, -A, proj, beat]" }),
      findings: [{ severity: 'warning', message: /catalog entry celery-beat\), of which two instances must not run at once, whatever their versions; use strategy\.type: Recreate, .*; and with replicas 2, 2 instances run at once whatever the strategy, which this program must not do either: it needs one replica$/ }],
    },
    {
      // Review round 34, report p47 item B: the same with deploymentStrategy.type RollingUpdate.
      name: 'standalone SonarQube with a RollingUpdate: two servers on one database during the rollout',
      yaml: deploy({ replicas: 1, image: 'sonarqube:2026.4.0-enterprise', strategy: '{type: RollingUpdate}' }),
      // (catalog overlap: instances: two servers on one database, whatever their versions.)
      findings: [{ severity: 'warning', message: 'runs SonarQube Server or Community Build, standalone (one server per database; catalog entry sonarqube-standalone), of which two instances must not run at once, whatever their versions; use strategy.type: Recreate' }],
    },
    {
      // Review round 34, report p52 item 1: the zammad-helm chart's websocket Deployment (Recreate, capped at one replica).
      name: 'the Zammad websocket server under Recreate: required, said as an info',
      yaml: deploy({ replicas: 1, image: 'ghcr.io/zammad/zammad:7.1.2-0013', container: ', command: [bundle, exec, script/websocket-server.rb, -b, "::", -p, "6042", start]' }),
      findings: [{ severity: 'info', message: 'strategy Recreate with replicas 1 is required here: container "app" runs Zammad websocket server or background worker (one per installation; catalog entry zammad-singleton)' }],
    },
    {
      name: 'the Zammad background worker with the default strategy, unserved: warning',
      yaml: deploy({ replicas: 1, service: false, image: 'ghcr.io/zammad/zammad:7.1.2-0013', container: ', command: [bundle, exec, script/background-worker.rb, start]' }).replace('  strategy: {type: Recreate}\n', ''),
      findings: [{ severity: 'warning', message: /catalog entry zammad-singleton\), of which two instances must not run at once, whatever their versions; use strategy\.type: Recreate, .* on every rollout\)$/ }],
    },
    {
      // The quickwit chart hard-codes Recreate and one replica for the control plane (review round 22).
      name: 'the Quickwit control plane under Recreate: required, said as an info',
      yaml: deploy({ replicas: 1, image: 'quickwit/quickwit:v0.8.2', container: ', args: [run, --service, control_plane]' }),
      findings: [{ severity: 'info', message: 'strategy Recreate with replicas 1 is required here: container "app" runs Quickwit control plane (one per cluster; catalog entry quickwit-control-plane)' }],
    },
    {
      // Review round 26: the yunikorn chart rolls its one scheduler with the default RollingUpdate.
      name: 'the YuniKorn scheduler under the default strategy: warning; its plugin build and admission controller are not matched',
      yaml: ['apache/yunikorn:scheduler-1.6.0', 'apache/yunikorn:scheduler-plugin-1.6.0', 'apache/yunikorn:admission-1.6.0']
        .map((img, i) => deploy({ replicas: 1, service: false, image: img }).replace('  strategy: {type: Recreate}\n', '').replace(/\bweb\b/g, `web${i}`))
        .join('---\n'),
      findings: [{ severity: 'warning', message: 'runs Apache YuniKorn scheduler (standalone; one instance, no leader election; catalog entry yunikorn-scheduler)' }],
    },
    {
      // Review round 25: the kube-arangodb chart runs its operator with --mode.single (no leader election) under Recreate.
      name: 'the ArangoDB operator in single mode under Recreate: required, said as an info; without the flag it elects a leader',
      yaml:
        deploy({ replicas: 1, image: 'arangodb/kube-arangodb:1.4.4', container: ', args: [--operator.deployment, --mode.single]' }) +
        '---\n' +
        deploy({ replicas: 1, image: 'arangodb/kube-arangodb:1.4.4', container: ', args: [--operator.deployment]' }).replace(/\b(web)\b/g, 'web1'),
      findings: [
        { severity: 'info', message: 'strategy Recreate with replicas 1 is required here: container "app" runs ArangoDB Kubernetes operator in single mode (--mode.single, no leader election; catalog entry kube-arangodb-single-mode)' },
        { severity: 'info', message: /^strategy Recreate with replicas 1 (?!is required)/ },
      ],
    },
    {
      // Review round 30 (report p21 item 2): the nextcloud chart's prod values (3 replicas, RWX claim, Recreate). The
      // image's entrypoint rsyncs the new release over the shared /var/www/html and runs occ upgrade at start.
      name: 'Nextcloud under Recreate with 3 replicas: required, said as an info; under a RollingUpdate: warning; Nextcloud AIO is not matched',
      yaml:
        deploy({ replicas: 3, image: 'docker.io/library/nextcloud:34.0.1-apache' }) +
        '---\n' +
        deploy({ replicas: 2, service: false, image: 'lscr.io/linuxserver/nextcloud:31.0.0', strategy: '{type: RollingUpdate}' }).replace(/\b(web)\b/g, 'web1') +
        '---\n' +
        deploy({ replicas: 1, service: false, image: 'nextcloud/aio-nextcloud:latest', strategy: '{type: RollingUpdate}' }).replace(/\b(web)\b/g, 'web2'),
      findings: [
        { severity: 'info', object: 'Deployment/web', message: 'strategy Recreate with replicas 3 is required here: container "app" runs Nextcloud (the image upgrades the shared installation at start; catalog entry nextcloud)' },
        { severity: 'warning', object: 'Deployment/web1', message: 'runs Nextcloud (the image upgrades the shared installation at start; catalog entry nextcloud), which must not run that way; use strategy.type: Recreate' },
      ],
    },
    {
      // Review round 13: jitsi's JVB bridges bind hostPort 10000; the chart forces Recreate with it. A surge
      // pod needs a node that runs none of them, so the advice is one pod at a time.
      name: 'Recreate with 3 replicas that bind a host port: warning, advising maxSurge 0, maxUnavailable 1',
      yaml: deploy({ replicas: 3 }).replace('ports: [{containerPort: 8080}]', 'ports: [{containerPort: 8080, hostPort: 8080}]'),
      findings: [
        {
          severity: 'warning',
          message: 'use RollingUpdate with {maxSurge: 0, maxUnavailable: 1}: the pods bind host ports (container "app" hostPort 8080), so a surge pod would need a node that runs none of them (see spread-blocks-surge), while replacing one pod at a time keeps the others serving',
        },
      ],
    },
    // One replica: info (ROLL-005's warning is for replicated workloads; one replica may be a singleton).
    // opensearch-dashboards' chart: Recreate on its one stateless, served replica.
    {
      name: 'Recreate with replicas 1 (default): info, the outage the default RollingUpdate avoids, and the singleton case',
      yaml: deploy(),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/strategy/type',
          message: /^strategy Recreate with replicas 1 \(default\) on a served workload: the pod is terminated before its replacement starts, .*unless the program must never run twice at once/,
        },
      ],
    },
    { name: 'Recreate with replicas 1', yaml: deploy({ replicas: 1 }), findings: [{ severity: 'info', message: 'strategy Recreate with replicas 1 on a served workload' }] },
    {
      name: 'Recreate with replicas 1 whose roles grant leases (it can elect a leader): reported',
      yaml: deploy({ replicas: 1, extra: RBAC_NO_LEASES.replace('rules: [{apiGroups: [flyte.lyft.com]', 'rules: [{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}, {apiGroups: [flyte.lyft.com]') }),
      findings: [{ severity: 'info', message: 'strategy Recreate with replicas 1 on a served workload' }],
    },
    { name: 'HPA minReplicas 1 is what counts, not replicas 3: info', yaml: deploy({ replicas: 3, extra: hpa(1) }), findings: [{ severity: 'info' }] },
    {
      name: 'Kibana (catalog single-version: no rolling upgrades): Recreate is required, reported as info with its price, and RollingUpdate is not advised',
      yaml: deploy({ replicas: 2, image: 'docker.elastic.co/kibana/kibana:8.5.1', container: ', readinessProbe: {exec: {command: [sh, -c, "curl -f localhost:5601/app/kibana"]}, initialDelaySeconds: 10, periodSeconds: 10, successThreshold: 3}' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/strategy/type',
          message:
            'strategy Recreate with replicas 2 is required here: container "app" runs Kibana (does not support rolling upgrades; catalog entry kibana), whose old and new versions must not run side by side, which a RollingUpdate would do. The price is a full outage on every rollout, from the start of the old pods\' termination (each may take up to its grace period, 30s (default)) until a new pod is Ready (about 30s after it starts: "app": readinessProbe initialDelaySeconds 10 + (successThreshold 3 - 1) x periodSeconds 10 (probes pass at the first try; image pull and process start not counted)); roll out when that outage is acceptable, and keep the termination and the startup short',
        },
      ],
    },
    {
      name: 'Kibana from Docker Hub, grace 60s, no probes: the price says so; alone in its file, assumed served and said so',
      yaml: deploy({ replicas: 3, image: 'kibana:7.17.0', service: false }).replace('    spec:\n', '    spec:\n      terminationGracePeriodSeconds: 60\n'),
      findings: [{ severity: 'info', message: /grace period, 60s\) until a new pod is Ready \(about 0s after it starts: no readiness or startup probe.*\(served status unknown: no Service in the input selects it, but it declares port 8080/ }],
    },
    {
      name: 'SonarQube DCE application nodes (catalog single-version, the image tag -datacenter-app; the sonarqube-dce chart hard-codes Recreate): info with its price',
      yaml: deploy({ replicas: 2, image: 'sonarqube:2026.4.0-datacenter-app', container: ', startupProbe: {httpGet: {path: /api/system/status, port: 8080}, initialDelaySeconds: 45, periodSeconds: 10, failureThreshold: 32}' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/strategy/type',
          message: /^strategy Recreate with replicas 2 is required here: container "app" runs SonarQube Server Data Center Edition application node \(cluster upgrades need downtime; catalog entry sonarqube-dce-app\), whose old and new versions must not run side by side, which a RollingUpdate would do\. The price is a full outage on every rollout/,
        },
      ],
    },
    {
      name: 'the same repository with a search-node tag is no application node: judged as before',
      yaml: deploy({ replicas: 2, image: 'sonarqube:2026.4.0-datacenter-search' }),
      findings: [{ severity: 'warning', message: 'use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}' }],
    },
    {
      // Review round 34, report p47: single-server SonarQube is a single-version program too (entry sonarqube-standalone).
      name: 'single-server SonarQube (community tag) is not a DCE application node, but the standalone entry: Recreate required',
      yaml: deploy({ replicas: 2, image: 'sonarqube:26.7.0.124771-community' }),
      findings: [{ severity: 'info', message: 'strategy Recreate with replicas 2 is required here: container "app" runs SonarQube Server or Community Build, standalone (one server per database; catalog entry sonarqube-standalone)' }],
    },
    {
      name: 'an image that is not Kibana is judged as before',
      yaml: deploy({ replicas: 2, image: 'example.com/kibana-proxy:1' }),
      findings: [{ severity: 'warning', message: 'use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}' }],
    },
    {
      name: 'unknown served (no Service in the set), port 8080 declared: assumed served, and said so',
      yaml: deploy({ replicas: 3, service: false }),
      findings: [{ severity: 'warning', message: /strategy Recreate with replicas 3 on a served workload.*\(served status unknown: no Service in the input selects it, but it declares port 8080/ }],
    },
    {
      name: 'Recreate with replicas 3 on a served Deployment',
      yaml: deploy({ replicas: 3 }),
      findings: [{ severity: 'warning', pointer: '/spec/strategy/type', object: 'Deployment/web', message: 'strategy Recreate with replicas 3 on a served workload: every pod is terminated before any new one starts' }],
    },
    {
      name: 'a ReadWriteMany-only claim does not justify Recreate',
      yaml: deploy({ replicas: 2, volumes: `[${claim('shared')}]`, extra: pvc('shared', '[ReadWriteMany]') }),
      findings: [{ severity: 'warning', message: 'its claims "shared" allow multi-node access' }],
    },
    {
      name: 'an emptyDir is no exclusive volume',
      yaml: deploy({ replicas: 2, volumes: '[{name: tmp, emptyDir: {}}]' }),
      findings: [{ severity: 'warning', message: 'replicas 2' }],
    },
    {
      name: 'HPA minReplicas 2 with spec.replicas 1',
      yaml: deploy({ replicas: 1, extra: hpa(2) }),
      findings: [{ severity: 'warning', message: 'strategy Recreate with HPA minReplicas 2 (HorizontalPodAutoscaler/web)' }],
    },
    {
      name: 'served by the hint alone',
      yaml: deploy({ replicas: 2, service: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: deploy({ replicas: 2, annotations: '"kubegrace.dev/ignore": "recreate-strategy", "kubegrace.dev/ignore-reason": "schema migrations need a single version"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

test('recreate-strategy: a policy can add its own single-version program (spec.catalog)', () => {
  const catalog = builtinCatalog().withOverride({ add: [{ id: 'acme-ledger', kind: 'single-version', title: 'ACME ledger (one schema version at a time)', match: { images: ['*/acme/ledger'] }, why: 'migrates its schema at start; old writers corrupt it', source: ['ACME runbook LED-7'] }] });
  const yaml = deploy({ replicas: 2, image: 'registry.example.com/acme/ledger:3' });
  const r = lintSources([{ file: 'test.yaml', text: yaml }], { rules: [recreateStrategy], policy: { name: 'test', rules: new Map(), customRules: [], catalog }, version: KubeVersion.parse('1.33') });
  expect(r.findings.map((f) => f.severity)).toEqual(['info']);
  expect(r.findings[0].message).toContain('is required here: container "app" runs ACME ledger (one schema version at a time; catalog entry acme-ledger), whose old and new versions must not run side by side');
  expect(runRule(recreateStrategy, yaml).map((f) => f.severity)).toEqual(['warning']);
});

test('recreate-strategy: versions entries keep their wording, and name no replica count (Kibana runs several instances of one version)', () => {
  const info = runRule(recreateStrategy, deploy({ replicas: 3, image: 'docker.elastic.co/kibana/kibana:8.15.0' }));
  expect(info.map((f) => f.severity)).toEqual(['info']);
  expect(info[0].message).toContain('whose old and new versions must not run side by side, which a RollingUpdate would do');
  expect(info[0].message).not.toMatch(/instances|one replica/);
  const warn = runRule(recreateStrategy, deploy({ replicas: 3, image: 'docker.elastic.co/kibana/kibana:8.15.0', strategy: '{type: RollingUpdate}' }));
  expect(warn[0].message).toContain('(does not support rolling upgrades; catalog entry kibana), which must not run that way; use strategy.type: Recreate');
  expect(warn[0].message).not.toMatch(/instances|one replica/);
});

test('recreate-strategy: a single-instance program under an HPA that may scale it above one replica', () => {
  const yaml = `${deploy({ replicas: 1, image: 'sonarqube:26.7.0.124771-community' })}---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
`;
  const f = runRule(recreateStrategy, yaml);
  expect(f.map((x) => x.severity)).toEqual(['info']);
  expect(f[0].message).toMatch(/; and HorizontalPodAutoscaler\/web may scale it to 3 instances at once \(maxReplicas 3\), which this program must not do either: it needs one replica$/);
});

test('recreate-strategy: a policy entry with overlap instances is worded as such; overlap is for single-version entries only', () => {
  const catalog = builtinCatalog().withOverride({ add: [{ id: 'acme-cron', kind: 'single-version', overlap: 'instances', title: 'ACME cron (one per cluster)', match: { images: ['*/acme/cron'] }, why: 'fires each job from its own schedule; two fire twice', source: ['ACME runbook CRON-2'] }] });
  const yaml = deploy({ replicas: 1, image: 'registry.example.com/acme/cron:3' });
  const r = lintSources([{ file: 'test.yaml', text: yaml }], { rules: [recreateStrategy], policy: { name: 'test', rules: new Map(), customRules: [], catalog }, version: KubeVersion.parse('1.33') });
  expect(r.findings[0].message).toContain('runs ACME cron (one per cluster; catalog entry acme-cron), of which two instances must not run at once, whatever their versions, which a RollingUpdate would do');
  expect(() => parseCatalogOverride({ add: [{ id: 'acme-x', kind: 'connection-pattern', connectionPattern: 'short', overlap: 'instances', title: 'X', match: { images: ['*/acme/x'] }, why: 'x x x x x x x x', source: ['x x x x x'] }] })).toThrow(CatalogError);
  expect(() => parseCatalogOverride({ add: [{ id: 'acme-y', kind: 'single-version', overlap: 'once', title: 'Y', match: { images: ['*/acme/y'] }, why: 'x x x x x x x x', source: ['x x x x x'] }] })).toThrow(CatalogError);
});

// Review report p35 item 1: Flux's source-controller and source-watcher start the artifact server,
// which their readiness probe and Service reach, only once elected leader (source-controller
// main.go:311-322; upstream chose Recreate for this deadlock in 16c6a075).
const fluxSource = (o: { image?: string; args?: string; strategy?: string; replicas?: number } = {}) => `apiVersion: v1
kind: Service
metadata: {name: source-controller, namespace: flux-system}
spec:
  selector: {app: source-controller}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: source-controller, namespace: flux-system}
spec:
  replicas: ${o.replicas ?? 1}
  selector: {matchLabels: {app: source-controller}}
${o.strategy === undefined ? '  strategy: {type: Recreate}\n' : o.strategy ? `  strategy: ${o.strategy}\n` : ''}  template:
    metadata: {labels: {app: source-controller}}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: manager
        image: ${o.image ?? 'ghcr.io/fluxcd/source-controller:v1.8.2'}
        args: [${o.args ?? '--enable-leader-election, --storage-path=/data'}]
        ports: [{containerPort: 9090, name: http}, {containerPort: 8080, name: http-prom}, {containerPort: 9440, name: healthz}]
        livenessProbe: {httpGet: {path: /healthz, port: healthz}}
        readinessProbe: {httpGet: {path: /, port: http}}
`;

describe('recreate-strategy: Flux source-controller and source-watcher (catalog single-version with overlapStalls)', () => {
  test('one replica under Recreate: required, for the leader-election reason, never surge first', () => {
    for (const image of ['ghcr.io/fluxcd/source-controller:v1.8.2', 'ghcr.io/fluxcd/source-watcher:v2.1.1', 'fluxcd/source-controller:v1.8.2']) {
      const f = runRule(recreateStrategy, fluxSource({ image }));
      expect(f.map((x) => x.severity)).toEqual(['info']);
      expect(f[0].message).toMatch(/^strategy Recreate with replicas 1 is required here: container "manager" runs Flux source-(controller|watcher) \(with leader election; catalog entry flux-source-(controller|watcher)\), and its readiness waits for the leader-election lease the old pod holds \(the artifact server, which its readiness probe and its Service reach on port http, starts only on the leader\): a RollingUpdate that keeps the old pod until a new one is Ready \(surge first\) would stall for good\. The price is a full outage/);
      expect(f[0].message).not.toContain('maxSurge: 1');
      expect(f[0].message).not.toContain('must not run side by side');
    }
  });
  test('the default RollingUpdate: a warning that the rollout stalls for good; Recreate advised', () => {
    const f = runRule(recreateStrategy, fluxSource({ strategy: '' }));
    expect(f.map((x) => x.severity)).toEqual(['warning']);
    expect(f[0].message).toContain('but container "manager" runs Flux source-controller (with leader election; catalog entry flux-source-controller), and its readiness waits for the leader-election lease the old pod holds');
    expect(f[0].message).toContain('so the rollout stalls for good (maxUnavailable resolves to 0: no old pod is removed before a new one is Ready); use strategy.type: Recreate');
  });
  test('without leader election (the flag defaults to false) the server starts at once: judged as before', () => {
    for (const args of ['--storage-path=/data', '--enable-leader-election=false']) {
      const f = runRule(recreateStrategy, fluxSource({ args }));
      expect(f.map((x) => x.severity)).toEqual(['info']);
      expect(f[0].message).toContain('use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}');
    }
  });
});
