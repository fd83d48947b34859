import { externalTrafficLocal } from '../../lib/rules/external-traffic-local';
import { ruleTester, runRule } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  replicas?: number;
  grace?: number;
  lifecycle?: string;
  podSpecExtra?: string;
  annotations?: string;
}

function workload(o: Opts = {}): string {
  const kind = o.kind ?? 'Deployment';
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: edge}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}  selector: {matchLabels: {app: edge}}
  template:
    metadata:
      labels: {app: edge}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}${o.podSpecExtra ?? ''}      containers:
      - name: proxy
        image: edge:1
        ports: [{name: http, containerPort: 8080}]
${o.lifecycle ? `        lifecycle: {preStop: ${o.lifecycle}}\n` : ''}`;
}

function svc(type = 'LoadBalancer', policy: string | null = 'Local', annotations = ''): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: edge
${annotations ? `  annotations: {${annotations}}\n` : ''}spec:
  type: ${type}
${policy ? `  externalTrafficPolicy: ${policy}\n` : ''}  selector: {app: edge}
  ports: [{port: 80, targetPort: http}]
`;
}

const sleep = (n: number) => `{sleep: {seconds: ${n}}}`;

/**
 * Contour's Envoy DaemonSet (examples/render/contour.yaml, reduced) behind the Service: Envoy's
 * httpGet /shutdown waits for the shutdown-manager's `contour envoy shutdown` hook.
 */
const contourEnvoy = (tag: string, shutdown = '/bin/contour, envoy, shutdown') => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: edge}
spec:
  selector: {matchLabels: {app: edge}}
  template:
    metadata: {labels: {app: edge}}
    spec:
      terminationGracePeriodSeconds: 300
      containers:
      - name: shutdown-manager
        image: ghcr.io/projectcontour/contour:${tag}
        command: [/bin/contour]
        args: [envoy, shutdown-manager]
        lifecycle: {preStop: {exec: {command: [${shutdown}]}}}
      - name: envoy
        image: docker.io/envoyproxy/envoy:distroless-v1.35.0
        ports: [{name: http, containerPort: 8080, hostPort: 80}]
        readinessProbe: {httpGet: {path: /ready, port: 8002}}
        lifecycle: {preStop: {httpGet: {path: /shutdown, port: 8090}}}
`;
const SPREAD_HOST = `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: edge}}}
`;
const SPREAD_ZONE = `      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: edge}}}
`;
const ANTI_PREFERRED = `      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: edge}}}
`;
const ANTI_OTHER = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: other}}}
`;
const C = '/spec/template/spec/containers/0';

/** One replica with the given rollingUpdate (and a claim): the pihole chart's shape (review round 35, report p57 item 1). */
const single = (rollingUpdate: string, claim?: string) =>
  workload({ replicas: 1, grace: 60, podSpecExtra: claim ? '      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n' : '' }).replace(
    '  selector: {matchLabels: {app: edge}}\n',
    `  strategy: {type: RollingUpdate, rollingUpdate: ${rollingUpdate}}\n  selector: {matchLabels: {app: edge}}\n`,
  ) +
  (claim ? `---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [${claim}], resources: {requests: {storage: 1Gi}}}\n` : '');
