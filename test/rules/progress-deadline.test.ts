import { progressDeadline } from '../../lib/rules/progress-deadline';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  kind?: string;
  pds?: number;
  mrs?: number;
  /** Container fields after name/image (flow map body). */
  app?: string;
  /** Extra pod-spec lines (6-space indent), before containers. */
  podExtra?: string;
  annotations?: string;
}

function deploy(o: Opts = {}): string {
  return `apiVersion: apps/v1
kind: ${o.kind ?? 'Deployment'}
metadata: {name: web}
spec:
${o.mrs === undefined ? '' : `  minReadySeconds: ${o.mrs}\n`}${o.pds === undefined ? '' : `  progressDeadlineSeconds: ${o.pds}\n`}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.podExtra ?? ''}      containers:
      - {name: app, image: web:1${o.app ? `, ${o.app}` : ''}}
`;
}

/** LiveKit-style (review round 24): hostNetwork pods, 2 replicas, maxSurge 0 / maxUnavailable 1 (spread-blocks-surge's proposal). */
function hostNetDeploy(o: { grace?: number; drain?: string; pds?: number; strategy?: string; ports?: boolean; podExtra?: string } = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: lk}
spec:
  replicas: 2
${o.pds === undefined ? '' : `  progressDeadlineSeconds: ${o.pds}\n`}  strategy:
    rollingUpdate: ${o.strategy ?? '{maxSurge: 0, maxUnavailable: 1}'}
  selector: {matchLabels: {app: lk}}
  template:
    metadata:
      labels: {app: lk}
