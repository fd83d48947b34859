/**
 * Catalog entries of review round 34: JupyterHub's hub and configurable-http-proxy, kube-scheduler
 * (z2jh's user-scheduler), report p51 items 2-4; TiDB Operator v2's controller-runtime ports,
 * report p50 item 3.
 */
import * as yaml from 'js-yaml';
import { builtinCatalog, isProcessLocalProbe, singleVersionProgram } from '../../lib/catalog';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { Workload, workloadOf } from '../../lib/model/workload';
import { ALL_RULES } from '../../lib/rules';
import { runRule } from '../helpers/rule-tester';

const rule = (id: string) => ALL_RULES.find((r) => r.meta.id === id)!;
const c = (o: string) => yaml.load(o) as JsonObject;

function deployment(container: string, strategy = 'Recreate'): Workload {
  const w = parseText('t.yaml', `apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  replicas: 1
  strategy: {type: ${strategy}}
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
      - ${container}
`).objects.map(workloadOf).find((x) => x !== undefined);
  if (!w) throw new Error('no workload');
  return w;
}

describe('process-local probes: JupyterHub hub, configurable-http-proxy, kube-scheduler', () => {
  test.each([
    // The hub's HealthCheckHandler: `pass` (jupyterhub-hub-health); only the default base_url's paths.
    ["{image: 'quay.io/jupyterhub/k8s-hub:4.2.0', ports: [{name: http, containerPort: 8081}]}", '{httpGet: {path: /hub/health, port: http}}', true],
    ["{image: 'jupyterhub/k8s-hub:3.3.8'}", '{httpGet: {path: /hub/api/health, port: 8081}}', true],
    ["{image: 'quay.io/jupyterhub/k8s-hub-slim:4.2.0'}", '{httpGet: {path: /hub/health, port: 8081}}', true],
    ["{image: 'quay.io/jupyterhub/jupyterhub:5.3'}", '{httpGet: {path: /hub/health, port: 8000}}', true],
    ["{image: 'quay.io/jupyterhub/k8s-hub:4.2.0'}", '{httpGet: {path: /jhub/hub/health, port: 8081}}', false],
    ["{image: 'quay.io/jupyterhub/k8s-hub:4.2.0'}", '{httpGet: {path: /hub/api, port: 8081}}', false],
    ["{image: 'quay.io/jupyterhub/k8s-singleuser-sample:4.2.0'}", '{httpGet: {path: /hub/health, port: 8888}}', false],
    // CHP's handleHealthCheck: {"status": "OK"} (configurable-http-proxy-healthz).
    ["{image: 'quay.io/jupyterhub/configurable-http-proxy:5.3.0', ports: [{name: http, containerPort: 8000}]}", '{httpGet: {path: /_chp_healthz, port: http, scheme: HTTP}}', true],
    ["{image: 'jupyterhub/configurable-http-proxy:4.5.0'}", '{httpGet: {path: /_chp_healthz, port: https, scheme: HTTPS}}', true],
    ["{image: 'quay.io/jupyterhub/configurable-http-proxy:5.3.0'}", '{httpGet: {path: /, port: 8000}}', false],
    ["{image: 'example/proxy:1'}", '{httpGet: {path: /_chp_healthz, port: 8000}}', false],
    // kube-scheduler: /healthz is the leader-election watchdog (or ping), /livez the ping; /readyz adds more.
    ["{image: 'registry.k8s.io/kube-scheduler:v1.33.9'}", '{httpGet: {path: /healthz, scheme: HTTPS, port: 10259}}', true],
    ["{image: 'registry.k8s.io/scheduler-plugins/kube-scheduler:v0.31.8'}", '{httpGet: {path: /livez, scheme: HTTPS, port: 10259}}', true],
    ["{image: 'registry.k8s.io/kube-scheduler:v1.33.9'}", '{httpGet: {path: /readyz, scheme: HTTPS, port: 10259}}', false],
    ["{image: 'registry.k8s.io/kube-scheduler:v1.33.9', command: [kube-scheduler, --secure-port=10260]}", '{httpGet: {path: /healthz, scheme: HTTPS, port: 10260}}', true],
    ["{image: 'registry.k8s.io/kube-controller-manager:v1.33.9'}", '{httpGet: {path: /healthz, scheme: HTTPS, port: 10257}}', false],
  ])('%s %s -> %s', (container, p, expected) => expect(isProcessLocalProbe(c(container), c(p))).toBe(expected));
});