const bareReplicaSet = workload({ kind: 'ReplicaSet', replicas: 1, grace: 60 });
const SOLE = /are lost \(it is the only pod, one replica with maxSurge 0: its replacement is created as soon as it starts terminating, and until the LB drops the node kube-proxy forwards the node's LB traffic to it while it still serves, by default since Kubernetes 1\.26, so the delay keeps it serving while the replacement starts\); set /;

ruleTester(externalTrafficLocal, {
  valid: [
    { name: "Contour before 1.22.0: the shutdown-manager's hook lasts at least 60s by default (--check-delay 60s), past the LB window", yaml: contourEnvoy('v1.21.3') + svc() },
    { name: 'Contour 1.33 with --drain-delay=35s: the hook lasts at least 35s', yaml: contourEnvoy('v1.33.0', '/bin/contour, envoy, shutdown, --drain-delay=35s') + svc() },
    { name: 'one StatefulSet replica (the jenkins chart\'s controller): replaced only after it is gone, so a delay only shifts the outage (as prestop-missing)', yaml: workload({ kind: 'StatefulSet', replicas: 1 }) + svc() },
    // Review round 35, report p57 item 1 (pihole-metallb: one pod, maxSurge 1 / maxUnavailable 1, a ReadWriteOnce claim `pihole`,
    // two Local LoadBalancer Services): the old pod is deleted as the new one is created, and the new one cannot attach the
    // volume on another node before the old one is gone: a delay moves the outage later, as prestop-missing's handover reads it.
    { name: 'one replica with a ReadWriteOnce claim, maxSurge 1 / maxUnavailable 1 (pihole): nothing can serve before the pod is gone, not judged', yaml: single('{maxSurge: 1, maxUnavailable: 1}', 'ReadWriteOnce') + svc() },
    { name: 'one replica with a ReadWriteOncePod claim, maxUnavailable 1: not judged', yaml: single('{maxSurge: 0, maxUnavailable: 1}', 'ReadWriteOncePod') + svc() },
    { name: 'one replica with maxSurge 0 on 1.25: kube-proxy does not fall back to the terminating pod by default, not judged', yaml: single('{maxSurge: 0, maxUnavailable: 1}') + svc(), kubeVersion: '1.25' },
    {
      name: 'ingress-nginx /wait-shutdown with --shutdown-grace-period above the health-check window',
      yaml: workload({ replicas: 1, grace: 300, lifecycle: '{exec: {command: [/wait-shutdown]}}' }).replace('image: edge:1', "image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1'\n        args: [/nginx-ingress-controller, --shutdown-grace-period=40]") + svc(),
    },
    {
      // Review round 30 (pihole's chart: the exporter sidecar's port on the DNS LoadBalancer Service): a missed scrape is no lost request, as prestop-missing reads it.
      name: 'a metrics-named port of an exporter sidecar on the Local LB Service: not judged',
      yaml: workload({ replicas: 1, grace: 50, lifecycle: sleep(35) }).replace('      containers:\n', '      containers:\n      - {name: exporter, image: ekofr/pihole-exporter:v1.0.0, ports: [{name: prometheus, containerPort: 9617}]}\n') + svc().replace('ports: [{port: 80, targetPort: http}]', 'ports: [{name: http, port: 80, targetPort: http}, {name: prometheus, port: 9617, targetPort: prometheus}]'),
    },
    // Review round 30 (pihole's NodePort DNS Services): only type LoadBalancer gets a healthCheckNodePort (needsHCNodePort): no LB, no window, nothing to spread for.
    { name: 'Local on a NodePort Service: no LB health check, not judged (no hook, 3 replicas packed)', yaml: workload({ replicas: 3 }) + svc('NodePort') },
    { name: 'Cluster policy', yaml: workload({ replicas: 3 }) + svc('LoadBalancer', 'Cluster') },
    { name: 'no policy (defaults to Cluster)', yaml: workload({ replicas: 3 }) + svc('LoadBalancer', null) },
    { name: 'Local on a ClusterIP Service is not external', yaml: workload({ replicas: 3 }) + svc('ClusterIP') },
    { name: 'Local, spread on hostname, preStop 35', yaml: workload({ replicas: 3, grace: 50, lifecycle: sleep(35), podSpecExtra: SPREAD_HOST }) + svc() },
    { name: 'Local, zone spread counts', yaml: workload({ replicas: 3, grace: 50, lifecycle: sleep(30), podSpecExtra: SPREAD_ZONE }) + svc() },
    { name: 'Local, preferred hostname anti-affinity counts', yaml: workload({ replicas: 2, grace: 50, lifecycle: sleep(30), podSpecExtra: ANTI_PREFERRED }) + svc() },
    { name: 'Local, replicas 1: nothing to spread', yaml: workload({ replicas: 1, grace: 50, lifecycle: sleep(30) }) + svc() },
    { name: 'DaemonSet is spread by construction', yaml: workload({ kind: 'DaemonSet', grace: 50, lifecycle: sleep(30) }) + svc() },
    { name: 'httpGet preStop: delay unknown', yaml: workload({ replicas: 1, lifecycle: '{httpGet: {path: /drain, port: 8080}}' }) + svc() },
    { name: 'exec of an unknown command (ingress-nginx /wait-shutdown): delay unknown', yaml: workload({ replicas: 1, lifecycle: '{exec: {command: [/wait-shutdown]}}' }) + svc() },
    { name: 'grace 0: no hook runs (zero-grace-period\'s business)', yaml: workload({ replicas: 1, grace: 0 }) + svc() },
    { name: 'served hint false', yaml: workload({ replicas: 3, annotations: '"kubegrace.dev/served": "false"' }) + svc() },
    { name: 'smaller health window param', yaml: workload({ replicas: 1, lifecycle: sleep(10) }) + svc(), params: { lbHealthWindowSeconds: 10 } },
    {
      name: 'AWS health-check annotations shorten the window (5s x 2 = 10s)',
      yaml: workload({ replicas: 1, lifecycle: sleep(10) }) + svc('LoadBalancer', 'Local', '"service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval": "5", "service.beta.kubernetes.io/aws-load-balancer-healthcheck-unhealthy-threshold": "2"'),
    },
  ],
  invalid: [
    {
      name: "Contour 1.22.0 and later: the shutdown-manager's hook lasts at least 0s by default (--check-delay 0s), so Envoy may stop inside the LB window; the advice is its --drain-delay, not a sleep in place of the /shutdown handshake",
      yaml: contourEnvoy('v1.33.0') + svc(),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/containers/1/lifecycle/preStop',
          message: 'container "envoy": preStop delay 0s behind Service/edge (type LoadBalancer, externalTrafficPolicy: Local) is shorter than the LB health-check window of 30s: the node stays in the LB pool until its health check fails, and requests that still arrive after the pod stops serving are lost; set --drain-delay=35s in the preStop command of container "shutdown-manager", whose hook this one waits for',
        },
      ],
    },
    {
      name: 'Contour with an image tag that is no version (main): taken as current, 0s',
      yaml: contourEnvoy('main') + svc(),
      findings: [{ severity: 'warning', message: 'container "envoy": preStop delay 0s behind Service/edge' }],
    },
    {
      name: 'ingress-nginx /wait-shutdown with the default --shutdown-grace-period (0): advice names the flag, no sleep rewrite',
      yaml: workload({ replicas: 1, grace: 300, lifecycle: '{exec: {command: [/wait-shutdown]}}' }).replace('image: edge:1', "image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1'\n        args: [/nginx-ingress-controller, --election-id=x]") + svc(),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', message: 'preStop program ingress-nginx /wait-shutdown (keeps accepting for 0s; catalog entry ingress-nginx-wait-shutdown) behind Service/edge (type LoadBalancer, externalTrafficPolicy: Local) is shorter than the LB health-check window of 30s' }],
    },
    {
      name: 'replicas 3 without spreading: warning at the pod spec',
      yaml: workload({ replicas: 3, grace: 50, lifecycle: sleep(30) }) + svc(),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec', object: 'Deployment/edge', message: 'replicas 3 behind Service/edge (type LoadBalancer, externalTrafficPolicy: Local) without topology spread or hostname anti-affinity' }],
    },
    {
      name: 'anti-affinity selecting other pods does not count: pointer at the anti-affinity',
      yaml: workload({ replicas: 2, grace: 50, lifecycle: sleep(30), podSpecExtra: ANTI_OTHER }) + svc(),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/affinity/podAntiAffinity' }],
    },
    {
      name: 'HPA minReplicas 2 counts',
      yaml:
        workload({ grace: 50, lifecycle: sleep(30) }) +
        svc() +
        `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: edge}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: edge}
  minReplicas: 2
  maxReplicas: 6
`,
      findings: [{ severity: 'warning', message: 'HPA minReplicas 2' }],
    },
    {
      name: 'preStop 10 < health window 30: warning at the hook, grace fix included',
      yaml: workload({ replicas: 1, lifecycle: sleep(10) }) + svc(),
      findings: [{ severity: 'warning', pointer: `${C}/lifecycle/preStop`, message: /preStop delay 10s behind Service\/edge .* shorter than the LB health-check window of 30s.*set lifecycle: \{preStop: \{sleep: \{seconds: 35\}\}\} and raise terminationGracePeriodSeconds to 50s \(now the default grace period \(30s\)\)/ }],
    },
    {
      name: 'no preStop: warning at the container',
      yaml: workload({ replicas: 1, grace: 60 }) + svc(),
      findings: [{ severity: 'warning', pointer: C, message: /^container "proxy": has no preStop delay behind Service\/.*, so it stops serving at once, inside the LB health-check window of \d+s: the node stays in the LB pool/ }],
    },
    {
      name: 'AWS health-check annotation: one given, the other defaulted (15 x 3 = 45)',
      yaml: workload({ replicas: 1, grace: 90, lifecycle: sleep(30) }) + svc('LoadBalancer', 'Local', '"service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval": "15"'),
      findings: [{ severity: 'warning', message: 'interval 15s x unhealthy threshold 3' }],
    },
    {
      name: 'before 1.30 the fix uses exec sleep',
      yaml: workload({ replicas: 1, grace: 60, lifecycle: '{exec: {command: [sleep, "5"]}}' }) + svc(),
      kubeVersion: '1.29',
      findings: [{ severity: 'warning', message: 'exec: {command: ["sleep", "35"]}' }],
    },
    {
      // Review round 35, report p57 item 1: the replacement is created as soon as the pod is deleting, and kube-proxy on
      // the node keeps forwarding the LB's traffic to the serving, terminating pod until the LB drops the node (its
      // health check fails at once: only ready endpoints count), so the delay covers the window while the replacement starts.
      name: 'one replica with maxSurge 0 from 1.26: judged, the message says why a delay helps the only pod',
      yaml: single('{maxSurge: 0, maxUnavailable: 1}') + svc(),
      kubeVersion: '1.26',
      findings: [{ severity: 'warning', pointer: C, message: SOLE }],
    },
    {
      name: 'a bare ReplicaSet of one replica (1.33): judged as the only pod',
      yaml: bareReplicaSet + svc(),
      findings: [{ severity: 'warning', pointer: C, message: /\(it is the only pod, a ReplicaSet of one replica: its replacement is created as soon as it starts terminating/ }],
    },
    {
      name: 'one replica with a ReadWriteOnce claim and maxUnavailable 0: the old pod goes once the new one is ready, judged without the only-pod note',
      yaml: single('{maxSurge: 1, maxUnavailable: 0}', 'ReadWriteOnce') + svc(),
      findings: [{ severity: 'warning', pointer: C, message: /are lost; set / }],
    },
    {
      name: 'one replica with a ReadWriteMany claim, maxSurge 1 / maxUnavailable 1: the surge pod can serve beside it, judged',
      yaml: single('{maxSurge: 1, maxUnavailable: 1}', 'ReadWriteMany') + svc(),
      findings: [{ severity: 'warning', pointer: C, message: /are lost; set / }],
    },
    {
      name: 'both conditions',
      yaml: workload({ replicas: 2 }) + svc(),
      findings: [
        { severity: 'warning', pointer: '/spec/template/spec' },
        { severity: 'warning', pointer: C },
      ],
    },
    {
      name: 'suppressed',
      yaml: workload({ replicas: 3, grace: 50, lifecycle: sleep(30), annotations: '"kubegrace.dev/ignore": "external-traffic-local"' }) + svc(),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

test('a known preStop program gets its own knob as advice and no sleep rewrite (catalog)', () => {
  const yaml =
    workload({ replicas: 1, grace: 300, lifecycle: '{exec: {command: [/wait-shutdown]}}' }).replace('image: edge:1', "image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1'\n        args: [/nginx-ingress-controller]") + svc();
  const [f, ...rest] = runRule(externalTrafficLocal, yaml, '1.31');
  expect(rest).toEqual([]);
  expect(f.message).toMatch(/; set --shutdown-grace-period=35 in the container's args \(chart value controller\.extraArgs\.shutdown-grace-period: "35"\)$/);
  expect(f.fix).toBeUndefined();
});
