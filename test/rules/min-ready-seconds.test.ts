import { minReadySeconds } from '../../lib/rules/min-ready-seconds';
import { ruleTester, runRule } from '../helpers/rule-tester';

function app(opts: { kind?: string; replicas?: number; minReady?: number; annotations?: string; deadline?: number; extra?: string; svcAnnotations?: string; container?: string; svcPorts?: string } = {}): string {
  const kind = opts.kind ?? 'Deployment';
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: proxy}
spec:
  replicas: ${opts.replicas ?? 3}
${opts.minReady !== undefined ? `  minReadySeconds: ${opts.minReady}\n` : ''}${opts.deadline !== undefined ? `  progressDeadlineSeconds: ${opts.deadline}\n` : ''}${kind === 'StatefulSet' ? '  serviceName: proxy\n' : ''}  selector: {matchLabels: {app: proxy}}
  template:
    metadata:
      labels: {app: proxy}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
      containers: [${opts.container ?? '{name: proxy, image: teleport, ports: [{containerPort: 3024}]}'}]
---
apiVersion: v1
kind: Service
metadata:
  name: proxy
${opts.svcAnnotations ? `  annotations: {${opts.svcAnnotations}}\n` : ''}spec:
  selector: {app: proxy}
  ports: ${opts.svcPorts ?? '[{port: 3024}]'}
