import { ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { gracePeriodBudget } from '../../lib/rules/grace-period-budget';
import { coredns, corefile } from '../helpers/coredns';
import { interceptor, KEDA_CHART_IMAGE } from '../helpers/keda';
import { langfuseWeb } from '../helpers/langfuse';
import { tykGateway } from '../helpers/tyk';
import { activator, pkgWebhook, SERVING_WEBHOOK_IMAGE, TEKTON_WEBHOOK_IMAGE } from '../helpers/knative';
import { ruleTester, runRule } from '../helpers/rule-tester';
import { skipper } from '../helpers/skipper';

/** A served Deployment: the Service selects app=web. */
function deploy(podSpec: string, annotations = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}
const container = (lifecycle: string) => `      containers:
      - name: app
        image: web:1
        ports: [{containerPort: 8080}]
${lifecycle}`;

/**
 * Contour's Envoy pod: Envoy's httpGet /shutdown on 8090 waits for the shutdown-manager's hook (at
 * least --drain-delay + --check-delay: 60s by default before Contour 1.22.0, 0s from it).
 */
const contourPod = (grace: number, tag = 'v1.21.3', shutdown = '/bin/contour, envoy, shutdown') => `      terminationGracePeriodSeconds: ${grace}
      containers:
      - name: shutdown-manager
        image: ghcr.io/projectcontour/contour:${tag}
        args: [envoy, shutdown-manager]
        lifecycle: {preStop: {exec: {command: [${shutdown}]}}}
      - name: envoy
        image: envoyproxy/envoy:v1.31.0
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {httpGet: {path: /shutdown, port: 8090}}}`;

ruleTester(gracePeriodBudget, {
  valid: [
    { name: "CoreDNS lameduck 10s (the coredns chart's): 10s serving + 10s drain fit the default 30s", yaml: coredns() },
    { name: 'CoreDNS lameduck 25s with a grace period of 40s', yaml: coredns({ corefile: corefile('25s'), grace: 40 }) },
    { name: 'CoreDNS whose ConfigMap is not in the input: no lameduck is assumed', yaml: coredns({ corefile: false, grace: 5 }) },
    { name: 'Knative activator: 45s serving after SIGTERM + drain 10s fit its grace period of 600s', yaml: activator() },
    { name: 'Langfuse web: 110s serving after SIGTERM + drain 10s fit a grace period of 125s', yaml: langfuseWeb({ grace: 125 }) },
    { name: 'Skipper: -wait-for-healthcheck-interval 45s (default) + drain 10s fit a grace period of 60s', yaml: skipper({ grace: 60 }) },
    { name: 'Skipper with -wait-for-healthcheck-interval=15s: 15s + drain 10s fit the default 30s', yaml: skipper({ args: ['skipper', '-kubernetes', '-address=:9999', '-wait-for-healthcheck-interval=15s'] }) },
    { name: 'Knative Serving webhook: until its clients stop (10s) + drain 10s fit its grace period of 300s', yaml: pkgWebhook({ image: SERVING_WEBHOOK_IMAGE, grace: 300 }) },
    { name: 'Knative Serving webhook with the default 30s: its quiet period is no time it needs (review round 35, report p54 item 5)', yaml: pkgWebhook({ image: SERVING_WEBHOOK_IMAGE, grace: null }) },
    { name: 'KEDA HTTP interceptor (kustomize config/default): KEDA_HTTP_SHUTDOWN_DELAY 5s + KEDA_HTTP_DRAIN_TIMEOUT 30s (defaults) fit its grace period of 45s', yaml: interceptor() },
    { name: "Contour: Envoy's httpGet lasts as long as the shutdown-manager's hook, 60 + 10 <= 300", yaml: deploy(contourPod(300)) },
    { name: 'Contour 1.22.0 and later with grace 45: --check-delay defaults to 0s, so the hook has no minimum to exceed the grace period', yaml: deploy(contourPod(45, 'v1.33.0')) },
    { name: 'Contour with an image tag that is no version: taken as current (0s)', yaml: deploy(contourPod(45, 'main')) },
    { name: 'no preStop, default drain 10 < default grace 30', yaml: deploy(container('')) },
    { name: 'sleep 10 + drain 10 <= 30', yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 10}}}')) },
    { name: 'exactly at the budget: 20 + 10 = 30', yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 20}}}')) },
    { name: 'httpGet preStop: delay unknown, skipped', yaml: deploy(container('        lifecycle: {preStop: {httpGet: {path: /drain, port: 8080}}}')) },
    { name: 'exec of an unknown command: skipped', yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}')) },
    { name: 'grace 0 is zero-grace-period\'s business', yaml: deploy(`      terminationGracePeriodSeconds: 0\n${container('        lifecycle: {preStop: {sleep: {seconds: 5}}}')}`) },
    { name: 'short grace without a hook or drain hint: left to prestop-missing', yaml: deploy(`      terminationGracePeriodSeconds: 5\n${container('')}`) },
    {
      name: 'custom program with a declared duration that fits: 15 + 10 + 5 margin <= 30',
      yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [/bin/drain, --wait, "15"]}}}'), '"kubegrace.dev/prestop-seconds": "15"'),
    },
    {
      name: 'prestop-seconds does not override a bare sleep (known duration)',
      yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 10}}}'), '"kubegrace.dev/prestop-seconds": "40"'),
    },
    {
      name: 'prestop-seconds for another container does not apply',
      yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [/bin/drain]}}}'), '"kubegrace.dev/prestop-seconds": "worker=40"'),
    },
    {
      name: 'the hint wins over a recognised wait command (teleport wait 30s alone is an error)',
      yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [teleport, wait, duration, 30s]}}}'), '"kubegrace.dev/prestop-seconds": "12"'),
    },
    { name: 'drain hint lowers the need', yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 25}}}'), '"kubegrace.dev/drain-seconds": "5"') },
  ],
  invalid: [
    {
      // (Review round 12: Gloo's gateway-proxy gracefulShutdown hook with sleepTimeSeconds 25 and a 20s grace.)
      name: 'a shell hook that ends with a sleep lasts at least that sleep: 25s >= grace 20s',
      yaml: deploy(`      terminationGracePeriodSeconds: 20\n${container('        lifecycle: {preStop: {exec: {command: [/bin/sh, -c, "wget -O /dev/null 127.0.0.1:19000/healthcheck/fail; sleep 25"]}}}\n')}`),
      findings: [{ severity: 'error', message: 'container "app": preStop delay 25s >= terminationGracePeriodSeconds (20s)' }],
    },
    {
      // (Review round 30: Seldon Core v2's Envoy hook, SeldonConfig seldon-envoy: the sleep on its own
      // line with a quoted argument; a newline ends a command like ';'.)
      name: 'a script whose last line is a quoted sleep lasts at least that sleep: 30s >= grace 20s',
      yaml: deploy(
        `      terminationGracePeriodSeconds: 20\n${container(
          '        lifecycle: {preStop: {exec: {command: [/bin/sh, -c, "echo -ne \\"POST /healthcheck/fail HTTP/1.1\\\\r\\\\n\\\\r\\\\n\\" > /dev/tcp/localhost/9901\\nsleep \'30\'\\n"]}}}\n',
        )}`,
      ),
      findings: [{ severity: 'error', message: 'container "app": preStop delay 30s >= terminationGracePeriodSeconds (20s)' }],
    },
    {
      // (Review round 12: the hint stands in place of a preStop delay for prestop-missing, so the budget counts it.)
      name: 'the serves-after-sigterm hint counts like a program\'s own time serving after SIGTERM: 45s + drain 10s > grace 30s',
      yaml: deploy(`      terminationGracePeriodSeconds: 30\n${container('')}`, '"kubegrace.dev/serves-after-sigterm-seconds": "45"'),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/terminationGracePeriodSeconds',
          message: 'container "app": serving after SIGTERM 45s (kubegrace.dev/serves-after-sigterm-seconds hint) + drain 10s (assumed) = 55s exceeds terminationGracePeriodSeconds (30s)',
        },
      ],
    },
    {
      name: 'CoreDNS lameduck 25s: it exits only after the lameduck and its drain, beyond the default 30s',
      yaml: coredns({ corefile: corefile('25s') }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/containers/0',
          message:
            'container "coredns": serving after SIGTERM 25s (lameduck 25s in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)) + drain 10s (assumed) = 35s exceeds the default grace period (30s); in-flight work is killed at the deadline: raise terminationGracePeriodSeconds to 40s',
        },
      ],
    },
    {
      name: 'CoreDNS lameduck 20s after a preStop sleep of 5s: the hook, then the lameduck, then the drain',
      yaml: coredns({ corefile: corefile('20s'), lifecycle: 'lifecycle: {preStop: {sleep: {seconds: 5}}}' }),
      findings: [{ severity: 'warning', message: 'container "coredns": preStop 5s + serving after SIGTERM 20s (lameduck 20s in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile)) + drain 10s (assumed) = 35s exceeds' }],
    },
    {
      name: 'Contour 1.33 with an explicit --drain-delay=40s and grace 45: both hooks need 40 + 10',
      yaml: deploy(contourPod(45, 'v1.33.0', '/bin/contour, envoy, shutdown, --drain-delay=40s')),
      findings: [
        { severity: 'warning', message: 'container "envoy": preStop 40s + drain 10s (assumed) = 50s exceeds terminationGracePeriodSeconds (45s)' },
        { severity: 'warning', message: 'container "shutdown-manager": preStop 40s + drain 10s (assumed) = 50s exceeds terminationGracePeriodSeconds (45s)' },
      ],
    },
    {
      name: "Contour before 1.22 with grace 65: the shutdown-manager's hook and Envoy's, which waits for it, both need 60 + 10",
      yaml: deploy(contourPod(65)),
      findings: [
        { severity: 'warning', message: 'container "envoy": preStop 60s + drain 10s (assumed) = 70s exceeds terminationGracePeriodSeconds (65s)' },
        { severity: 'warning', message: 'container "shutdown-manager": preStop 60s + drain 10s (assumed) = 70s exceeds terminationGracePeriodSeconds (65s)' },
      ],
    },
    {
      // The headline case of graceful-termination.md section 0: one file per object, no Service in it.
      name: 'unknown served (a file holding only the Deployment): sleep 40 >= default grace 30 is an error',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      containers: [{name: app, image: w, lifecycle: {preStop: {sleep: {seconds: 40}}}}]
`,
      findings: [{ severity: 'error', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', message: 'preStop delay 40s >= the default grace period (30s)' }],
    },
    {
      name: 'unserved by hint: the hook is still judged against the grace it spends',
      yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 40}}}'), '"kubegrace.dev/served": "false"'),
      findings: [{ severity: 'error', message: 'preStop delay 40s >=' }],
    },
    {
      name: 'unserved (another Service in the namespace selects other pods): sleep 25 + drain 10 > 30 warns',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      containers: [{name: app, image: w, lifecycle: {preStop: {sleep: {seconds: 25}}}}]
---
apiVersion: v1
kind: Service
metadata: {name: other}
spec: {selector: {app: other}, ports: [{port: 80}]}
`,
      findings: [{ severity: 'warning', message: 'preStop 25s + drain 10s (assumed) = 35s exceeds the default grace period (30s)' }],
    },
    {
      name: 'unknown served with a native sidecar: its drain is part of the sum (15 + 10 + 5 > 28)',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      terminationGracePeriodSeconds: 28
      initContainers: [{name: log-shipper, image: fluent-bit, restartPolicy: Always}]
      containers: [{name: app, image: w, lifecycle: {preStop: {sleep: {seconds: 15}}}}]
`,
      findings: [{ severity: 'warning', message: 'native sidecar "log-shipper" drain 5s = 30s exceeds' }],
    },
    {
      name: 'sleep action equal to grace: error',
      yaml: deploy(`      terminationGracePeriodSeconds: 15\n${container('        lifecycle: {preStop: {sleep: {seconds: 15}}}')}`),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', message: 'preStop delay 15s >= terminationGracePeriodSeconds (15s)' }],
    },
    {
      name: 'exec sleep longer than the default grace: error',
      yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 45"]}}}')),
      findings: [{ severity: 'error', message: 'the default grace period (30s)' }],
    },
    {
      name: 'teleport wait duration pattern counts as a delay',
      yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [teleport, wait, duration, 30s]}}}')),
      findings: [{ severity: 'error', message: 'preStop delay 30s' }],
    },
    {
      name: 'sleep 25 + drain 10 > 30: warning at the container (grace defaulted)',
      yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 25}}}')),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/containers/0', message: 'preStop 25s + drain 10s (assumed) = 35s' }],
    },
    {
      name: 'drain hint alone exceeds grace: warning at the grace field',
      yaml: deploy(`      terminationGracePeriodSeconds: 20\n${container('')}`, '"kubegrace.dev/drain-seconds": "30s"'),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/terminationGracePeriodSeconds', message: /drain 30s = 30s exceeds/ }],
    },
    {
      // The 10 s default is said to be assumed (the vault chart's preStop sleep 5 + SIGTERM, where Vault closes its listeners at once); a declared one is not.
      name: 'a declared drain of 10 s is not "assumed"',
      yaml: deploy(`      terminationGracePeriodSeconds: 12\n${container('        lifecycle: {preStop: {sleep: {seconds: 5}}}')}`, '"kubegrace.dev/drain-seconds": "10"'),
      findings: [{ severity: 'warning', message: /: preStop 5s \+ drain 10s = 15s exceeds terminationGracePeriodSeconds \(12s\)/ }],
    },
    {
      name: 'custom program declared by kubegrace.dev/prestop-seconds: judged like a sleep (issue 13: /bin/drain --wait 25)',
      yaml: deploy(`      terminationGracePeriodSeconds: 15\n${container('        lifecycle: {preStop: {exec: {command: [/bin/drain, --wait, "25"]}}}')}`, '"kubegrace.dev/prestop-seconds": "25"'),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/containers/0/lifecycle/preStop', message: 'container "app": preStop delay 25s (kubegrace.dev/prestop-seconds) >= terminationGracePeriodSeconds (15s): the app gets only 2s after SIGTERM before SIGKILL; raise the grace period to at least 40s' }],
    },
    {
      name: 'per-container entry and a Go duration; httpGet hooks can be declared too',
      yaml: deploy(container('        lifecycle: {preStop: {httpGet: {path: /drain, port: 8080}}}'), '"kubegrace.dev/prestop-seconds": "app=25s"'),
      findings: [{ severity: 'warning', message: 'preStop 25s (kubegrace.dev/prestop-seconds) + drain 10s (assumed) = 35s' }],
    },
    {
      name: 'a malformed prestop-seconds hint is reported at the annotation, the hook is not judged',
      yaml: deploy(container('        lifecycle: {preStop: {exec: {command: [/bin/drain]}}}'), '"kubegrace.dev/prestop-seconds": "soon"'),
      findings: [{ severity: 'warning', pointer: '/spec/template/metadata/annotations/kubegrace.dev~1prestop-seconds', message: 'cannot read "soon" in kubegrace.dev/prestop-seconds' }],
    },
    {
      name: 'served by hint without a Service',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}, annotations: {kubegrace.dev/served: "true"}}
    spec:
      containers: [{name: app, image: a, lifecycle: {preStop: {sleep: {seconds: 40}}}}]
`,
      findings: [{ severity: 'error', object: 'Deployment/api' }],
    },
    {
      name: 'suppressed findings are kept, marked suppressed',
      yaml: deploy(container('        lifecycle: {preStop: {sleep: {seconds: 45}}}'), '"kubegrace.dev/ignore": "grace-period-budget", "kubegrace.dev/ignore-reason": "load test"'),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});

