import { prestopSleepAction } from '../../lib/rules/prestop-sleep-action';
import { ruleTester } from '../helpers/rule-tester';

/** A Deployment selected by a Service (app=web) unless `served` is false. */
function deploy(podSpec: string, opts: { served?: boolean; annotations?: string; kind?: string } = {}): string {
  const svc =
    opts.served === false
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
kind: ${opts.kind ?? 'Deployment'}
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${podSpec}
${svc}`;
}

const app = (lifecycle: string, image = 'web:1') => `      containers:
      - name: app
        image: ${image}
        ports: [{containerPort: 8080}]
        lifecycle: ${lifecycle}
`;
const EXEC_SLEEP = '{preStop: {exec: {command: [sleep, "10"]}}}';
const SH_SLEEP = '{preStop: {exec: {command: [sh, -c, "sleep 5"]}}}';
const C0 = '/spec/template/spec/containers/0';

ruleTester(prestopSleepAction, {
  valid: [
    { name: 'exec sleep on 1.29: the sleep action is not available', yaml: deploy(app(EXEC_SLEEP)), kubeVersion: '1.29' },
    {
      name: 'exec sleep on an unserved workload (another Service in the namespace; info only for served containers)',
      yaml: `${deploy(app(EXEC_SLEEP), { served: false })}---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {selector: {app: other}, ports: [{port: 80}]}\n`,
      kubeVersion: '1.33',
    },
    { name: 'exec sleep with served hint "false"', yaml: deploy(app(EXEC_SLEEP), { annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'exec that sleeps then does more cannot be replaced', yaml: deploy(app('{preStop: {exec: {command: [sh, -c, "sleep 5 && nginx -s quit"]}}}')) },
    { name: 'exec of another command', yaml: deploy(app('{preStop: {exec: {command: [/wait-shutdown]}}}')) },
    { name: 'sleep action on 1.30 within range', yaml: deploy(app('{preStop: {sleep: {seconds: 10}}}')), kubeVersion: '1.30' },
    { name: 'sleep seconds equal to the grace period is allowed', yaml: deploy(`      terminationGracePeriodSeconds: 20\n${app('{preStop: {sleep: {seconds: 20}}}')}`) },
    { name: 'sleep seconds 0 on 1.33 (PodLifecycleSleepActionAllowZero on)', yaml: deploy(app('{preStop: {sleep: {seconds: 0}}}')), kubeVersion: '1.33' },
    { name: 'distroless :debug tag has a busybox shell', yaml: deploy(app(EXEC_SLEEP, 'gcr.io/distroless/static:debug'), { annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'unserved exec sleep in a normal image', yaml: deploy(app(SH_SLEEP, 'nginx:1.27'), { annotations: '"kubegrace.dev/served": "false"' }) },
    // Review round 29: only these tags of the two projects have a shell (oauth2-proxy Makefile build-alpine;
    // zitadel's debug stage), and oauth2-proxy was alpine-based up to v7.5.1.
    ...['quay.io/oauth2-proxy/oauth2-proxy:v7.15.3-alpine', 'quay.io/oauth2-proxy/oauth2-proxy:latest-alpine', 'quay.io/oauth2-proxy/oauth2-proxy:v7.5.1', 'quay.io/oauth2-proxy/oauth2-proxy@sha256:0123abcd', 'ghcr.io/zitadel/zitadel:v2.68.1-debug', 'ghcr.io/zitadel/zitadel-login:v4.13.0'].map((image) => ({
      name: `${image}: has a shell, no warning`,
      yaml: deploy(app(SH_SLEEP, image), { annotations: '"kubegrace.dev/served": "false"' }),
    })),
  ],
  invalid: [
    {
      name: 'unknown served (no Service in the set) with a declared port: the info applies, as for a served container',
      yaml: deploy(app(EXEC_SLEEP), { served: false }),
      kubeVersion: '1.33',
      findings: [{ severity: 'info', pointer: `${C0}/lifecycle/preStop/exec`, message: 'only sleeps 10s' }],
    },
    {
      name: 'exec sleep on a served container, 1.30: info with the sleep-action fix',
      yaml: deploy(app(EXEC_SLEEP)),
      kubeVersion: '1.30',
      findings: [{ severity: 'info', pointer: `${C0}/lifecycle/preStop/exec`, message: 'container "app": preStop exec ["sleep","10"] only sleeps 10s, which the kubelet\'s sleep action does without a shell or sleep binary in the image (on 1.30); use' }],
    },
    {
      name: 'sh -c "sleep 5": info',
      yaml: deploy(app(SH_SLEEP)),
      findings: [{ severity: 'info', message: 'lifecycle: {preStop: {sleep: {seconds: 5}}}' }],
    },
    {
      name: 'served by hint "true" without a Service',
      yaml: deploy(app(EXEC_SLEEP), { served: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'distroless image: warning',
      yaml: deploy(app(EXEC_SLEEP, 'gcr.io/distroless/static-debian12:nonroot')),
      findings: [{ severity: 'warning', pointer: `${C0}/lifecycle/preStop/exec`, message: 'cannot run in the shell-less image "gcr.io/distroless/static-debian12:nonroot"' }],
    },
    {
      // Review round 26 (karmada): the control plane's images are built on the distroless go-runner.
      name: 'registry.k8s.io/kube-apiserver (and k8s.gcr.io/kube-scheduler): shell-less, warning',
      yaml: deploy(app(EXEC_SLEEP, 'registry.k8s.io/kube-apiserver:v1.31.0')) + '---\n' + deploy(app(EXEC_SLEEP, 'k8s.gcr.io/kube-scheduler:v1.22.0')).replace(/\bweb\b/g, 'web1'),
      findings: [
        { severity: 'warning', message: 'cannot run in the shell-less image "registry.k8s.io/kube-apiserver:v1.31.0"' },
        { severity: 'warning', message: 'cannot run in the shell-less image "k8s.gcr.io/kube-scheduler:v1.22.0"' },
      ],
    },
    {
      // Review round 29: the oauth2-proxy chart's default image is distroless (oauth2-proxy Makefile:61,
      // :82-83) and its values.yaml suggests sh -c "sleep 60"; zitadel's is FROM scratch.
      name: 'oauth2-proxy (v7.6.0 and later, latest, bare name) and zitadel images: shell-less, warning',
      yaml: ['quay.io/oauth2-proxy/oauth2-proxy:v7.15.3', 'quay.io/oauth2-proxy/oauth2-proxy', 'quay.io/oauth2-proxy/oauth2-proxy:v7.6.0-amd64@sha256:0123abcd', 'ghcr.io/zitadel/zitadel:v4.13.0']
        .map((image, i) => deploy(app(SH_SLEEP, image), { served: false }).replace(/\bweb\b/g, `web${i}`))
        .join('---\n'),
      findings: [
        { severity: 'warning', message: 'cannot run in the shell-less image "quay.io/oauth2-proxy/oauth2-proxy:v7.15.3"' },
        { severity: 'warning', message: 'cannot run in the shell-less image "quay.io/oauth2-proxy/oauth2-proxy"' },
        { severity: 'warning', message: 'cannot run in the shell-less image "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0-amd64@sha256:0123abcd"' },
        { severity: 'warning', message: 'cannot run in the shell-less image "ghcr.io/zitadel/zitadel:v4.13.0"' },
      ],
    },
    {
      name: 'chainguard static image: warning even when not served',
      yaml: deploy(app(SH_SLEEP, 'cgr.dev/chainguard/static:latest'), { served: false }),
      findings: [{ severity: 'warning', message: 'FailedPreStopHook' }],
    },
    {
      name: 'shell-less image on 1.29: warning, fix without the sleep action',
      yaml: deploy(app(EXEC_SLEEP, 'gcr.io/distroless/base')),
      kubeVersion: '1.29',
      findings: [{ severity: 'warning', message: 'the sleep action is not available (needs >= 1.30)' }],
    },
    {
      name: 'custom shellLessImagePatterns param',
      yaml: deploy(app(EXEC_SLEEP, 'registry.example.com/minimal/app:1')),
      params: { shellLessImagePatterns: ['/minimal/'] },
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'sleep action on 1.29 (alpha, off): error',
      yaml: deploy(app('{preStop: {sleep: {seconds: 10}}}')),
      kubeVersion: '1.29',
      findings: [{ severity: 'error', pointer: `${C0}/lifecycle/preStop/sleep`, message: 'needs Kubernetes >= 1.30 (PodLifecycleSleepAction is alpha and off by default on 1.29)' }],
    },
    {
      name: 'sleep action on 1.28: error',
      yaml: deploy(app('{preStop: {sleep: {seconds: 10}}}')),
      kubeVersion: '1.28',
      findings: [{ severity: 'error', message: 'does not exist on 1.28' }],
    },
    {
      name: 'sleep action on a native sidecar on 1.29, not served: error',
      yaml: deploy(`      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, lifecycle: {preStop: {sleep: {seconds: 5}}}}
      containers:
      - {name: app, image: web:1}