${o.drain ? `      annotations: {kubegrace.dev/drain-seconds: "${o.drain}"}\n` : ''}    spec:
${o.ports === false ? '' : '      hostNetwork: true\n'}${o.podExtra ?? ''}${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: livekit-server
        image: livekit/livekit-server:v1.9.0
        ports: [{name: http, containerPort: 7880}]
        lifecycle: {preStop: {sleep: {seconds: 10}}}
`;
}
const antiHost = (extra = '') => `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: lk}}${extra}}
`;

const startup = (s: string) => `startupProbe: {httpGet: {path: /healthz, port: 8080}${s ? `, ${s}` : ''}}`;
const gates = '      readinessGates: [{conditionType: target-health.elbv2.k8s.aws/web}]\n';

ruleTester(progressDeadline, {
  valid: [
    { name: 'defaults: 600 s deadline against a 60 s step', yaml: deploy() },
    { name: 'deadline exactly the step: 60 = 0 + 60', yaml: deploy({ pds: 60 }) },
    { name: 'default startupProbe budget 0 + 3 x 10 = 30: 90 = 60 + 30', yaml: deploy({ pds: 90, app: startup('') }) },
    { name: 'no readinessGates: the gate allowance is not counted', yaml: deploy({ pds: 90, mrs: 30 }) },
    { name: 'readinessGateSeconds param lowers the allowance: 100 >= 30 + 60 + 10', yaml: deploy({ pds: 100, mrs: 30, podExtra: gates }), params: { readinessGateSeconds: 10 } },
    { name: 'imagePullSeconds param 0: 20 > 10', yaml: deploy({ pds: 20, mrs: 10 }), params: { imagePullSeconds: 0 } },
    { name: 'progressDeadlineSeconds MaxInt32 means no deadline', yaml: deploy({ pds: 2147483647, app: startup('failureThreshold: 1000, periodSeconds: 10') }) },
    { name: 'StatefulSet: no progress deadline', yaml: deploy({ kind: 'StatefulSet', mrs: 700 }) },
    // One pod per node and a long termination (review round 24), near misses:
    { name: 'host ports, maxUnavailable 1, grace 590 below the default deadline: no finding', yaml: hostNetDeploy({ grace: 590 }) },
    { name: 'host ports, grace 18000 but a declared drain of 30 s: the pod is gone at 40 s', yaml: hostNetDeploy({ grace: 18000, drain: '30' }) },
    { name: 'host ports, grace 18000, deadline 18100 above it', yaml: hostNetDeploy({ grace: 18000, pds: 18100 }) },
    { name: 'grace 18000 without host ports or anti-affinity: the replacement need not wait for the node', yaml: hostNetDeploy({ grace: 18000, ports: false }) },
    { name: 'host ports, surge only (maxUnavailable 0): the rollout stalls outright, which is spread-blocks-surge\'s finding', yaml: hostNetDeploy({ grace: 18000, strategy: '{maxSurge: 1, maxUnavailable: 0}' }) },
    { name: 'required hostname anti-affinity with matchLabelKeys [pod-template-hash] on 1.31: new pods do not count old ones', yaml: hostNetDeploy({ grace: 18000, ports: false, podExtra: antiHost(', matchLabelKeys: [pod-template-hash]') }), kubeVersion: '1.31' },
    { name: 'progressDeadlineSeconds MaxInt32: no deadline', yaml: hostNetDeploy({ grace: 18000, pds: 2147483647 }) },
  ],
  invalid: [
    {
      // LiveKit (review round 24): hostNetwork, the chart's grace 18000, spread-blocks-surge's proposal applied, drain not declared.
      name: 'host ports, maxUnavailable 1, grace 18000 above the default deadline: each step waits for an old pod, raise to grace + step',
      yaml: hostNetDeploy({ grace: 18000 }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec',
          message:
            /^the default progressDeadlineSeconds \(600\) is shorter than a rollout step of this Deployment: it takes pods down first \(maxUnavailable >= 1\) and host ports \(container "livekit-server" port 7880 \(hostNetwork: true makes every declared port a host port\)\) keep a new pod off a node that still runs an old one, .*an old pod's termination lasts up to its grace period, 18000s: .*ProgressDeadlineExceeded.*raise progressDeadlineSeconds to at least 18060s \(the termination \+ minReadySeconds 0 \+ image pull 60s\), or declare the real drain with kubegrace.dev\/drain-seconds/,
        },
      ],
    },
    {
      // The report's repro: drain-seconds 3600 declared, grace 3700: the termination is the schedule's 10 + 3600.
      name: 'a declared drain of 3600 s: the termination is preStop + drain, 3610 s',
      yaml: hostNetDeploy({ grace: 3700, drain: '3600' }),
      findings: [{ severity: 'warning', message: /lasts about 3610s \(preStop and the declared or known drain, grace 3700s\).*at least 3670s \(the termination \+ minReadySeconds 0 \+ image pull 60s\), or keep a spare node/ }],
    },
    {
      name: 'required hostname anti-affinity, no host ports, grace 1200 above a set deadline of 900: warning at the field',
      yaml: hostNetDeploy({ grace: 1200, pds: 900, ports: false, podExtra: antiHost() }),
      kubeVersion: '1.30',
      findings: [{ severity: 'warning', pointer: '/spec/progressDeadlineSeconds', message: /^progressDeadlineSeconds 900 is shorter than a rollout step of this Deployment: .*a required pod anti-affinity on kubernetes.io\/hostname \(requiredDuringSchedulingIgnoredDuringExecution\[0\]\) keeps a new pod off/ }],
    },
    {
      name: 'matchLabelKeys on the anti-affinity term is off before 1.31: still one pod per node',
      yaml: hostNetDeploy({ grace: 1200, ports: false, podExtra: antiHost(', matchLabelKeys: [pod-template-hash]') }),
      kubeVersion: '1.30',
      findings: [{ severity: 'warning', message: 'required pod anti-affinity on kubernetes.io/hostname' }],
    },
    {
      // The readiness probe's initial delay (120 s) outlasts the startup probe's budget (30 s): the realistic step is the longer one.
      name: 'a readiness initialDelaySeconds longer than the startupProbe budget: the deadline must cover the realistic step, raised to it',
      yaml: deploy({ pds: 150, app: `${startup('')}, readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 120}` }),
      findings: [{ severity: 'warning', message: /^progressDeadlineSeconds 150 is shorter than a realistic rollout step of 180s \(minReadySeconds 0 \+ image pull 60s \+ probe delays 120s\): a healthy rollout can be marked ProgressDeadlineExceeded and fail CI; raise progressDeadlineSeconds to at least 180s$/ }],
    },
    {
      // Review round 30 (repro p21/06): the kubelet counts both initial delays from the container's start, so Ready at max(330, 300), not 630.
      name: 'startupProbe initialDelaySeconds 330 and readiness 300 overlap: the realistic step is 60 + 330 = 390s, inside 600: nothing',
      yaml: deploy({ pds: 600, app: `${startup('initialDelaySeconds: 330, periodSeconds: 10, failureThreshold: 3')}, readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 300}` }),
      findings: [],
    },
    {
      name: 'the same delays with a deadline of 380: warning, the realistic step counts the larger delay',
      yaml: deploy({ pds: 380, app: `${startup('initialDelaySeconds: 330, periodSeconds: 10, failureThreshold: 3')}, readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 300}` }),
      findings: [{ severity: 'warning', message: /^progressDeadlineSeconds 380 is shorter than a realistic rollout step of 390s \(minReadySeconds 0 \+ image pull 60s \+ probe delays 330s\)/ }],
    },
    {
      name: 'progressDeadlineSeconds equal to minReadySeconds: the API rejects it',
      yaml: deploy({ pds: 10, mrs: 10 }),
      findings: [{ severity: 'error', pointer: '/spec/progressDeadlineSeconds', object: 'Deployment/web', message: 'progressDeadlineSeconds 10 <= minReadySeconds 10: the API rejects it' }],
    },
    {
      name: 'progressDeadlineSeconds below minReadySeconds',
      yaml: deploy({ pds: 5, mrs: 30 }),
      findings: [{ severity: 'error', pointer: '/spec/progressDeadlineSeconds', message: 'raise progressDeadlineSeconds to at least 90s' }],
    },
    {
      name: 'default deadline with minReadySeconds 600: error at minReadySeconds',
      yaml: deploy({ mrs: 600 }),
      findings: [{ severity: 'error', pointer: '/spec/minReadySeconds', message: 'the default progressDeadlineSeconds (600) <= minReadySeconds 600' }],
    },
    {
      name: 'one second short of the default step: warning',
      yaml: deploy({ pds: 59 }),
      findings: [{ severity: 'warning', pointer: '/spec/progressDeadlineSeconds', message: 'progressDeadlineSeconds 59 is shorter than a realistic rollout step of 60s (minReadySeconds 0 + image pull 60s)' }],
    },
    {
      // A startupProbe budget is a ceiling for slow starts (goauthentik's chart: 60 x 10 s), not what a start takes.
      name: 'startupProbe budget 5 + 30 x 2 = 65 with minReadySeconds 15: the realistic step (80 s) fits, the slowest (140 s) does not: info',
      yaml: deploy({ pds: 100, mrs: 15, app: startup('initialDelaySeconds: 5, failureThreshold: 30, periodSeconds: 2') }),
      findings: [
        {
          severity: 'info',
          message:
            'progressDeadlineSeconds 100 covers a rollout step whose probes pass at their first try (80s: minReadySeconds 15 + image pull 60s + probe delays 5s), but not the slowest step the startup probes allow, 140s (minReadySeconds 15 + image pull 60s + startupProbe of "app" 65s)',
        },
      ],
    },
    {
      name: 'the same probe with a deadline below the realistic step: warning, raised to the slowest step',
      yaml: deploy({ pds: 70, mrs: 15, app: startup('initialDelaySeconds: 5, failureThreshold: 30, periodSeconds: 2') }),
      findings: [
        {
          severity: 'warning',
          message:
            'progressDeadlineSeconds 70 is shorter than a realistic rollout step of 80s (minReadySeconds 15 + image pull 60s + probe delays 5s): a healthy rollout can be marked ProgressDeadlineExceeded and fail CI; raise progressDeadlineSeconds to at least 140s (the slowest step the startup probes allow: minReadySeconds 15 + image pull 60s + startupProbe of "app" 65s)',
        },
      ],
    },
    {
      name: 'default startupProbe fields: 0 + 3 x 10 = 30',
      yaml: deploy({ pds: 80, app: startup('') }),
      findings: [{ severity: 'info', message: 'startupProbe of "app" 30s' }],
    },
    {
      name: 'the largest main-container budget counts, plus native sidecars in sequence',
      yaml: deploy({
        pds: 180,
        podExtra: `      initContainers:
      - {name: proxy, image: p, restartPolicy: Always, ${startup('failureThreshold: 10, periodSeconds: 1')}}
`,
        app: startup('failureThreshold: 12, periodSeconds: 10'),
      }).replace('      - {name: app', `      - {name: small, image: s, ${startup('failureThreshold: 1, periodSeconds: 1')}}\n      - {name: app`),
      findings: [{ severity: 'info', message: 'the slowest step the startup probes allow, 190s (minReadySeconds 0 + image pull 60s + startupProbe of sidecar "proxy" 10s + startupProbe of "app" 120s)' }],
    },
    {
      name: 'readinessGates add 60 s: 100 < 0 + 60 + 60',
      yaml: deploy({ pds: 100, podExtra: gates }),
      findings: [{ severity: 'warning', message: 'readiness gates 60s' }],
    },
    {
      name: 'default deadline below a long step (imagePullSeconds 300): warning at /spec',
      yaml: deploy({ mrs: 400 }),
      params: { imagePullSeconds: 300 },
      findings: [{ severity: 'warning', pointer: '/spec', message: 'the default progressDeadlineSeconds (600) is shorter than a realistic rollout step of 700s' }],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: deploy({ pds: 10, mrs: 10, annotations: '"kubegrace.dev/ignore": "progress-deadline"' }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});