describe('grace-period-budget with a lameduck beyond the grace period', () => {
  test('the repair raises the grace period to lameduck + drain + margin', () => {
    const [f] = runRule(gracePeriodBudget, coredns({ corefile: corefile('40s') }));
    expect(f.fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 55 }]);
  });
});

// Outside the rule table: the exported admission policy does not count a program's time serving
// after SIGTERM (its restriction says so), and the table is also what test/admission checks the
// policies against.
describe('grace-period-budget: programs that serve a fixed time after SIGTERM (catalog)', () => {
  test('Knative activator with the default grace period: 45s serving after SIGTERM + drain 10s exceed 30s', () => {
    const got = runRule(gracePeriodBudget, activator({ grace: null }));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/0']]);
    expect(got[0].message).toContain('container "activator": serving after SIGTERM 45s (fixed in the program) + drain 10s (assumed) = 55s exceeds the default grace period (30s)');
  });
  test("Langfuse web as the langfuse-k8s chart renders it (no grace period): SIGKILL at 30s while it still serves, inside its 110s wait", () => {
    const got = runRule(gracePeriodBudget, langfuseWeb());
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/0']]);
    expect(got[0].message).toContain('container "langfuse-web": serving after SIGTERM 110s (fixed in the program) + drain 10s (assumed) = 120s exceeds the default grace period (30s)');
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 125 }]);
  });
  test('Langfuse web with a grace period of 60s: still inside the 110s wait', () => {
    const got = runRule(gracePeriodBudget, langfuseWeb({ grace: 60 }));
    expect(got.map((f) => f.message)).toEqual([expect.stringContaining('container "langfuse-web": serving after SIGTERM 110s (fixed in the program) + drain 10s (assumed) = 120s exceeds terminationGracePeriodSeconds (60s)')]);
  });
  test('Tyk Gateway v5.14.0 with TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS 45 and a grace period of 30s: SIGKILL inside the delay', () => {
    const got = runRule(gracePeriodBudget, tykGateway({ delay: '45', grace: 30 }));
    expect(got.map((f) => [f.severity, f.message])).toEqual([
      ['warning', expect.stringContaining('container "gateway-tyk-gateway": serving after SIGTERM 45s (TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS=45) + drain 10s (assumed) = 55s exceeds terminationGracePeriodSeconds (30s)')],
    ]);
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 60 }]);
  });
  test('Tyk Gateway v5.13.1: the variable is not read (no delay before v5.14.0), so the same pod fits', () => {
    expect(runRule(gracePeriodBudget, tykGateway({ image: 'docker.tyk.io/tyk-gateway/tyk-gateway:v5.13.1', delay: '45', grace: 30 }))).toEqual([]);
  });
  test("Tekton Pipelines webhook with the default 30s: SIGKILL ends the drainer's quiet period of 45s at no loss (review round 35, report p54 item 5)", () => {
    // knative/pkg network/handlers/drain.go: each request restarts the quiet period, so once endpoint
    // removal has stopped the API server's requests, nothing is in flight when SIGKILL comes.
    expect(runRule(gracePeriodBudget, pkgWebhook({ image: TEKTON_WEBHOOK_IMAGE, grace: null }))).toEqual([]);
  });
  test('Tekton Pipelines webhook with a grace period of 5s: shorter than the endpoint propagation and the requests in flight', () => {
    const got = runRule(gracePeriodBudget, pkgWebhook({ image: TEKTON_WEBHOOK_IMAGE, grace: 5 }));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/terminationGracePeriodSeconds']]);
    expect(got[0].message).toContain(
      'container "webhook": serving after SIGTERM 10s (until its clients stop sending: the endpoint-propagation time, 10s; its quiet period of 45s, fixed in the program and restarted by each request, may then end at SIGKILL at no loss) + drain 10s (assumed) = 20s exceeds terminationGracePeriodSeconds (5s)',
    );
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 25 }]);
  });
});

