import { prestopMissing } from '../../lib/rules/prestop-missing';
import { readinessProbeMissing } from '../../lib/rules/readiness-probe-missing';
import { zeroGracePeriod } from '../../lib/rules/zero-grace-period';
import { runRule } from '../helpers/rule-tester';

/**
 * A numeric targetPort that no container declares (review of apache/flink-kubernetes-operator's
 * chart): which container prestop-missing, readiness-probe-missing and zero-grace-period name, and
 * whether their repair on it is safe.
 */

/** The Flink operator's pod: the operator declares only health-port; the webhook declares nothing. */
const flink = (o: { webhookEnv?: string; grace?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: op-webhook, namespace: flink}
spec:
  selector: {app: op}
  ports:
  - port: 443
    targetPort: 9443
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, namespace: flink}
spec:
  replicas: 2
  selector: {matchLabels: {app: op}}
  template:
    metadata: {labels: {app: op}}
    spec:
${o.grace ?? ''}      containers:
      - name: flink-kubernetes-operator
        image: ghcr.io/apache/flink-kubernetes-operator:1.10.0
        command: [/docker-entrypoint.sh, operator]
        ports:
        - {containerPort: 8085, name: health-port}
        startupProbe: {httpGet: {path: /, port: health-port}, failureThreshold: 30, periodSeconds: 10}
        livenessProbe: {httpGet: {path: /, port: health-port}, periodSeconds: 10}
      - name: flink-webhook
        image: ghcr.io/apache/flink-kubernetes-operator:1.10.0
        command: [/docker-entrypoint.sh, webhook]
${o.webhookEnv ?? "        env:\n        - {name: WEBHOOK_SERVER_PORT, value: '9443'}\n"}`;

const OPERATOR = '/spec/template/spec/containers/0';
const WEBHOOK = '/spec/template/spec/containers/1';
const AMBIGUOUS = flink({ webhookEnv: '' });

describe('flink-kubernetes-operator: the webhook container names the port in its env', () => {
  test('prestop-missing names flink-webhook, says how, and its fix (safe) edits flink-webhook', () => {
    const fs = runRule(prestopMissing, flink(), '1.31');
    expect(fs.map((f) => f.pointer)).toEqual([WEBHOOK]);
    expect(fs[0].message).toMatch(/^container "flink-webhook": serves port 9443 for Service op-webhook \(undeclared; named by its env WEBHOOK_SERVER_PORT=9443\) but has no preStop hook/);
    expect(fs[0].fix).toEqual({
      description: 'add preStop sleep 10s to container "flink-webhook"',
      safety: 'safe',
      edits: [{ op: 'set', pointer: `${WEBHOOK}/lifecycle/preStop`, value: { sleep: { seconds: 10 } } }],
    });
  });
  test('readiness-probe-missing reports flink-webhook (no probe at all), not the operator', () => {
    const fs = runRule(readinessProbeMissing, flink(), '1.31');
    expect(fs.map((f) => f.pointer)).toEqual([WEBHOOK]);
    expect(fs[0].message).toMatch(/^container "flink-webhook": serves port 9443 for Service op-webhook \(undeclared; named by its env WEBHOOK_SERVER_PORT=9443\) but has no readinessProbe: it counts as ready as soon as it starts/);
    expect(fs[0].message).toContain('tcpSocket: {port: 9443}');
  });
  test('an arg naming the port does the same (--port=9443, -port 9443, --listen=:9443, 0.0.0.0:9443, in a shell command)', () => {
    for (const args of ['[--port=9443]', '[-port, "9443"]', "['--listen=:9443']", "['0.0.0.0:9443']", '[sh, -c, "exec java -jar webhook.jar --server-port 9443"]']) {
      const fs = runRule(prestopMissing, flink({ webhookEnv: `        args: ${args}\n` }), '1.31');
      expect({ args, at: fs.map((f) => f.pointer), safety: fs.map((f) => f.fix?.safety) }).toEqual({ args, at: [WEBHOOK], safety: ['safe'] });
    }
  });
});

describe('no container declares or names the port: the guess stays, said so, and its repair is a proposal', () => {
  const PROBABLY = /^probably container "flink-kubernetes-operator" \(no container declares port 9443 or names it in its env or args\): serves port 9443 for Service op-webhook but has no /;
  test('prestop-missing: "probably container", a proposal', () => {
    const [f, ...rest] = runRule(prestopMissing, AMBIGUOUS, '1.31');
    expect(rest).toEqual([]);
    expect(f.pointer).toBe(OPERATOR);
    expect(f.message).toMatch(PROBABLY);
    expect(f.fix?.safety).toBe('proposal');
    expect(f.fix?.description).toBe('add preStop sleep 10s to container "flink-kubernetes-operator" (a guess: no container declares the port or names it in its env or args)');
  });
  test('readiness-probe-missing: "probably container"', () => {
    const fs = runRule(readinessProbeMissing, AMBIGUOUS, '1.31');
    expect(fs.map((f) => f.pointer)).toEqual([OPERATOR]);
    expect(fs[0].message).toMatch(PROBABLY);
  });
  test('names that say the port is one the container calls do not count (client words, loopback, a host name, a sibling container)', () => {
    for (const env of [
      "        env:\n        - {name: UPSTREAM_PORT, value: '9443'}\n",
      "        env:\n        - {name: LISTEN, value: '127.0.0.1:9443'}\n",
      "        env:\n        - {name: LISTEN, value: 'localhost:9443'}\n",
      "        env:\n        - {name: OPERATOR, value: 'op-webhook:9443'}\n",
      "        env:\n        - {name: FLINK_KUBERNETES_OPERATOR_PORT, value: '9443'}\n",
      '        args: [--app-port, "9443"]\n',
      "        args: ['--upstream=http://127.0.0.1:9443']\n",
    ]) {
      const fs = runRule(prestopMissing, flink({ webhookEnv: env }), '1.31');
      expect({ env, at: fs.map((f) => f.pointer), safety: fs.map((f) => f.fix?.safety) }).toEqual({ env, at: [OPERATOR], safety: ['proposal'] });
    }
  });
  test('zero-grace-period: names the guessed container as a guess, and its safe repair gives it no hook', () => {
    const [f] = runRule(zeroGracePeriod, flink({ webhookEnv: '', grace: '      terminationGracePeriodSeconds: 0\n' }), '1.31');
    expect(f.message).toContain('give container "flink-kubernetes-operator" a preStop delay: it serves Service traffic without one ("flink-kubernetes-operator" is a guess: no container declares port 9443 or names it in its env or args)');
    expect(f.fix?.safety).toBe('safe');
    expect(f.fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 15 }]);
    // With the env that names the port, the webhook container gets the hook in the same repair.
    const [g] = runRule(zeroGracePeriod, flink({ grace: '      terminationGracePeriodSeconds: 0\n' }), '1.31');
    expect(g.fix?.edits.map((e) => ('pointer' in e ? e.pointer : e.op))).toEqual(['/spec/template/spec/terminationGracePeriodSeconds', `${WEBHOOK}/lifecycle/preStop`]);
  });
});

describe('a single main container is unchanged: it serves an undeclared port, with no "probably" and a safe fix', () => {
  const one = `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: web:1}]