${opts.extra ?? ''}`;
}
const FAN_IN = '"kubegrace.dev/connection-pattern": fan-in';
// Catalog matches (lib/catalog/catalog.yaml): no hint needed.
const TELEPORT_PROXY = "{name: teleport, image: 'public.ecr.aws/gravitational/teleport-distroless:15.0.0', ports: [{name: tls, containerPort: 3080}, {name: sshtun, containerPort: 3024}]}";
const TELEPORT_2022 = "{name: teleport, image: 'public.ecr.aws/gravitational/teleport:11.0.0-dev', args: [--diag-addr=0.0.0.0:3000], ports: [{name: diag, containerPort: 3000}]}";
const TELEPORT_AGENT = "{name: teleport, image: 'public.ecr.aws/gravitational/teleport-distroless:15.0.0', ports: [{name: diag, containerPort: 3000}]}";
const ISTIOD = "{name: discovery, image: 'docker.io/istio/pilot:1.24.0', args: [discovery, --monitoringAddr=:15014], ports: [{containerPort: 15012, name: tls-xds}]}";

ruleTester(minReadySeconds, {
  valid: [
    // minReadySeconds paces rolling-update steps only (ROLL-003's semantics).
    { name: 'fan-in Deployment with strategy Recreate: no next old pod to hold back', yaml: app({ annotations: FAN_IN }).replace('  replicas: 3\n', '  replicas: 3\n  strategy: {type: Recreate}\n') },
    { name: 'long-lived (istiod) Deployment with strategy Recreate', yaml: app({ container: ISTIOD, svcPorts: '[{port: 15012}]' }).replace('  replicas: 3\n', '  replicas: 3\n  strategy: {type: Recreate}\n') },
    { name: 'fan-in StatefulSet with updateStrategy OnDelete: no rollout steps', yaml: app({ kind: 'StatefulSet', annotations: FAN_IN }).replace('  replicas: 3\n', '  replicas: 3\n  updateStrategy: {type: OnDelete}\n') },
    { name: 'catalog: a Teleport agent (same image, no tunnel port) is not fan-in', yaml: app({ container: TELEPORT_AGENT, svcPorts: '[{name: diag, port: 3000}]' }) },
    { name: 'catalog: the Teleport 2022 single binary behind a Service without the tunnel port', yaml: app({ container: TELEPORT_2022, svcPorts: '[{name: https, port: 443, targetPort: 3080}]' }) },
    { name: 'catalog: a hint wins over the catalog (short on a Teleport proxy)', yaml: app({ container: TELEPORT_PROXY, annotations: '"kubegrace.dev/connection-pattern": short' }) },
    { name: 'catalog: a Teleport proxy with enough minReadySeconds', yaml: app({ container: TELEPORT_PROXY, minReady: 20 }) },
    { name: 'catalog: istiod with one replica (no next pod to protect)', yaml: app({ container: ISTIOD, replicas: 1, svcPorts: '[{name: grpc-xds, port: 15012}]' }) },
    { name: 'long-lived with one replica: the clients move to the new pod, no next pod to protect', yaml: app({ annotations: '"kubegrace.dev/connection-pattern": long-lived', replicas: 1 }) },
    {
      name: 'long-lived with maxSurge covering every replica (istiod-ha: 100%): all new pods start at once, no pause between replacements to add',
      yaml: app({ container: ISTIOD, svcPorts: '[{port: 15012}]' }).replace('  replicas: 3\n', '  replicas: 3\n  strategy: {rollingUpdate: {maxSurge: 100%, maxUnavailable: 25%}}\n'),
    },
    { name: 'short connections (default): nothing to say', yaml: app() },
    { name: 'fan-in, 3 replicas, P 0.7: 20 s suffices (T <= 19.5 s)', yaml: app({ annotations: FAN_IN, minReady: 20 }) },
    { name: 'fan-in with one replica: nothing to reconnect to', yaml: app({ annotations: FAN_IN, replicas: 1 }) },
    { name: 'fan-in scaled to zero: no replica is replaced (used to crash the model)', yaml: app({ annotations: FAN_IN, replicas: 0 }) },
    { name: 'fan-in with a lower target probability: 0.5 with 3 replicas needs 4 s', yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "0.5"`, minReady: 4 }) },
    { name: 'long-lived with minReadySeconds set', yaml: app({ annotations: '"kubegrace.dev/connection-pattern": long-lived', minReady: 10 }) },
    { name: 'not served: hint false', yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/served": "false"` }) },
    { name: 'StatefulSet below 1.23 has no minReadySeconds to set', yaml: app({ kind: 'StatefulSet', annotations: FAN_IN }), kubeVersion: '1.22' },
    { name: 'an NLB in instance mode is not an IP-target LB', yaml: app({ svcAnnotations: '"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": instance' }) },
  ],
  invalid: [
    {
      name: 'catalog: a Teleport proxy (tunnel port on the container) is fan-in without a hint',
      yaml: app({ container: TELEPORT_PROXY }),
      findings: [{ severity: 'warning', pointer: '/spec', message: 'fan-in clients (Teleport proxy (also the single-binary auth+proxy of the 2022 chart): catalog entry teleport-proxy) need to reconnect to a new replica before the next one is replaced (3 replicas, P=0.7, linear:2-4: 1.97 retries, up to 19.5s); set minReadySeconds: 20' }],
    },
    {
      name: 'catalog: the Teleport 2022 single binary, tunnel port only on the Service (sshtun -> 3024)',
      yaml: app({ container: TELEPORT_2022, svcPorts: '[{name: https, port: 443, targetPort: 3080}, {name: sshtun, port: 3024, targetPort: 3024}]' }),
      findings: [{ severity: 'warning', message: 'set minReadySeconds: 20' }],
    },
    {
      name: 'catalog: reconnect hints still apply to a catalog fan-in workload',
      yaml: app({ container: TELEPORT_PROXY, annotations: '"kubegrace.dev/reconnect-probability": "0.5"' }),
      findings: [{ severity: 'warning', message: 'set minReadySeconds: 4' }],
    },
    {
      name: 'catalog: istiod with 3 replicas holds long-lived xDS streams',
      yaml: app({ container: ISTIOD, svcPorts: '[{name: grpc-xds, port: 15012}]' }),
      findings: [{ severity: 'info', message: 'minReadySeconds is 0 while clients hold long-lived connections (istiod (Istio control plane, xDS server): catalog entry istiod)' }],
    },
    {
      name: 'fan-in, 3 replicas, defaults: warning with the model numbers (section 11: 1.97 retries, 19.5 s)',
      yaml: app({ annotations: FAN_IN }),
      findings: [{ severity: 'warning', pointer: '/spec', message: '(3 replicas, P=0.7, linear:2-4: 1.97 retries, up to 19.5s); set minReadySeconds: 20' }],
    },
    {
      name: 'fan-in with a minReadySeconds that is too low (the 2022 Teleport default of 15 s for 5 proxies)',
      yaml: app({ annotations: FAN_IN, replicas: 5, minReady: 15 }),
      findings: [{ severity: 'warning', pointer: '/spec/minReadySeconds', message: 'below the 87s' }],
    },
    {
      name: 'fan-in, HPA min replicas decide N',
      yaml: app({ annotations: FAN_IN, replicas: 1, minReady: 20, extra: '---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: proxy}\nspec: {scaleTargetRef: {kind: Deployment, name: proxy}, minReplicas: 5, maxReplicas: 9}\n' }),
      findings: [{ severity: 'warning', message: '5 replicas' }],
    },
    {
      name: 'fan-in needing more than progressDeadlineSeconds: error (section 11 lint use)',
      yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "0.9"`, replicas: 9, deadline: 600 }),
      findings: [{ severity: 'error', message: 'not below progressDeadlineSeconds (600s)' }],
    },
    {
      name: 'exponential backoff model from the hint',
      yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-backoff": "exponential:1-30"`, replicas: 5 }),
      findings: [{ severity: 'warning', message: 'exponential:1-30' }],
    },
    {
      name: 'a bad probability hint is reported and the default used',
      yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-probability": "70%"` }),
      findings: [
        { severity: 'warning', message: 'P=0.7' },
        { severity: 'warning', message: 'is not a probability' },
      ],
    },
    {
      name: 'a bad backoff hint is reported and the default used',
      yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/reconnect-backoff": "random"` }),
      findings: [
        { severity: 'warning', message: 'linear:2-4' },
        { severity: 'warning', message: 'invalid backoff "random"' },
      ],
    },
    {
      name: 'StatefulSet fan-in from 1.23',
      yaml: app({ kind: 'StatefulSet', annotations: FAN_IN }),
      kubeVersion: '1.23',
      findings: [{ severity: 'warning', object: 'StatefulSet/proxy' }],
    },
    {
      name: 'long-lived with a surge below the replicas (maxSurge 2 of 3): replaced in steps, info',
      yaml: app({ annotations: '"kubegrace.dev/connection-pattern": long-lived' }).replace('  replicas: 3\n', '  replicas: 3\n  strategy: {rollingUpdate: {maxSurge: 2, maxUnavailable: 0}}\n'),
      findings: [{ severity: 'info', message: 'clients hold long-lived connections' }],
    },
    {
      name: 'long-lived connections with minReadySeconds 0: info',
      yaml: app({ annotations: '"kubegrace.dev/connection-pattern": long-lived' }),
      findings: [{ severity: 'info', message: 'clients hold long-lived connections' }],
    },
    {
      name: 'behind an NLB with IP targets: info',
      yaml: app({ svcAnnotations: '"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": ip' }),
      findings: [{ severity: 'info', message: 'NLB IP targets (Service proxy)' }],
    },
    {
      name: 'behind an ALB Ingress with IP targets: info',
      yaml: app({ extra: '---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, annotations: {alb.ingress.kubernetes.io/target-type: ip}}\nspec:\n  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: proxy, port: {number: 3024}}}}]}}]\n' }),
      findings: [{ severity: 'info', message: 'ALB IP targets (Ingress web)' }],
    },
    {
      name: 'suppressed',
      yaml: app({ annotations: `${FAN_IN}, "kubegrace.dev/ignore": min-ready-seconds` }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

// Review round 23: Centrifugo's clients hold WebSocket/SSE connections to one replica and reconnect
// with centrifuge-js's backoff (full jitter, 0.5 s doubling to 20 s): long-lived without a hint.
test('min-ready-seconds: Centrifugo is long-lived by the catalog (entry centrifugo)', () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: centrifugo}
spec:
  replicas: 3
  selector: {matchLabels: {app: c}}
  template:
    metadata: {labels: {app: c}}
    spec:
      containers:
      - {name: centrifugo, image: centrifugo/centrifugo:v6.9.1, ports: [{name: http, containerPort: 8000}], readinessProbe: {httpGet: {path: /health, port: 8000}}}
---
apiVersion: v1
kind: Service
metadata: {name: centrifugo}
spec:
  selector: {app: c}
  ports: [{name: http, port: 8000, targetPort: http}]
`;
  const got = runRule(minReadySeconds, yaml);
  expect(got.map((f) => f.severity)).toEqual(['info']);
  expect(got[0].message).toContain('catalog entry centrifugo');
});

// Review round 30, report p27 item 1: an MQTT client holds one connection to one broker for its whole
// session; EMQX (the emqx-enterprise chart, 3 replicas, minReadySeconds unset) got nothing.
test.each([
  ['emqx/emqx-enterprise:6.3.0-beta.2', 'emqx'],
  ['docker.io/emqx/emqx:5.8.6', 'emqx'],
  ['emqx:5.8', 'emqx'],
  ['eclipse-mosquitto:2.0.20', 'eclipse-mosquitto'],
  ['vernemq/vernemq:2.1.1', 'vernemq'],
  ['hivemq/hivemq4:4.40.0', 'hivemq'],
  ['hivemq/hivemq-ce:2025.5', 'hivemq'],
  ['emqx/nanomq:0.23.6', 'nanomq'],
])('min-ready-seconds: the MQTT broker %s is long-lived by the catalog (entry %s)', (image, id) => {
  const yaml = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: broker}
spec:
  replicas: 3
  serviceName: broker-headless
  selector: {matchLabels: {app: b}}
  template:
    metadata: {labels: {app: b}}
    spec:
      containers:
      - {name: broker, image: "${image}", ports: [{name: mqtt, containerPort: 1883}], readinessProbe: {tcpSocket: {port: 1883}}}
---
apiVersion: v1
kind: Service
metadata: {name: broker}
spec:
  selector: {app: b}
  ports: [{name: mqtt, port: 1883, targetPort: mqtt}]
`;
  const got = runRule(minReadySeconds, yaml);
  expect(got.map((f) => f.severity)).toEqual(['info']);
  expect(got[0].message).toContain(`catalog entry ${id}`);
});

test('min-ready-seconds: an MQTT port alone (1883, unknown image) is not matched', () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: broker}
spec:
  replicas: 3
  selector: {matchLabels: {app: b}}
  template:
    metadata: {labels: {app: b}}
    spec:
      containers:
      - {name: broker, image: example/broker:1, ports: [{name: mqtt, containerPort: 1883}], readinessProbe: {tcpSocket: {port: 1883}}}
---
apiVersion: v1
kind: Service
metadata: {name: broker}
spec:
  selector: {app: b}
  ports: [{name: mqtt, port: 1883, targetPort: mqtt}]
`;
  expect(runRule(minReadySeconds, yaml)).toEqual([]);
});