describe('grace-period-budget: Skipper (catalog skipper-wait-for-healthcheck: the wait from its flag)', () => {
  test("docs/kubernetes/deploy's Skipper with the default grace period: SIGKILL at 30s, inside the 45s wait, before its graceful shutdown starts", () => {
    const got = runRule(gracePeriodBudget, skipper());
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/0']]);
    expect(got[0].message).toContain(
      'container "skipper-ingress": serving after SIGTERM 45s (-wait-for-healthcheck-interval not set, default 45s) + drain 10s (assumed) = 55s exceeds the default grace period (30s)',
    );
    expect(got[0].fix?.edits).toEqual([{ op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 60 }]);
  });
  test('the wait a -config-file ConfigMap sets counts', () => {
    const yaml = skipper({ args: ['skipper', '-kubernetes', '-config-file=/etc/skipper/config.yaml'], grace: 30, configMap: 'wait-for-healthcheck-interval: 25s' });
    const got = runRule(gracePeriodBudget, yaml);
    expect(got.map((f) => f.message)).toEqual([expect.stringContaining('serving after SIGTERM 25s (wait-for-healthcheck-interval: 25s in /etc/skipper/config.yaml (ConfigMap kube-system/skipper-config, key config.yaml)) + drain 10s (assumed) = 35s exceeds terminationGracePeriodSeconds (30s)')]);
  });
});

