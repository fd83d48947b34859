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
  ],
  invalid: [
    {
      // The readiness probe's initial delay (120 s) outlasts the startup probe's budget (30 s): the realistic step is the longer one.
      name: 'a readiness initialDelaySeconds longer than the startupProbe budget: the deadline must cover the realistic step, raised to it',
      yaml: deploy({ pds: 150, app: `${startup('')}, readinessProbe: {httpGet: {path: /, port: 8080}, initialDelaySeconds: 120}` }),
      findings: [{ severity: 'warning', message: /^progressDeadlineSeconds 150 is shorter than a realistic rollout step of 180s \(minReadySeconds 0 \+ image pull 60s \+ probe delays 120s\): a healthy rollout can be marked ProgressDeadlineExceeded and fail CI; raise progressDeadlineSeconds to at least 180s$/ }],
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
