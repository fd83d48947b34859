import { ObjectGraph } from '../../lib/model/graph';
import { parseIntOrPercent, scaled } from '../../lib/model/intstr';
import { parseText } from '../../lib/model/parse';
import { matches, parseLabelSelector } from '../../lib/model/selector';
import { resolveDeploymentRollout } from '../../lib/model/workload';

function graph(text: string): ObjectGraph {
  const p = parseText('g.yaml', text);
  expect(p.errors).toEqual([]);
  return new ObjectGraph(p.objects);
}

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front' };
  test.each([
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchLabels: { app: 'api' } }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    [{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
    [{}, true],
    [null, false],
  ])('%j matches %s', (sel, expected) => {
    expect(matches(parseLabelSelector(sel as never), labels)).toBe(expected);
  });
  test('kinds', () => {
    expect(parseLabelSelector(undefined).kind).toBe('null');
    expect(parseLabelSelector({}).kind).toBe('empty');
    expect(parseLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] }).kind).toBe('invalid');
  });
});

describe('int-or-percent and rollout resolution (section 4)', () => {
  test('percent scaling rounds as asked', () => {
    expect(scaled(parseIntOrPercent('25%')!, 1, true)).toBe(1);
    expect(scaled(parseIntOrPercent('25%')!, 1, false)).toBe(0);
    expect(scaled(parseIntOrPercent('90%')!, 3, true)).toBe(3);
    expect(scaled(parseIntOrPercent(2)!, 10, true)).toBe(2);
    expect(parseIntOrPercent('1')!.kind).toBe('invalid');
  });
  const raw = (strategy: unknown) => ({ spec: { strategy } }) as never;
  test.each([
    ['defaults, 1 replica: surge-first', undefined, 1, 1, 0],
    ['defaults, 4 replicas', undefined, 4, 1, 1],
    ['defaults, 10 replicas: 25% surge up, unavailable down', undefined, 10, 3, 2],
    ['maxSurge 0 / maxUnavailable 1', { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }, 1, 0, 1],
    ['both resolve to 0: unavailable forced to 1', { rollingUpdate: { maxSurge: '10%', maxUnavailable: '10%' } }, 3, 1, 0],
    ['both percentages resolve to 0 (surge 0%)', { rollingUpdate: { maxSurge: '0%', maxUnavailable: '10%' } }, 3, 0, 1],
  ])('%s', (_name, strategy, replicas, surge, unavailable) => {
    const r = resolveDeploymentRollout(raw(strategy), replicas);
    expect([r.surge, r.unavailable]).toEqual([surge, unavailable]);
  });
  test('strategy.type "": the API default RollingUpdate (SetDefaults_Deployment), not Recreate', () => {
    const r = resolveDeploymentRollout(raw({ type: '' }), 3);
    expect([r.type, r.surge, r.unavailable]).toEqual(['RollingUpdate', 1, 0]);
  });
  test('Recreate: no surge, all unavailable', () => {
    const r = resolveDeploymentRollout(raw({ type: 'Recreate' }), 3);
    expect([r.type, r.surge, r.unavailable]).toEqual(['Recreate', 0, 3]);
  });
});