// Outside the rule table too: the admission policy counts neither the interceptor's delay nor its drain.
describe('grace-period-budget: the KEDA HTTP interceptor (catalog keda-http-interceptor: delay and drain from env)', () => {
  test('the default grace period cannot hold the default 5s serving after SIGTERM + 30s drain', () => {
    const got = runRule(gracePeriodBudget, interceptor({ grace: null }));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/0']]);
    expect(got[0].message).toContain('container "interceptor": serving after SIGTERM 5s (KEDA_HTTP_SHUTDOWN_DELAY unset, default 5s) + drain 30s (KEDA_HTTP_DRAIN_TIMEOUT unset, default 30s) = 35s exceeds the default grace period (30s)');
    expect(got[0].message).toContain('raise terminationGracePeriodSeconds to 40s');
  });
  test('KEDA_HTTP_DRAIN_TIMEOUT 60s is its drain: 5s + 60s do not fit 45s', () => {
    const got = runRule(gracePeriodBudget, interceptor({ image: KEDA_CHART_IMAGE, env: ['{name: KEDA_HTTP_SHUTDOWN_DELAY, value: 5s}', '{name: KEDA_HTTP_DRAIN_TIMEOUT, value: 1m}'] }));
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain('serving after SIGTERM 5s (KEDA_HTTP_SHUTDOWN_DELAY=5s) + drain 60s (KEDA_HTTP_DRAIN_TIMEOUT=1m) = 65s exceeds terminationGracePeriodSeconds (45s)');
  });
  test('a declared kubegrace.dev/drain-seconds wins over KEDA_HTTP_DRAIN_TIMEOUT', () => {
    const env = ['{name: KEDA_HTTP_DRAIN_TIMEOUT, value: 2m}'];
    expect(runRule(gracePeriodBudget, interceptor({ env }))).toHaveLength(1);
    const yaml = interceptor({ env, annotations: "kubegrace.dev/drain-seconds: '20'" });
    expect(runRule(gracePeriodBudget, yaml)).toEqual([]);
  });
  test('KEDA_HTTP_DRAIN_TIMEOUT 0 waits with no limit: no drain is read, the default 10s is drawn (5s + 10s fit 45s)', () => {
    expect(runRule(gracePeriodBudget, interceptor({ env: ['{name: KEDA_HTTP_DRAIN_TIMEOUT, value: "0"}'] }))).toEqual([]);
  });
  test('0.14.0 does not delay or drain by itself: nothing to judge without a hook', () => {
    expect(runRule(gracePeriodBudget, interceptor({ image: 'ghcr.io/kedacore/http-add-on-interceptor:0.14.0', grace: null }))).toEqual([]);
  });
});