describe('TiDB Operator v2: 8080 is the controller-runtime metrics port (--metrics-bind-address)', () => {
  const fact = (command: string[], args: string[] = [], image = 'pingcap/tidb-operator:v2.0.0') => builtinCatalog().monitoringPort({ image, command, args } as unknown as JsonObject);
  test("the chart's args: the default :8080", () => {
    const r = fact(['/tidb-operator'], ['--backup-manager-image=pingcap/tidb-backup-manager:v2.0.0']);
    expect([r?.entry.id, r?.port, r?.derivation]).toEqual(['tidb-operator-v2-metrics', 8080, 'default 8080']);
  });
  test('--metrics-bind-address moves it, in either Go flag form', () => {
    expect(fact(['/tidb-operator'], ['--metrics-bind-address=:9090'])?.port).toBe(9090);
    expect(fact(['/tidb-operator'], ['-metrics-bind-address', '0.0.0.0:9091'])?.port).toBe(9091);
  });
  test.each([
    [['/usr/local/bin/tidb-controller-manager'], 'pingcap/tidb-operator:v1.6.6'],
    [['/usr/local/bin/tidb-discovery'], 'pingcap/tidb-operator:v1.6.6'],
    [['/tidb-operator'], 'example/tidb-operator:v2.0.0'],
  ])('%j on %s does not match', (command, image) => expect(fact(command, [], image)).toBeUndefined());
});

describe('single-version: configurable-http-proxy and the JupyterHub hub', () => {
  test.each([
    ['quay.io/jupyterhub/configurable-http-proxy:5.3.0', 'configurable-http-proxy'],
    ['jupyterhub/configurable-http-proxy:4.5.0', 'configurable-http-proxy'],
    ['quay.io/jupyterhub/k8s-hub:4.2.0', 'jupyterhub-hub'],
    ['quay.io/jupyterhub/k8s-hub-slim:4.2.0', 'jupyterhub-hub'],
    ['jupyterhub/k8s-hub:3.3.8', 'jupyterhub-hub'],
  ])('%s matches %s', (image, id) => expect(singleVersionProgram(deployment(`{name: c, image: '${image}'}`))?.entry.id).toBe(id));
  test.each([['quay.io/jupyterhub/k8s-singleuser-sample:4.2.0'], ['quay.io/jupyterhub/k8s-image-awaiter:4.2.0'], ['traefik:v3.3.5'], ['quay.io/jupyterhub/k8s-secret-sync:4.2.0']])('%s does not match', (image) =>
    expect(singleVersionProgram(deployment(`{name: c, image: '${image}'}`))).toBeUndefined(),
  );
});