describe('object graph', () => {
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      containers:
      - name: app
        image: web
        ports: [{name: http, containerPort: 8080}, {name: metrics, containerPort: 9090}]
      - name: helper
        image: h
      volumes:
      - name: data
        persistentVolumeClaim: {claimName: data}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: web-metrics, namespace: shop}
spec:
  selector: {app: web}
  ports: [{name: metrics, port: 9090, targetPort: metrics}]
---
apiVersion: v1
kind: Service
metadata: {name: other-ns, namespace: elsewhere}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {tier: front}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 3
  maxReplicas: 9
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop}
spec: {accessModes: [ReadWriteOnce]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-abc
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true, uid: x}]
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: app, image: web}]}
`;
  const g = graph(text);
  const w = g.workloads[0];
  test('owned workloads are kept apart', () => {
    expect(g.workloads).toHaveLength(1);
    expect(g.ownedWorkloads.map((x) => x.obj.name)).toEqual(['web-abc']);
  });
  test('Services select templates in their namespace only', () => {
    expect(g.servicesFor(w).map((s) => s.obj.name)).toEqual(['web', 'web-metrics']);
    expect(g.trafficServices(w).map((s) => s.obj.name)).toEqual(['web']);
    expect(g.servedState(w)).toBe('served');
  });
  test('served ports resolve named target ports to the container', () => {
    expect(g.servedPorts(w).map((p) => `${p.service.obj.name}:${p.container.name}:${p.containerPort?.containerPort}`)).toEqual(['web:app:8080']);
    expect(g.servedContainers(w).map((c) => c.name)).toEqual(['app']);
  });
  test('a Service with type "" is a ClusterIP Service (SetDefaults_Service)', () => {
    const g2 = new ObjectGraph(parseText('s.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  type: ""\n  selector: {app: x}\n  ports: [{port: 80}]\n').objects);
    expect(g2.services.map((x) => x.type)).toEqual(['ClusterIP']);
  });
  test('PDBs, HPAs and claims', () => {
    expect(g.pdbsFor(w).map((p) => p.obj.name)).toEqual(['web']);
    expect(g.hpaFor(w)?.minReplicas).toBe(3);
    expect(g.effectiveReplicas(w)).toBe(3);
    expect(g.claimsOf(w).map((c) => [c.claimName, c.accessModes])).toEqual([['data', ['ReadWriteOnce']]]);
  });
  test('a metrics-only Service does not make a workload served', () => {
    const g2 = graph(text.split('\n---\n').filter((d) => !d.includes('name: web, namespace: shop}\nspec:\n  selector: {app: web}\n  ports: [{name: http')).join('\n---\n'));
    // The metrics Service is in the namespace, so the set holds the app's Services: unserved.
    expect(g2.servedState(g2.workloads[0])).toBe('unserved');
  });
  test('the served hint wins both ways', () => {
    const hinted = text.replace('labels: {app: web, tier: front}}\n    spec:\n      containers', 'labels: {app: web, tier: front}, annotations: {kubegrace.dev/served: "false"}}\n    spec:\n      containers');
    const g3 = graph(hinted);
    expect(g3.servedState(g3.workloads[0])).toBe('unserved');
  });
});

describe('served is three-valued (graceful-termination.md section 0)', () => {
  const deploy = (ns: string, annotations = '', ports = '[{name: http, containerPort: 8080}]') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}${annotations ? `, annotations: {${annotations}}` : ''}}
    spec:
      containers: [{name: app, image: web, ports: ${ports}}]
`;
  const service = (ns: string, app: string, ports = '[{name: http, port: 80, targetPort: http}]') => `---
apiVersion: v1
kind: Service
metadata: {name: ${app}, namespace: ${ns}}
spec: {selector: {app: ${app}}, ports: ${ports}}
`;
  const state = (text: string) => {
    const g = graph(text);
    return g.servedState(g.workloads[0]);
  };
  test.each([
    ['a Service in the set selects the pods', deploy('shop') + service('shop', 'web'), 'served'],
    ['hint "true" without a Service', deploy('shop', 'kubegrace.dev/served: "true"'), 'served'],
    ['hint "false" beats a selecting Service', deploy('shop', 'kubegrace.dev/served: "false"') + service('shop', 'web'), 'unserved'],
    ['hint "true" beats Services that do not select it', deploy('shop', 'kubegrace.dev/served: "true"') + service('shop', 'other'), 'served'],
    ['other Services in the namespace, none selects it (a whole chart)', deploy('shop') + service('shop', 'other'), 'unserved'],
    ['only a metrics-only Service selects it', deploy('shop') + service('shop', 'web', '[{name: metrics, port: 9090}]'), 'unserved'],
    ['no Service in the set at all (one file per object)', deploy('shop'), 'unknown'],
    ['Services only in another namespace', deploy('shop') + service('other-ns', 'web'), 'unknown'],
  ])('%s: %s', (_name, text, expected) => {
    expect(state(text)).toBe(expected);
  });
});

describe('name and namespace indexes', () => {
  const g = graph(`apiVersion: v1
kind: Service
metadata: {name: db, namespace: a}
spec: {clusterIP: None, selector: {app: db}}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: b}
spec: {selector: {app: db}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db, namespace: a}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: db}}}
`);
  test('serviceNamed and pdbNamed look up by namespace and name; no namespace means default', () => {
    expect(g.serviceNamed('a', 'db')?.headless).toBe(true);
    expect(g.serviceNamed('b', 'db')?.headless).toBe(false);
    expect(g.serviceNamed('default', 'web')?.obj.name).toBe('web');
    expect(g.serviceNamed('a', 'web')).toBeUndefined();
    expect(g.pdbNamed('a', 'db')?.obj.name).toBe('db');
    expect(g.pdbNamed('b', 'db')).toBeUndefined();
  });
  test('servicesIn lists a namespace in input order', () => {
    expect(g.servicesIn('a').map((s) => s.obj.name)).toEqual(['db']);
    expect(g.servicesIn('default').map((s) => s.obj.name)).toEqual(['web']);
    expect(g.servicesIn('none')).toEqual([]);
  });
});