// A program whose drain the catalog reads from its own settings is judged without a hook, as a
// declared drain is (review round 20: the AWS Node Termination Handler waits for the node drains
// in flight, each bounded by NODE_TERMINATION_GRACE_PERIOD, default 120s; its chart leaves the grace period at 30s).
describe('grace-period-budget: the AWS Node Termination Handler (catalog aws-node-termination-handler: drain from env)', () => {
  const nth = (o: { grace?: number; env?: string; image?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: nth, namespace: kube-system}
spec:
  replicas: 1
  selector: {matchLabels: {app: nth}}
  template:
    metadata: {labels: {app: nth}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: aws-node-termination-handler
        image: ${o.image ?? 'public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.25.6'}
        env: [{name: ENABLE_SQS_TERMINATION_DRAINING, value: "true"}${o.env ? `, ${o.env}` : ''}]
`;
  test('the chart default: drains of up to 120s in flight, killed at the default 30s', () => {
    const got = runRule(gracePeriodBudget, nth());
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/0']]);
    expect(got[0].message).toContain('container "aws-node-termination-handler": preStop 0s + drain 120s (NODE_TERMINATION_GRACE_PERIOD unset, default 120s) = 120s exceeds the default grace period (30s)');
    expect(got[0].message).toContain('raise terminationGracePeriodSeconds to 125s');
  });
  test('NODE_TERMINATION_GRACE_PERIOD 60 within a 90s grace period: fits', () => {
    expect(runRule(gracePeriodBudget, nth({ grace: 90, env: '{name: NODE_TERMINATION_GRACE_PERIOD, value: "60"}' }))).toEqual([]);
    expect(runRule(gracePeriodBudget, nth({ grace: 90, env: '{name: NODE_TERMINATION_GRACE_PERIOD, value: "120"}' }))).toHaveLength(1);
  });
  test('set from a ConfigMap: the drain is unknown, not judged', () => {
    expect(runRule(gracePeriodBudget, nth({ env: '{name: NODE_TERMINATION_GRACE_PERIOD, valueFrom: {configMapKeyRef: {name: nth, key: grace}}}' }))).toEqual([]);
  });
  test('before v1.12.0 (no waiting for drains at exit): not matched', () => {
    expect(runRule(gracePeriodBudget, nth({ image: 'public.ecr.aws/aws-ec2/aws-node-termination-handler:v1.11.0' }))).toEqual([]);
  });
});

// Review round 20 (Sonatype nxrm-ha's log sidecars): a PID 1 without a SIGTERM handler never
// receives the signal, so the container runs until SIGKILL at the deadline.
describe('grace-period-budget: PID 1 that never receives SIGTERM (info)', () => {
  const wl = (kind: string, container: string, grace = 'terminationGracePeriodSeconds: 120') => `apiVersion: ${kind === 'Job' ? 'batch/v1' : 'apps/v1'}
kind: ${kind}
metadata: {name: web}
spec:
${kind === 'Job' ? '' : '  selector: {matchLabels: {app: web}}\n'}  template:
    metadata: {labels: {app: web}}
    spec:
      ${grace}
${kind === 'Job' ? '      restartPolicy: Never\n' : ''}      containers:
      - {name: app, image: example/app:1}
      - ${container}
`;
  test('a busybox sidecar running tail under sh -c: info at its args, with the grace period it waits', () => {
    const got = runRule(gracePeriodBudget, wl('StatefulSet', "{name: request-log, image: busybox:1.33.1, args: [/bin/sh, -c, 'tail -n+1 -F /data/request.log']}").replace('spec:\n  selector', 'spec:\n  serviceName: web\n  selector'));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['info', '/spec/template/spec/containers/1/args']]);
    expect(got[0].message).toContain('container "request-log" runs sh -c as PID 1 with only tail under it and no TERM trap: the kernel drops a signal to PID 1 unless it handles it');
    expect(got[0].message).toContain('runs until SIGKILL at terminationGracePeriodSeconds (120s)');
  });
  test('sleep infinity as the command of a native sidecar: info at its command', () => {
    const text = wl('Deployment', '{name: x, image: example/x:1}').replace('      containers:', '      initContainers:\n      - {name: keep, image: alpine, restartPolicy: Always, command: [sleep, infinity]}\n      containers:');
    expect(runRule(gracePeriodBudget, text).map((f) => [f.severity, f.pointer])).toEqual([['info', '/spec/template/spec/initContainers/0/command']]);
  });
  test('a shell held above the app (sh on a Debian-based image is dash): warning, with exec as the advice', () => {
    const got = runRule(gracePeriodBudget, wl('Deployment', "{name: worker, image: python:3.11-slim-bookworm, command: [/bin/sh, -c, '. /app/bootstrap.sh; celery --app=tasks worker']}", 'terminationGracePeriodSeconds: 30'));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/1/command']]);
    expect(got[0].message).toContain('container "worker" runs sh -c as PID 1 (on python, /bin/sh is dash, which runs even the last command celery as its child instead of replacing itself with it)');
    expect(got[0].message).toContain('so celery never gets SIGTERM: its graceful shutdown never runs, and it is SIGKILLed at terminationGracePeriodSeconds (30s)');
    expect(got[0].message).toContain("put exec before the last command (sh -c '…; exec celery …')");
    // Not an init above the shell: the shell dies of the forwarded signal at once, and the init exits with it.
    expect(got[0].message).toContain('(an init such as tini or dumb-init above the shell does not help: the shell dies of the forwarded signal at once, the init exits with it, and celery is killed)');
    expect(got[0].message).not.toContain('run the script under an init');
  });
  // Review round 37 (helm/superset): apache/superset is built FROM python:*-slim-bookworm, and its
  // run-server.sh (bash) starts gunicorn without exec.
  test('the Superset web server under sh -c on apache/superset: gunicorn never gets SIGTERM; run it directly', () => {
    const got = runRule(gracePeriodBudget, wl('Deployment', "{name: superset, image: apachesuperset.docker.scarf.sh/apache/superset:3.1.2, command: [/bin/sh, -c, '. /app/pythonpath/superset_bootstrap.sh; /usr/bin/run-server.sh']}", 'terminationGracePeriodSeconds: 30'));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/1/command']]);
    expect(got[0].message).toContain('(on apache/superset, built FROM python on Debian, /bin/sh is dash, which runs even the last command run-server.sh as its child');
    expect(got[0].message).toContain('so gunicorn (which run-server.sh, a bash script, also starts without exec) never gets SIGTERM');
    expect(got[0].message).toContain('running run-server.sh (even with exec) leaves bash as PID 1 above gunicorn');
  });
  // Review round 34, report p48 item 1 (open-webui's pipelines subchart sets no command or args): the
  // image's ENTRYPOINT is `bash start.sh`, which starts uvicorn without exec.
  test("open-webui pipelines under its own ENTRYPOINT: uvicorn never gets SIGTERM; the finding points at the image", () => {
    const got = runRule(gracePeriodBudget, wl('Deployment', '{name: pipelines, image: ghcr.io/open-webui/pipelines:main, ports: [{name: http, containerPort: 9099}]}'));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/1/image']]);
    expect(got[0].message).toContain("runs bash start.sh as PID 1 (the image's ENTRYPOINT)");
    expect(got[0].message).toContain('start.sh is a bash script that starts uvicorn without exec and has no SIGTERM handler, so uvicorn never gets SIGTERM');
    expect(got[0].message).toContain("bash start.sh --mode setup && exec uvicorn main:app");
  });
  // Review round 35, report p55 item 5 (the grafana/oncall chart's celery Deployment): celery_with_exporter.sh
  // (bash) ends `celery "${CELERY_ARGS[@]}"` without exec, so bash stays PID 1 and celery never gets SIGTERM.
  test('OnCall celery under celery_with_exporter.sh: celery never gets SIGTERM; run the worker itself', () => {
    const got = runRule(gracePeriodBudget, wl('Deployment', '{name: oncall, image: grafana/oncall:v1.15.6, command: [./celery_with_exporter.sh]}'));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/1/command']]);
    expect(got[0].message).toContain('runs celery_with_exporter.sh as PID 1: the kernel drops a signal to PID 1 unless it handles it, and celery_with_exporter.sh is a bash script that starts celery without exec and has no SIGTERM handler, so celery never gets SIGTERM');
    expect(got[0].message).toContain('run celery itself as PID 1 with the flags celery_with_exporter.sh passes it');
    // The chart's devMode command, and the image's own CMD (uwsgi), are not the script.
    expect(runRule(gracePeriodBudget, wl('Deployment', '{name: oncall, image: grafana/oncall:v1.15.6, command: [python, manage.py, start_celery]}'))).toEqual([]);
    expect(runRule(gracePeriodBudget, wl('Deployment', '{name: oncall, image: grafana/oncall:v1.15.6}'))).toEqual([]);
    // Another image's script of that name is not known.
    expect(runRule(gracePeriodBudget, wl('Deployment', '{name: w, image: example.com/worker:1, command: [./celery_with_exporter.sh]}'))).toEqual([]);
  });
  // Review round 34, report p49 item B (Headlamp's plugin container): the message names npx, not if, cat, # or fi.
  test('an if block under sh -c names the command it still runs', () => {
    const script = JSON.stringify('if [ -f "/config/plugin.yml" ]; then\n  cat /config/plugin.yml\n  # npm can\'t write to the default cache\n  export NPM_CONFIG_CACHE=/tmp/npm-cache\n  npx --yes @headlamp-k8s/pluginctl@latest install --config /config/plugin.yml --watch\nfi\n');
    const got = runRule(gracePeriodBudget, wl('Deployment', `{name: headlamp-plugin, image: node:lts-alpine, command: [/bin/sh, -c], args: [${script}]}`));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('runs sh -c as PID 1 (it runs npx last in an if block, which no shell replaces itself with)');
    expect(got[0].message).toContain('so npx never gets SIGTERM');
  });
  // Review round 34, report p50 item 8 (pingcap/tidb-operator's pump): /pump in the foreground, not
  // last, with `$(…)` and backticks in the script; the message names pump only.
  test('a foreground server that is not the last command, with command substitutions: pump never gets SIGTERM', () => {
    const script = JSON.stringify('set -euo pipefail\n/pump \\\n-pd-urls=http://demo-pd:2379 \\\n-advertise-addr=`echo ${HOSTNAME}`.demo-pump:8250 \\\n-data-dir=/data\nif [ $? == 0 ]; then\n    echo $(date -u +"[%Y/%m/%d %H:%M:%S.%3N %:z]") "pump offline, please delete my pod"\n    tail -f /dev/null\nfi');
    const got = runRule(gracePeriodBudget, wl('Deployment', `{name: pump, image: pingcap/tidb-binlog:v7.5.5, command: [/bin/sh, -c, ${script}]}`));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('runs sh -c as PID 1 (it runs pump in the foreground before further commands, and no shell replaces itself with a command that is not its last)');
    expect(got[0].message).toContain('so pump never gets SIGTERM');
    expect(got[0].message).not.toMatch(/\btail\b|\bif\b|\bfi\b|\becho\b|\bdate\b/);
  });
  test('a DaemonSet: every rollout step and node removal, not drains and scale-downs (review round 22, tetragon)', () => {
    const ds = wl('Deployment', '{name: export-logs, image: alpine:3.20, command: [tail, -F, /var/run/tetragon/tetragon.log]}').replace('kind: Deployment', 'kind: DaemonSet');
    const [f] = runRule(gracePeriodBudget, ds);
    expect(f.message).toContain('runs until SIGKILL at terminationGracePeriodSeconds (120s) and every rollout step and node removal takes that long');
  });
  test('a Helm test hook Pod is not judged', () => {
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: t, annotations: {helm.sh/hook: test}}
spec:
  containers: [{name: curl, image: curlimages/curl, command: [sh, -c, 'curl -s x | grep ok']}]
`;
    expect(runRule(gracePeriodBudget, pod)).toEqual([]);
  });
  test('not in a Job (its pods end by themselves), nor with grace 0, nor with a TERM trap', () => {
    expect(runRule(gracePeriodBudget, wl('Job', '{name: t, image: busybox, command: [sleep, "60"]}'))).toEqual([]);
    expect(runRule(gracePeriodBudget, wl('Deployment', '{name: t, image: busybox, command: [sleep, "60"]}', 'terminationGracePeriodSeconds: 0'))).toEqual([]);
    expect(runRule(gracePeriodBudget, wl('Deployment', "{name: t, image: busybox, command: [sh, -c, 'trap \"exit 0\" TERM; sleep 3600 & wait']}"))).toEqual([]);
  });
});