`, { served: false }),
      kubeVersion: '1.29',
      findings: [{ severity: 'error', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop/sleep', message: 'container "proxy"' }],
    },
    {
      name: 'postStart sleep action on 1.29: error',
      yaml: deploy(app('{postStart: {sleep: {seconds: 1}}}')),
      kubeVersion: '1.29',
      findings: [{ severity: 'error', pointer: `${C0}/lifecycle/postStart/sleep` }],
    },
    {
      name: 'sleep seconds 0 on 1.32: error',
      yaml: deploy(app('{preStop: {sleep: {seconds: 0}}}')),
      kubeVersion: '1.32',
      findings: [{ severity: 'error', pointer: `${C0}/lifecycle/preStop/sleep/seconds`, message: 'requires a value > 0 on 1.32 (0 is allowed from 1.33' }],
    },
    {
      name: 'negative sleep seconds on 1.33: error',
      yaml: deploy(app('{preStop: {sleep: {seconds: -1}}}')),
      kubeVersion: '1.33',
      findings: [{ severity: 'error', message: 'non-negative' }],
    },
    {
      name: 'sleep seconds above the grace period: error',
      yaml: deploy(`      terminationGracePeriodSeconds: 20\n${app('{preStop: {sleep: {seconds: 25}}}')}`),
      findings: [{ severity: 'error', pointer: `${C0}/lifecycle/preStop/sleep/seconds`, message: 'sleep.seconds 25 exceeds terminationGracePeriodSeconds (20s)' }],
    },
    {
      name: 'sleep seconds above the default grace period: error, any workload',
      yaml: deploy(app('{preStop: {sleep: {seconds: 31}}}'), { served: false }),
      findings: [{ severity: 'error', message: 'exceeds the default grace period (30s)' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: deploy(app(EXEC_SLEEP), { annotations: '"kubegrace.dev/ignore": "prestop-sleep-action"' }),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});