describe('an undeclared numeric targetPort: which main container serves it', () => {
  /** A Deployment `name` with these containers, behind a Service on numeric target port 3080. */
  const served = (name: string, containers: string) =>
    graph(`apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
${containers}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  selector: {app: x}
  ports: [{port: 443, targetPort: 3080}]
`);
  const who = (g: ObjectGraph) => g.servedPorts(g.workloads[0]).map((p) => p.container.name);
  test('Teleport (only a diag port) beside its operator (no port): Teleport, whatever the release name', () => {
    const c = '      - {name: teleport, image: teleport:11, ports: [{name: diag, containerPort: 3000}]}\n      - {name: operator, image: teleport-operator:11}';
    expect(who(served('kubegrace', c))).toEqual(['teleport']);
  });
  test('an app declaring no port beside an exporter declaring only its metrics port: the app', () => {
    expect(who(served('cache', '      - {name: redis, image: redis:7}\n      - {name: exporter, image: redis-exporter:1, ports: [{name: metrics, containerPort: 9121}]}'))).toEqual(['redis']);
  });
  test('two containers declaring nothing: the one named like the workload, else no guess', () => {
    const c = '      - {name: worker, image: w:1}\n      - {name: web, image: web:1}';
    expect(who(served('web', c))).toEqual(['web']);
    expect(who(served('shop', c))).toEqual([]);
  });
  /** Each served port's container and how it was found (ServedPort.pick). */
  const picks = (g: ObjectGraph) => g.servedPorts(g.workloads[0]).map((p) => [p.container.name, p.pick]);
  test('the ranked choices are guesses; a lone main container is not', () => {
    expect(picks(served('kubegrace', '      - {name: teleport, image: teleport:11, ports: [{name: diag, containerPort: 3000}]}\n      - {name: operator, image: teleport-operator:11}'))).toEqual([['teleport', { by: 'guess' }]]);
    expect(picks(served('web', '      - {name: worker, image: w:1}\n      - {name: web, image: web:1}'))).toEqual([['web', { by: 'guess' }]]);
    expect(picks(served('web', '      - {name: app, image: web:1}'))).toEqual([['app', undefined]]);
  });
  test("the container whose env or args name the port wins over the ranking (Flink's webhook beside the operator)", () => {
    const operator = '      - {name: operator, image: flink-operator:1, ports: [{name: health-port, containerPort: 8085}]}\n';
    expect(picks(served('op', `${operator}      - {name: webhook, image: flink-operator:1, env: [{name: WEBHOOK_SERVER_PORT, value: '3080'}]}`))).toEqual([
      ['webhook', { by: 'config', evidence: 'env WEBHOOK_SERVER_PORT=3080' }],
    ]);
    // Even a container that declares another traffic port.
    expect(picks(served('op', `${operator}      - {name: webhook, image: w:1, args: ['--webhook-bind-address=:3080'], ports: [{name: http, containerPort: 8080}]}`))).toEqual([
      ['webhook', { by: 'config', evidence: 'arg --webhook-bind-address=:3080' }],
    ]);
    // Both name it: a guess among the two (the operator port ranks first).
    expect(picks(served('op', `${operator.replace('}]}', "}], args: ['--port=3080']}")}      - {name: webhook, image: w:1, env: [{name: PORT, value: '3080'}]}`))).toEqual([['operator', { by: 'guess' }]]);
  });
  test('a mesh proxy does not win over the app: its env names the ports it forwards to; the app beside it is no guess', () => {
    const proxy = (env: string) => `      - {name: linkerd-proxy, image: cr.l5d.io/linkerd/proxy:stable, env: [${env}], ports: [{name: linkerd-admin, containerPort: 4191}]}`;
    // (Before, istio-proxy declaring nothing outranked an app declaring its other port.)
    expect(picks(served('web', '      - {name: app, image: web:1, ports: [{name: http, containerPort: 8080}]}\n      - {name: istio-proxy, image: docker.io/istio/proxyv2:1.22.0}'))).toEqual([['app', undefined]]);
    expect(picks(served('web', `      - {name: app, image: web:1}\n${proxy("{name: LINKERD2_PROXY_INBOUND_PORTS, value: '3080'}")}`))).toEqual([['app', undefined]]);
    // Its own listen address does name a port it serves.
    expect(picks(served('web', `      - {name: app, image: web:1}\n${proxy("{name: LINKERD2_PROXY_INBOUND_LISTEN_ADDR, value: '0.0.0.0:3080'}")}`))).toEqual([
      ['linkerd-proxy', { by: 'config', evidence: 'env LINKERD2_PROXY_INBOUND_LISTEN_ADDR=0.0.0.0:3080' }],
    ]);
  });
});