// Review round 24: the Zeebe standalone gateway (camunda-platform chart) drains gRPC calls for the
// default 30s of a Spring setting the catalog does not read; NetBox's rqworker (netbox chart) waits
// for the running job up to RQ_DEFAULT_TIMEOUT (300s by default).
describe('grace-period-budget: the Zeebe standalone gateway (catalog zeebe-standalone-gateway: 30s drain)', () => {
  const gw = (o: { grace?: number; image?: string; annotations?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: zeebe-gateway}
spec:
  replicas: 2
  selector: {matchLabels: {app: zeebe-gateway}}
  template:
    metadata:
      labels: {app: zeebe-gateway}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: zeebe-gateway
        image: ${o.image ?? 'camunda/zeebe:8.7.37'}
        ports: [{name: gateway, containerPort: 26500}]
        lifecycle: {preStop: {sleep: {seconds: 10}}}
`;
  test('a 10s preStop with the default grace period: 10 + 30 > 30', () => {
    const got = runRule(gracePeriodBudget, gw());
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('container "zeebe-gateway": preStop 10s + drain 30s (spring.lifecycle.timeout-per-shutdown-phase not read, default 30s) = 40s exceeds the default grace period (30s)');
    expect(got[0].message).toContain('raise terminationGracePeriodSeconds to 45s');
  });
  test('grace 45 holds it; kubegrace.dev/drain-seconds states a changed setting', () => {
    expect(runRule(gracePeriodBudget, gw({ grace: 45 }))).toEqual([]);
    expect(runRule(gracePeriodBudget, gw({ annotations: '"kubegrace.dev/drain-seconds": "15"' }))).toEqual([]);
  });
  test('another image: the default 10s drain, which fits', () => {
    expect(runRule(gracePeriodBudget, gw({ image: 'example.com/acme/gateway:1.0.0' }))).toEqual([]);
  });
});

describe('grace-period-budget: the NetBox rqworker (catalog netbox-rqworker: drain up to the job timeout)', () => {
  const worker = (o: { grace?: number; env?: string; image?: string; command?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: netbox-worker, namespace: netbox}
spec:
  replicas: 1
  selector: {matchLabels: {app: netbox-worker}}
  template:
    metadata:
      labels: {app: netbox-worker}
      annotations: {kubegrace.dev/served: "false"}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: netbox-worker
        image: ${o.image ?? 'ghcr.io/netbox-community/netbox:v4.6.8'}
        command: ${o.command ?? '[/opt/netbox/venv/bin/python, /opt/netbox/netbox/manage.py, rqworker]'}
${o.env ? `        env: [${o.env}]\n` : ''}`;
  test('the chart default: jobs of up to 300s, killed at the default 30s', () => {
    const got = runRule(gracePeriodBudget, worker());
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/containers/0']]);
    expect(got[0].message).toContain('container "netbox-worker": preStop 0s + drain 300s (RQ_DEFAULT_TIMEOUT unset, default 300s) = 300s exceeds the default grace period (30s)');
    expect(got[0].message).toContain('raise terminationGracePeriodSeconds to 305s');
  });
  test('RQ_DEFAULT_TIMEOUT from env (netbox-docker) is judged; a grace period that holds it fits', () => {
    expect(runRule(gracePeriodBudget, worker({ grace: 120, env: '{name: RQ_DEFAULT_TIMEOUT, value: "90"}' }))).toEqual([]);
    expect(runRule(gracePeriodBudget, worker({ grace: 120, env: '{name: RQ_DEFAULT_TIMEOUT, value: "600"}' }))).toHaveLength(1);
    expect(runRule(gracePeriodBudget, worker({ grace: 305 }))).toEqual([]);
  });
  test('set from a ConfigMap: unknown, not judged', () => {
    expect(runRule(gracePeriodBudget, worker({ env: '{name: RQ_DEFAULT_TIMEOUT, valueFrom: {configMapKeyRef: {name: netbox, key: timeout}}}' }))).toEqual([]);
  });
  test('near misses: the web container, another image: not matched', () => {
    expect(runRule(gracePeriodBudget, worker({ command: '[/opt/netbox/launch-netbox.sh]' }))).toEqual([]);
    expect(runRule(gracePeriodBudget, worker({ image: 'example.com/acme/app:1.0.0' }))).toEqual([]);
  });
});

describe('grace-period-budget: kubevuln (catalog kubescape-kubevuln: 5s HTTP shutdown + 20s of running scans)', () => {
  const kv = (o: { grace?: number; image?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: kubevuln}
spec:
  replicas: 2
  selector: {matchLabels: {app: kubevuln}}
  template:
    metadata: {labels: {app: kubevuln}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: kubevuln
        image: ${o.image ?? 'quay.io/kubescape/kubevuln:v0.3.159'}
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 10}}}
`;
  test('a 10s preStop with the default grace period: 10 + 25 > 30 (review round 26)', () => {
    const got = runRule(gracePeriodBudget, kv());
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('preStop 10s + drain 25s (5s of HTTP shutdown + shutdownTimeout not read, default 25s) = 35s exceeds the default grace period (30s)');
  });
  test('grace 40 holds it; another image keeps the default drain', () => {
    expect(runRule(gracePeriodBudget, kv({ grace: 40 }))).toEqual([]);
    expect(runRule(gracePeriodBudget, kv({ image: 'quay.io/kubescape/storage:v0.0.1' }))).toEqual([]);
  });
});

// Review rounds 17 (M1) and 18: the Pulsar broker unloads its bundles after SIGTERM for up to
// brokerShutdownTimeoutMs (60000 ms by default); the apache/pulsar-helm-chart gives it 30s.
describe('grace-period-budget: the Pulsar broker (catalog pulsar-broker: brokerShutdownTimeoutMs, 60s)', () => {
  const broker = (o: { grace?: number; image?: string; script?: string; annotations?: string; preStop?: boolean } = {}) => `apiVersion: v1
kind: Service
metadata: {name: pulsar-broker}
spec:
  selector: {app: pulsar, component: broker}
  ports: [{name: http, port: 8080}, {name: pulsar, port: 6650}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pulsar-broker}
spec:
  serviceName: pulsar-broker
  replicas: 3
  selector: {matchLabels: {app: pulsar, component: broker}}
  template:
    metadata:
      labels: {app: pulsar, component: broker}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      terminationGracePeriodSeconds: ${o.grace ?? 30}
      containers:
      - name: pulsar-broker
        image: ${o.image ?? 'apachepulsar/pulsar-all:4.0.12'}
        command: [sh, -c]
        args:
        - |
          bin/apply-config-from-env.py conf/broker.conf;
          ${o.script ?? 'OPTS="${OPTS} -Dlog4j2.formatMsgNoLookups=true" exec bin/pulsar broker;'}
        ports: [{name: http, containerPort: 8080}, {name: pulsar, containerPort: 6650}]
${o.preStop ? '        lifecycle: {preStop: {sleep: {seconds: 10}}}\n' : ''}`;
  test("the chart's grace period of 30s, no hook: 60s of shutdown budget are cut (the drain is the program's own)", () => {
    const got = runRule(gracePeriodBudget, broker());
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/template/spec/terminationGracePeriodSeconds']]);
    expect(got[0].message).toContain('container "pulsar-broker": preStop 0s + drain 60s (brokerShutdownTimeoutMs not read, default 60s) = 60s exceeds terminationGracePeriodSeconds (30s)');
    expect(got[0].message).toContain('raise terminationGracePeriodSeconds to 65s');
  });
  test('with a 10s preStop: 10 + 60; grace 75 holds it; kubegrace.dev/drain-seconds states a lowered setting', () => {
    expect(runRule(gracePeriodBudget, broker({ preStop: true }))[0].message).toContain('preStop 10s + drain 60s (brokerShutdownTimeoutMs not read, default 60s) = 70s');
    expect(runRule(gracePeriodBudget, broker({ preStop: true, grace: 75 }))).toEqual([]);
    expect(runRule(gracePeriodBudget, broker({ annotations: '"kubegrace.dev/drain-seconds": "20"' }))).toEqual([]);
  });
  test('near misses: a bookie or the proxy of the same image, another image: not matched', () => {
    expect(runRule(gracePeriodBudget, broker({ script: 'exec bin/pulsar bookie;' }))).toEqual([]);
    expect(runRule(gracePeriodBudget, broker({ script: 'exec bin/pulsar proxy' }))).toEqual([]);
    expect(runRule(gracePeriodBudget, broker({ image: 'example.com/acme/broker:1.0.0' }))).toEqual([]);
  });
});

// Review round 20 (hasura/helm-charts graphql-engine): after SIGTERM graphql-engine waits up to
// HASURA_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT (60s by default) for in-flight events and async actions.
describe('grace-period-budget: Hasura GraphQL Engine (catalog hasura-graphql-engine: HASURA_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT, 60s)', () => {
  const hasura = (o: { grace?: number; image?: string; env?: string; preStop?: boolean } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: hasura-graphql-engine}
spec:
  replicas: 2
  selector: {matchLabels: {app: hasura}}
  template:
    metadata: {labels: {app: hasura}}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: graphql-engine
        image: ${o.image ?? 'hasura/graphql-engine:v2.48.6'}
        ports: [{name: http, containerPort: 8080}]
${o.env ? `        env: [${o.env}]\n` : ''}${o.preStop === false ? '' : '        lifecycle: {preStop: {sleep: {seconds: 10}}}\n'}`;
  test('a 10s preStop with the default grace period: 10 + 60 > 30', () => {
    const got = runRule(gracePeriodBudget, hasura());
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('container "graphql-engine": preStop 10s + drain 60s (HASURA_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT unset, default 60s) = 70s exceeds the default grace period (30s)');
  });
  test("the chart as rendered (no hook, no grace period): the program's own drain is judged", () => {
    expect(runRule(gracePeriodBudget, hasura({ preStop: false }))[0].message).toContain('preStop 0s + drain 60s (HASURA_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT unset, default 60s) = 60s exceeds the default grace period (30s)');
  });
  test('the variable set to 15, or a grace period of 75, fits; a 1.x image keeps the default drain', () => {
    expect(runRule(gracePeriodBudget, hasura({ env: '{name: HASURA_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT, value: "15"}' }))).toEqual([]);
    expect(runRule(gracePeriodBudget, hasura({ grace: 75 }))).toEqual([]);
    expect(runRule(gracePeriodBudget, hasura({ image: 'hasura/graphql-engine:v1.3.3' }))).toEqual([]);
  });
});