`;
  test('prestop-missing and readiness-probe-missing', () => {
    const [p] = runRule(prestopMissing, one, '1.31');
    expect(p.message).toMatch(/^container "app": serves port 8080 for Service web but has no preStop hook/);
    expect(p.fix?.safety).toBe('safe');
    const [r] = runRule(readinessProbeMissing, one, '1.31');
    expect(r.message).toMatch(/^container "app": serves port 8080 for Service web but has no readinessProbe/);
  });
  test('beside a native sidecar too', () => {
    const withSidecar = one.replace('      containers:', '      initContainers: [{name: log, image: fluent-bit:3, restartPolicy: Always}]\n      containers:');
    const [p] = runRule(prestopMissing, withSidecar, '1.31');
    expect(p.message).toMatch(/^container "app": serves port 8080/);
    expect(p.fix?.safety).toBe('safe');
  });
});

// (Review round 12: the NATS chart's headless Service lists leafnodes 7422 and gateways 7522, which nats opens only when
// configured; a guess put them on the config-reloader sidecar, and readiness-probe-missing advised a tcpSocket probe there.)
describe('an undeclared port of a headless Service that nothing names is served by no container', () => {
  const nats = (svcExtra = '', clusterIP = '  clusterIP: None\n') => `apiVersion: v1
kind: Service
metadata: {name: nats}
spec:
${clusterIP}  selector: {app: nats}
  ports:
  - {name: client, port: 4222}
  - {name: leafnodes, port: 7422}${svcExtra}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: nats}
spec:
  replicas: 3
  serviceName: nats
  selector: {matchLabels: {app: nats}}
  template:
    metadata: {labels: {app: nats}}
    spec:
      containers:
      - name: nats
        image: nats:2.10
        ports: [{name: client, containerPort: 4222}]
        readinessProbe: {tcpSocket: {port: 4222}}
        lifecycle: {preStop: {sleep: {seconds: 10}}}
      - name: reloader
        image: natsio/nats-server-config-reloader:0.14.0
`;
  test('headless: no finding names the reloader', () => {
    expect(runRule(readinessProbeMissing, nats(), '1.31')).toEqual([]);
    expect(runRule(prestopMissing, nats(), '1.31')).toEqual([]);
  });
  test('with a cluster IP the guess stands, said so (kube-proxy does send there)', () => {
    const [r] = runRule(readinessProbeMissing, nats('', ''), '1.31');
    expect(r.message).toMatch(/^probably container "reloader"/);
  });
});