// The reviewer's reproducers, trimmed (review round 34, report p51 repro/02, 03, 04; report p50 repro/03 with the chart's other objects).
describe('the reviewer\'s reproducers', () => {
  const hub = `apiVersion: apps/v1
kind: Deployment
metadata: {name: hub, namespace: jhub}
spec:
  replicas: 1
  strategy: {type: STRATEGY}
  selector: {matchLabels: {component: hub}}
  template:
    metadata: {labels: {component: hub}}
    spec:
      containers:
        - name: hub
          image: quay.io/jupyterhub/k8s-hub:4.2.0
          args: [jupyterhub, --config, /usr/local/etc/jupyterhub/jupyterhub_config.py, --upgrade-db]
          ports: [{name: http, containerPort: 8081}]
          livenessProbe: {initialDelaySeconds: 300, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 30, httpGet: {path: /hub/health, port: http}}
          readinessProbe: {periodSeconds: 2, timeoutSeconds: 1, failureThreshold: 1000, httpGet: {path: /hub/health, port: http}}
---
apiVersion: v1
kind: Service
metadata: {name: hub, namespace: jhub}
spec:
  selector: {component: hub}
  ports: [{name: hub, port: 8081, targetPort: http}]
`;
  const chp = `apiVersion: apps/v1
kind: Deployment
metadata: {name: proxy, namespace: jhub}
spec:
  replicas: 1
  strategy: {type: STRATEGY}
  selector: {matchLabels: {component: proxy}}
  template:
    metadata: {labels: {component: proxy}}
    spec:
      containers:
        - name: chp
          image: quay.io/jupyterhub/configurable-http-proxy:5.3.0
          command: [configurable-http-proxy]
          args: ["--ip=", "--api-ip=", --api-port=8001, "--default-target=http://hub:8081", --port=8000]
          ports: [{name: http, containerPort: 8000}, {name: api, containerPort: 8001}]
          livenessProbe: {initialDelaySeconds: 60, periodSeconds: 10, failureThreshold: 30, httpGet: {path: /_chp_healthz, port: http}}
          readinessProbe: {periodSeconds: 2, failureThreshold: 1000, httpGet: {path: /_chp_healthz, port: http}}
---
apiVersion: v1
kind: Service
metadata: {name: proxy-public, namespace: jhub}
spec:
  type: LoadBalancer
  selector: {component: proxy}
  ports: [{name: http, port: 80, targetPort: http}]
`;
  const scheduler = `apiVersion: apps/v1
kind: Deployment
metadata: {name: user-scheduler, namespace: jhub}
spec:
  replicas: 2
  selector: {matchLabels: {component: user-scheduler}}
  template:
    metadata: {labels: {component: user-scheduler}}
    spec:
      containers:
        - name: kube-scheduler
          image: registry.k8s.io/kube-scheduler:v1.33.9
          command: [/usr/local/bin/kube-scheduler, --config=/etc/user-scheduler/config.yaml, --authentication-skip-lookup=true, --v=4]
          livenessProbe: {httpGet: {path: /healthz, scheme: HTTPS, port: 10259}, initialDelaySeconds: 15}
          readinessProbe: {httpGet: {path: /healthz, scheme: HTTPS, port: 10259}}
`;
  test('liveness-equals-readiness: silent on the hub, CHP and kube-scheduler probes (process-local handlers)', () => {
    for (const y of [hub.replace(/STRATEGY/, 'Recreate'), chp.replace(/STRATEGY/, 'Recreate'), scheduler]) expect(runRule(rule('liveness-equals-readiness'), y)).toEqual([]);
  });
  test('recreate-strategy: Recreate on the hub and on CHP is required, RollingUpdate is a warning', () => {
    for (const [y, id] of [[hub, 'jupyterhub-hub'], [chp, 'configurable-http-proxy']]) {
      const recreate = runRule(rule('recreate-strategy'), y.replace(/STRATEGY/, 'Recreate'));
      expect(recreate.map((f) => [f.severity, f.message.includes(`is required here`) && f.message.includes(`catalog entry ${id}`)])).toEqual([['info', true]]);
      const rolling = runRule(rule('recreate-strategy'), y.replace(/STRATEGY/, 'RollingUpdate'));
      expect(rolling.map((f) => [f.severity, f.message.includes(`catalog entry ${id}`) && f.message.includes('use strategy.type: Recreate')])).toEqual([['warning', true]]);
    }
  });
  // The v2 chart: a Deployment declaring http/8080, probes on undeclared 8081, no Service; its
  // ServiceAccount makes the input a chart render of the namespace.
  const tidb = (replicas: number) => `apiVersion: v1
kind: ServiceAccount
metadata: {name: tidb-operator, namespace: tidb-admin}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: tidb-operator, namespace: tidb-admin}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app.kubernetes.io/name: tidb-operator}}
  template:
    metadata: {labels: {app.kubernetes.io/name: tidb-operator}}
    spec:
      serviceAccountName: tidb-operator
      containers:
      - name: tidb-operator
        image: pingcap/tidb-operator:v2.0.0
        command: [/tidb-operator]
        args: [--backup-manager-image=pingcap/tidb-backup-manager:v2.0.0]
        ports: [{containerPort: 8080, name: http, protocol: TCP}]
        livenessProbe: {httpGet: {path: /healthz, port: 8081}, initialDelaySeconds: 15, periodSeconds: 20}
        readinessProbe: {httpGet: {path: /readyz, port: 8081}, initialDelaySeconds: 5, periodSeconds: 10}
`;
  test.each([['prestop-missing', 1], ['prestop-missing', 2], ['replicas-not-spread', 2]])('TiDB Operator v2: %s is silent (replicas %d)', (id, replicas) => {
    expect(runRule(rule(id as string), tidb(replicas as number))).toEqual([]);
  });
  // Its health port 8081 (controller-runtime's --health-probe-bind-address default, healthz.Ping on
  // /healthz and /readyz) is the program's own, probed undeclared: catalog tidb-operator-v2-health
  // (review round 34, report p50 item 3; pinnable since probe-port's info is linter-only).
  test('TiDB Operator v2: probe-port is silent on its undeclared health port 8081, and reports another', () => {
    expect(runRule(rule('probe-port'), tidb(1))).toEqual([]);
    expect(runRule(rule('probe-port'), tidb(1).replace(/port: 8081/g, 'port: 8082')).map((f) => f.severity)).toEqual(['info']);
  });
});