describe('grace-period-budget: OPA (catalog opa-shutdown-wait-period)', () => {
  const opa = (wait: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: opa}
spec:
  replicas: 2
  selector: {matchLabels: {app: opa}}
  template:
    metadata: {labels: {app: opa}}
    spec:
      containers:
      - name: opa
        image: openpolicyagent/opa:1.4.2
        args: [run, --server, ${wait}]
        ports: [{containerPort: 8181}]
`;
  test('--shutdown-wait-period=40 with the default grace period: 40 + 10 > 30 (review round 27)', () => {
    const got = runRule(gracePeriodBudget, opa('--shutdown-wait-period=40'));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('serving after SIGTERM 40s (--shutdown-wait-period=40) + drain 10s (assumed) = 50s exceeds the default grace period (30s)');
  });
  test('a wait of 15 fits', () => {
    expect(runRule(gracePeriodBudget, opa('--shutdown-wait-period=15'))).toEqual([]);
  });
});

describe('grace-period-budget: an exec sleep that cannot run in a shell-less image (prestop-sleep-action)', () => {
  // Review round 29: the oauth2-proxy chart's commented "graceful shutdown" block (grace 65, preStop
  // sh -c "sleep 60") with its default image, which is distroless (oauth2-proxy Makefile:61, :82-83).
  const oauth2Proxy = (o: { image?: string; drain?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: oauth2-proxy, namespace: auth}
spec:
  replicas: 3
  selector: {matchLabels: {app: oauth2-proxy}}
  template:
    metadata:
      labels: {app: oauth2-proxy}
${o.drain ? `      annotations: {kubegrace.dev/drain-seconds: "${o.drain}"}\n` : ''}    spec:
      terminationGracePeriodSeconds: 65
      containers:
      - name: oauth2-proxy
        image: ${o.image ?? 'quay.io/oauth2-proxy/oauth2-proxy:v7.15.3'}
        ports: [{containerPort: 4180, name: http}]
        lifecycle:
          preStop:
            exec:
              command: [ "sh", "-c", "sleep 60" ]
---
apiVersion: v1
kind: Service
metadata: {name: oauth2-proxy, namespace: auth}
spec:
  selector: {app: oauth2-proxy}
  ports: [{name: http, port: 80, targetPort: http}]
`;
  test('the hook fails at once, so it delays nothing: 0 + 10 fits 65, and no grace raise is advised', () => {
    expect(runRule(gracePeriodBudget, oauth2Proxy())).toEqual([]);
  });
  test('the -alpine image has a shell: the 60s sleep runs, and 60 + 10 > 65', () => {
    const got = runRule(gracePeriodBudget, oauth2Proxy({ image: 'quay.io/oauth2-proxy/oauth2-proxy:v7.15.3-alpine' }));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('preStop 60s + drain 10s (assumed) = 70s exceeds terminationGracePeriodSeconds (65s)');
  });
  test('a failed hook counts as none: judged only on a declared drain, whose message says why the preStop is 0', () => {
    const got = runRule(gracePeriodBudget, oauth2Proxy({ drain: '80' }));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('preStop 0s (its exec sleep 60s cannot run in the shell-less image: see prestop-sleep-action) + drain 80s = 80s exceeds terminationGracePeriodSeconds (65s)');
    expect(got[0].fix?.description).toBe('raise terminationGracePeriodSeconds to 85 (preStop + drain + addend + margin)');
  });
  test("prestop-sleep-action's shellLessImagePatterns in the policy count too (the two rules agree)", () => {
    const yaml = oauth2Proxy({ image: 'registry.example.com/minimal/proxy:1' });
    expect(runRule(gracePeriodBudget, yaml).map((f) => f.severity)).toEqual(['warning']);
    const policy: ResolvedPolicy = { name: 't', rules: new Map([['prestop-sleep-action', { params: { shellLessImagePatterns: ['/minimal/'] } }]]), customRules: [] };
    expect(lintSources([{ file: 't.yaml', text: yaml }], { rules: [gracePeriodBudget], policy, version: KubeVersion.parse('1.31') }).findings).toEqual([]);
  });
});

