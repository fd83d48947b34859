import { exitingPreStop, nativeSidecarGraceBudget } from '../../lib/rules/native-sidecar-grace-budget';
import { gracePeriodBudget } from '../../lib/rules/grace-period-budget';
import { InvalidCase, ruleTester } from '../helpers/rule-tester';

/** A Deployment with no Service in the input (served: unknown); both budget rules judge it all the same. */
function worker(podSpec: string, annotations = '', kind = 'Deployment'): string {
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata:
      labels: {app: worker}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
`;
}

const service = `---
apiVersion: v1
kind: Service
metadata: {name: worker}
spec:
  selector: {app: worker}
  ports: [{port: 80}]
`;

const sidecar = (name: string, lifecycle = '') => `      - name: ${name}
        image: helper
        restartPolicy: Always
${lifecycle}`;

const pod = (appPreStop: string, sidecars: string[], grace = '') => `${grace ? `      terminationGracePeriodSeconds: ${grace}\n` : ''}      initContainers:
${sidecars.join('')}      containers:
      - name: app
        image: worker
${appPreStop ? `        lifecycle: {preStop: ${appPreStop}}\n` : ''}`;

const sleep = (n: number) => `{sleep: {seconds: ${n}}}`;
const sidecarPreStop = (handler: string) => `        lifecycle: {preStop: ${handler}}\n`;

/**
 * Native sidecars' drain in the grace budget: judged by grace-period-budget (which adds the same
 * sidecar addends) whether the workload is served, unserved or unknown.
 */
const BUDGET_CASES: InvalidCase[] = [
    {
      name: 'unserved: preStop 15 + drain 10 + two sidecars 5 + 5 = 35 > 30 (grace defaulted: at the container)',
      yaml: worker(pod(sleep(15), [sidecar('proxy'), sidecar('logs')])),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/containers/0', message: 'container "app": preStop 15s + drain 10s (assumed) + native sidecar "proxy" drain 5s + native sidecar "logs" drain 5s = 35s exceeds the default grace period (30s)' }],
    },
    {
      name: 'a custom preStop program counts with its declared kubegrace.dev/prestop-seconds: 20 + 10 + 5 > 30',
      yaml: worker(pod('{exec: {command: [/bin/drain, --wait, "20"]}}', [sidecar('proxy')]), '"kubegrace.dev/prestop-seconds": "20"'),
      findings: [{ severity: 'warning', message: 'container "app": preStop 20s (kubegrace.dev/prestop-seconds) + drain 10s (assumed) + native sidecar "proxy" drain 5s = 35s' }],
    },
    {
      name: 'declared drain without a hook exceeds a short grace: at the grace field',
      yaml: worker(pod('', [sidecar('proxy')], '12'), '"kubegrace.dev/drain-seconds": "10"'),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/terminationGracePeriodSeconds', message: 'raise terminationGracePeriodSeconds to 20s' }],
    },
    {
      name: 'a bare hint value applies to every sidecar',
      yaml: worker(pod(sleep(10), [sidecar('a'), sidecar('b')]), '"kubegrace.dev/sidecar-drain-seconds": "6"'),
      findings: [{ severity: 'warning', message: 'native sidecar "a" drain 6s + native sidecar "b" drain 6s = 32s' }],
    },
    {
      name: 'a mesh proxy injected in native mode (annotation) counts: 20 + 10 + 5 > 30',
      yaml: worker(pod(sleep(20), []).replace('      initContainers:\n', ''), '"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true"'),
      findings: [{ severity: 'warning', message: 'native sidecar "istio-proxy" drain (injected) 5s = 35s' }],
    },
];

ruleTester(gracePeriodBudget, { valid: [], invalid: BUDGET_CASES });

ruleTester(nativeSidecarGraceBudget, {
  valid: [
    // The budget sum (TERM-001 with the sidecar drains) is grace-period-budget's finding, served or not:
    // one finding per fault.
    { name: 'no Service: 15 + 10 + 5 + 5 = 35 > 30 is reported by grace-period-budget, not here', yaml: worker(pod(sleep(15), [sidecar('proxy'), sidecar('logs')])) },
    { name: 'declared drain without a hook over a short grace: grace-period-budget reports it', yaml: worker(pod('', [sidecar('proxy')], '12'), '"kubegrace.dev/drain-seconds": "10"') },
    { name: 'a mesh proxy injected in native mode: 20 + 10 + 5 > 30 is grace-period-budget\'s', yaml: worker(pod(sleep(20), []).replace('      initContainers:\n', ''), '"sidecar.istio.io/inject": "true", "sidecar.istio.io/nativeSidecar": "true"') },
    {
      name: 'mesh-api (charts-src): classic Linkerd proxy signalled at 30s when the app exits at 30s, cloud-sql-proxy drains 30-35s <= 40s',
      yaml: worker(pod(sleep(10), [sidecar('cloud-sql-proxy')], '40'), '"kubegrace.dev/drain-seconds": "20", "linkerd.io/inject": enabled, "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "30", "config.linkerd.io/proxy-enable-native-sidecar": "false"'),
    },
    {
      name: 'Linkerd proxy whose classic mode is only a default is not assumed to delay the sidecars',
      yaml: worker(pod(sleep(10), [sidecar('logs')], '40'), '"linkerd.io/inject": enabled, "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "38"'),
    },
    { name: 'preStop 10 + drain 10 + one sidecar 5 = 25 <= 30', yaml: worker(pod(sleep(10), [sidecar('proxy')])) },
    { name: 'exactly at the budget: 15 + 10 + 5 = 30', yaml: worker(pod(sleep(15), [sidecar('proxy')])) },
    { name: 'no native sidecar: nothing to judge', yaml: worker('      containers: [{name: app, image: w, lifecycle: {preStop: {sleep: {seconds: 29}}}}]') },
    { name: 'main container without a hook and no drain hint: skipped (assumed drain)', yaml: worker(pod('', [sidecar('a'), sidecar('b')], '12')) },
    { name: 'served workload: grace-period-budget reports the same sum (no duplicate)', yaml: worker(pod(sleep(20), [sidecar('proxy')])) + service },
    // The budget sum is grace-period-budget's for every workload, served or not: one finding per fault.
    ...BUDGET_CASES.map((c) => ({ name: `no duplicate of grace-period-budget: ${c.name}`, yaml: c.yaml })),
    { name: 'per-sidecar hint lowers the need: 20 + 10 + 0 = 30', yaml: worker(pod(sleep(20), [sidecar('istio-proxy')]), '"kubegrace.dev/sidecar-drain-seconds": "istio-proxy=0"') },
    { name: 'Jobs are skipped', yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
${pod(sleep(40), [sidecar('proxy', sidecarPreStop(sleep(60)))])}` },
    { name: 'grace 0 is zero-grace-period\'s business', yaml: worker(pod(sleep(5), [sidecar('proxy')], '0')) },
    { name: 'sidecar preStop sleep at the limit (5s)', yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop(sleep(5)))])) },
    {
      name: 'Istio native injection preStop (starts the drain, no sleep, no exit)',
      yaml: worker(pod(sleep(5), [sidecar('istio-proxy', sidecarPreStop('{exec: {command: [pilot-agent, request, --debug-port=15020, POST, drain]}}'))])),
    },
    { name: 'a custom preStop program without a declared duration is not judged', yaml: worker(pod('{exec: {command: [/bin/drain, --wait, "20"]}}', [sidecar('proxy')])) },
    { name: 'kill -HUP only reloads', yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop('{exec: {command: [sh, -c, "kill -HUP 1"]}}'))])) },
    { name: 'param raises the sleep limit', yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop(sleep(10)))])), params: { maxSidecarPreStopSleepSeconds: 10 } },
  ],
  invalid: [
    {
      name: 'a classic Linkerd proxy (annotation) signalled at 38s delays the native sidecar past the 40s deadline',
      yaml: worker(pod(sleep(10), [sidecar('logs')], '40'), '"linkerd.io/inject": enabled, "config.alpha.linkerd.io/proxy-wait-before-exit-seconds": "38", "config.linkerd.io/proxy-enable-native-sidecar": "false"'),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/terminationGracePeriodSeconds',
          message: 'native sidecar "logs": its turn comes only when "linkerd-proxy" (classic linkerd proxy) exits at 38s; it needs 5s to drain, so SIGKILL at 40s cuts it: the native sidecars need 43s of terminationGracePeriodSeconds (40s); raise terminationGracePeriodSeconds to 48s',
        },
      ],
    },
    {
      name: 'a rendered classic istio-proxy draining terminationDrainDuration 30s leaves the native sidecar 2s of its 5s',
      yaml: worker(
        `      terminationGracePeriodSeconds: 32
      initContainers:
${sidecar('logs')}      containers:
      - name: app
        image: worker
        lifecycle: {preStop: {sleep: {seconds: 5}}}
      - name: istio-proxy
        image: proxyv2
`,
        '"proxy.istio.io/config": "terminationDrainDuration: 30s"',
      ),
      findings: [{ severity: 'warning', message: 'native sidecar "logs": its turn comes only when "istio-proxy" (classic istio proxy) exits at 30s; it needs 5s to drain, so SIGKILL at 32s cuts it' }],
    },
    {
      name: 'a native sidecar whose own preStop (35s) holds its SIGTERM past the point where its 10s drain fits',
      yaml: worker(pod(sleep(5), [sidecar('logs', sidecarPreStop(sleep(35)))], '40'), '"kubegrace.dev/sidecar-drain-seconds": "10"'),
      params: { maxSidecarPreStopSleepSeconds: 60 },
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/terminationGracePeriodSeconds', message: 'native sidecar "logs": its own preStop (35s) holds its SIGTERM until 35s; it needs 10s to drain, so SIGKILL at 40s cuts it' }],
    },
    {
      name: 'the same long sidecar sleep under the default limit: one finding (the sleep), not a second for the cut it causes',
      yaml: worker(pod(sleep(5), [sidecar('logs', sidecarPreStop(sleep(35)))], '40'), '"kubegrace.dev/sidecar-drain-seconds": "10"'),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop', message: 'preStop sleeps 35s' }],
    },
    {
      name: 'long sleep in a native sidecar preStop',
      yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop(sleep(20)))])),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop', message: 'native sidecar "proxy": preStop sleeps 20s (> 5s)' }],
    },
    {
      name: 'exec sleep in a native sidecar preStop (Linkerd-style wait)',
      yaml: worker(pod(sleep(5), [sidecar('linkerd-proxy', sidecarPreStop('{exec: {command: [/bin/sleep, "30"]}}'))])),
      findings: [{ severity: 'warning', message: 'preStop sleeps 30s' }],
    },
    {
      name: 'param lowers the sleep limit',
      yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop(sleep(3)))])),
      params: { maxSidecarPreStopSleepSeconds: 2 },
      findings: [{ severity: 'warning', message: '(> 2s)' }],
    },
    {
      name: 'preStop kill 1 makes the sidecar exit',
      yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop('{exec: {command: [kill, "1"]}}'))])),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop', message: 'its preStop makes it exit (it runs "kill 1")' }],
    },
    {
      name: 'shell that sleeps then kills: the exit wins',
      yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop('{exec: {command: [/bin/sh, -c, "sleep 2; kill -TERM 1"]}}'))])),
      findings: [{ severity: 'warning', message: 'kill -TERM 1' }],
    },
    {
      name: 'Envoy quitquitquit',
      yaml: worker(pod(sleep(5), [sidecar('envoy', sidecarPreStop('{exec: {command: [curl, -XPOST, "http://127.0.0.1:15000/quitquitquit"]}}'))])),
      findings: [{ severity: 'warning', message: 'it calls quitquitquit' }],
    },
    {
      name: 'param exitPatterns',
      yaml: worker(pod(sleep(5), [sidecar('vault', sidecarPreStop('{exec: {command: [vault-agent, stop]}}'))])),
      params: { exitPatterns: ['vault-agent stop'] },
      findings: [{ severity: 'warning', message: 'exit pattern' }],
    },
    {
      name: 'malformed sidecar-drain hint',
      yaml: worker(pod(sleep(5), [sidecar('proxy')]), '"kubegrace.dev/sidecar-drain-seconds": "proxy=lots"'),
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/kubegrace.dev~1sidecar-drain-seconds', message: 'cannot read "proxy=lots"' }],
    },
    {
      name: 'StatefulSet: the budget (25 + 10 + 5 > 30) is grace-period-budget\'s, the long sidecar sleep is reported here',
      yaml: worker(pod(sleep(25), [sidecar('proxy', sidecarPreStop(sleep(10)))], '30'), '', 'StatefulSet'),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: worker(pod(sleep(5), [sidecar('proxy', sidecarPreStop(sleep(30)))]), '"kubegrace.dev/ignore": "native-sidecar-grace-budget"'),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

describe('exitingPreStop', () => {
  test.each([
    [['kill', '1'], true],
    [['/bin/kill', '-s', 'TERM', '1'], true],
    [['pkill', 'envoy'], true],
    [['sh', '-c', 'killall -9 fluent-bit'], true],
    [['sh', '-c', 'kill -0 1'], false],
    [['sh', '-c', 'kill -s HUP 1'], false],
    [['sh', '-c', 'kill -USR1 1'], false],
    [['pilot-agent', 'request', 'POST', 'quitquitquit'], true],
    [['pilot-agent', 'request', 'POST', '/quitquitquit'], true],
    [['curl', '-X', 'POST', 'http://localhost:4191/shutdown'], true],
    [['wget', '-qO-', 'http://localhost:4191/ready'], false],
    [['nginx', '-s', 'quit'], true],
    [['nginx', '-s', 'reload'], false],
    [['sleep', '5'], false],
  ])('%j exits: %s', (cmd, exits) => {
    expect(exitingPreStop(cmd as string[]) !== undefined).toBe(exits);
  });
});