describe('grace-period-budget: a preStop that signals the app before it sleeps (review round 33, report p39)', () => {
  // The Airflow chart's pgbouncer (chart 1.22.0 values.yaml pgbouncer.containerLifecycleHooks): SIGINT
  // is pgbouncer's safe shutdown, which closes its listeners at once (pgbouncer/pgbouncer @13a344f
  // src/main.c handle_sigint: cleanup_tcp_sockets()); the chart sets no grace period.
  const pgbouncer = (script: string, grace = '') =>
    deploy(`${grace}      containers:
      - name: pgbouncer
        image: apache/airflow:airflow-pgbouncer-2025.03.05-1.23.1
        command: [pgbouncer, -u, nobody, /etc/pgbouncer/pgbouncer.ini]
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "${script}"]}}}`);
  test('the app stops at the signal: no "2s after SIGTERM" error, a warning that the grace period cuts the drain window', () => {
    const got = runRule(gracePeriodBudget, pgbouncer('killall -INT pgbouncer && sleep 120'));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toBe(
      'container "pgbouncer": the default grace period (30s) cuts the drain its preStop gives the app (drain 120s (the hook\'s sleep after its signal) needed): the hook signals the app first ("killall -INT pgbouncer"), so its shutdown starts at once, and the sleep 120s after the signal is its drain window, not a delay before the app stops; raise terminationGracePeriodSeconds to 125s or shorten the sleep',
    );
    expect(got[0].fix?.description).toBe('raise terminationGracePeriodSeconds to 125 (preStop + drain + addend + margin)');
  });
  test('a grace period that holds the sleep: no finding', () => {
    expect(runRule(gracePeriodBudget, pgbouncer('killall -INT pgbouncer && sleep 120', '      terminationGracePeriodSeconds: 150\n'))).toEqual([]);
  });
  test('a sleep first, or a signal that only reloads, is still a delay before SIGTERM (unchanged)', () => {
    expect(runRule(gracePeriodBudget, pgbouncer('sleep 40 && killall -INT pgbouncer && sleep 80')).map((f) => f.message)).toEqual([
      'container "pgbouncer": preStop delay 40s >= the default grace period (30s): the app gets only 2s after SIGTERM before SIGKILL; raise the grace period to at least 55s or shorten the delay',
    ]);
    expect(runRule(gracePeriodBudget, pgbouncer('kill -HUP 1; sleep 40')).map((f) => f.severity)).toEqual(['error']);
  });
});
