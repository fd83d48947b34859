import { loadPolicy, ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { ALL_RULES } from '../../lib/rules';
import { zeroGracePeriod } from '../../lib/rules/zero-grace-period';
import { runRule, ruleTester } from '../helpers/rule-tester';

function wl(kind: string, grace: string, opts: { served?: boolean; annotations?: string } = {}): string {
  const svc =
    opts.served === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  selector: {app: db}
  ports: [{port: 5432}]
`;
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${grace ? `      terminationGracePeriodSeconds: ${grace}\n` : ''}      containers: [{name: db, image: postgres:16}]
${svc}`;
}

const POINTER = '/spec/template/spec/terminationGracePeriodSeconds';

ruleTester(zeroGracePeriod, {
  valid: [
    // Review round 30 (pihole's chart, templates/tests/test-pihole-endpoint.yml): exists only while helm test runs.
    {
      name: 'Helm test hook Pod with grace 0',
      yaml: `apiVersion: v1
kind: Pod
metadata:
  name: smoke-test
  annotations: {"helm.sh/hook": test}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 0
  containers: [{name: t, image: curlimages/curl, command: [sh, -c, "curl http://web:80/"]}]
`,
    },
    { name: 'grace absent (default 30)', yaml: wl('StatefulSet', '') },
    { name: 'grace 1', yaml: wl('StatefulSet', '1') },
    { name: 'grace 30 on a Deployment', yaml: wl('Deployment', '30') },
    // Idle containers (lib/model/idle.ts): no work to cut; a sleep as PID 1 ignores SIGTERM, so a grace
    // period only delays its SIGKILL. Istio's samples/curl, JupyterHub's user placeholders.
    { name: 'grace 0 on a sleep-forever client pod (Istio samples/curl)', yaml: wl('Deployment', '0').replace('[{name: db, image: postgres:16}]', '[{name: curl, image: "docker.io/curlimages/curl:8.16.0", command: ["/bin/sleep", "infinity"]}]') },
    { name: 'grace 0 on a StatefulSet of pause containers (JupyterHub user-placeholder)', yaml: wl('StatefulSet', '0', { served: false }).replace('[{name: db, image: postgres:16}]', '[{name: pause, image: "registry.k8s.io/pause:3.10.2"}]') },
    { name: 'grace 0 on sh -c "sleep infinity" and tail -f /dev/null', yaml: wl('DaemonSet', '0', { served: false }).replace('[{name: db, image: postgres:16}]', '[{name: a, image: busybox, command: [sh, -c], args: ["exec sleep infinity"]}, {name: b, image: busybox, command: [tail, -f, /dev/null]}]') },
  ],
  invalid: [
    {
      name: 'grace 0 with a working container beside a pause container: reported',
      yaml: wl('StatefulSet', '0').replace('[{name: db, image: postgres:16}]', '[{name: pause, image: "registry.k8s.io/pause:3.10.2"}, {name: db, image: postgres:16}]'),
      findings: [{ severity: 'error', pointer: POINTER }],
    },
    {
      name: 'grace 0 with a pause image whose command runs something else: reported',
      yaml: wl('Deployment', '0').replace('[{name: db, image: postgres:16}]', '[{name: db, image: "registry.k8s.io/pause:3.10.2", command: ["/app"]}]'),
      findings: [{ severity: 'warning', pointer: POINTER }],
    },
    {
      name: 'StatefulSet with grace 0: error at the field',
      yaml: wl('StatefulSet', '0'),
      findings: [{ severity: 'error', pointer: POINTER, line: 10, message: 'terminationGracePeriodSeconds is 0 on a StatefulSet' }],
    },
    {
      name: 'StatefulSet with grace 0 and no Service: still an error (identity, not traffic)',
      yaml: wl('StatefulSet', '0', { served: false }),
      findings: [{ severity: 'error' }],
    },
    {
      name: 'StatefulSet with served hint "false": still an error',
      yaml: wl('StatefulSet', '0', { served: false, annotations: '"kubegrace.dev/served": "false"' }),
      findings: [{ severity: 'error' }],
    },
    {
      name: 'Deployment with grace 0 and no Service: warning, drain + 5s',
      yaml: wl('Deployment', '0', { served: false }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^terminationGracePeriodSeconds is 0: the app gets only the kubelet's 2s minimum .* or set it to drain \+ 5s$/ }],
    },
    {
      name: 'served Deployment with grace 0 and no preStop hook: the hook prestop-missing asks for once the grace is above 0 is in the advice',
      yaml: wl('Deployment', '0'),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /^terminationGracePeriodSeconds is 0: the app gets only the kubelet's 2s minimum .* or set it to preStop \+ drain \+ 5s, and give container "db" a preStop delay: it serves Service traffic without one \(prestop-missing reports it once the grace period is above 0\)$/,
        },
      ],
    },
    {
      name: 'Deployment with grace 0 and a preStop hook: the hook is skipped, and said so',
      yaml: wl('Deployment', '0').replace('image: postgres:16}', 'image: postgres:16, lifecycle: {preStop: {sleep: {seconds: 5}}}}'),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^terminationGracePeriodSeconds is 0: its preStop hooks are skipped and the app gets only the kubelet's 2s minimum .* or set it to preStop \+ drain \+ 5s$/ }],
    },
    {
      name: 'DaemonSet served by hint "true" with grace 0: warning',
      yaml: wl('DaemonSet', '0', { served: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning', object: 'DaemonSet/db' }],
    },
    {
      name: 'bare Pod with grace 0: warning at spec.terminationGracePeriodSeconds',
      yaml: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  terminationGracePeriodSeconds: 0
  containers: [{name: app, image: a:1}]
`,
      findings: [{ severity: 'warning', pointer: '/spec/terminationGracePeriodSeconds', line: 5, message: "the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL on every deletion, eviction and node drain" }],
    },
    {
      // Review round 30 (pihole's smoke test without the hook annotation): a run-to-completion bare Pod is a one-off task, like a Job's pod.
      name: 'bare Pod with restartPolicy Never and grace 0: info, no rollout or scale-down replaces it',
      yaml: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 0
  containers: [{name: app, image: a:1}]
`,
      findings: [
        {
          severity: 'info',
          pointer: '/spec/terminationGracePeriodSeconds',
          message: "terminationGracePeriodSeconds is 0: this Pod runs to completion (restartPolicy Never), so no rollout or scale-down replaces it, but when it is evicted or its node drained, the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL, so its work is cut, and nothing runs it again (a bare Pod has no controller); remove the field (default 30s) or set it to drain + 5s",
        },
      ],
    },
    {
      // Review round 18 (milvus's minio-provisioning hook Job): a batch pod's work is cut by an eviction and run again.
      name: 'CronJob with grace 0: info, no rollout or scale-down',
      yaml: `apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 0
          containers: [{name: app, image: a:1}]
`,
      findings: [
        {
          severity: 'info',
          pointer: '/spec/jobTemplate/spec/template/spec/terminationGracePeriodSeconds',
          message: "terminationGracePeriodSeconds is 0: when a pod of this CronJob is evicted or its node drained, the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL, so its work is cut and the Job runs it again",
        },
      ],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: wl('StatefulSet', '0', { annotations: '"kubegrace.dev/ignore": "zero-grace-period", "kubegrace.dev/ignore-reason": "test fixture"' }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});

describe('zero-grace-period repairs what prestop-missing would ask for next', () => {
  const PRESTOP = '/spec/template/spec/containers/0/lifecycle/preStop';
  const fixOf = (yaml: string, version = '1.33') => runRule(zeroGracePeriod, yaml, version)[0].fix!;

  test('on >= 1.30 the fix adds the preStop sleep and counts it in the grace period', () => {
    const fix = fixOf(wl('Deployment', '0'));
    expect(fix.safety).toBe('safe');
    expect(fix.description).toBe('set terminationGracePeriodSeconds to 25 and add preStop sleep 10s to container "db" (preStop + drain + addend + margin)');
    expect(fix.edits).toEqual([
      { op: 'set', pointer: POINTER, value: 25 },
      { op: 'set', pointer: PRESTOP, value: { sleep: { seconds: 10 } } },
    ]);
  });

  test('before 1.30 the hook would need a sleep binary (a proposal): the safe fix sets the grace period alone, and the advice still names the container', () => {
    const [f] = runRule(zeroGracePeriod, wl('Deployment', '0'), '1.29');
    expect(f.message).toMatch(/give container "db" a preStop delay/);
    expect(f.fix!.edits).toEqual([{ op: 'set', pointer: POINTER, value: 15 }]);
  });

  test('no Service, a hook already there, or a StatefulSet of one replica (no overlap): no hook is added', () => {
    expect(fixOf(wl('Deployment', '0', { served: false })).edits).toEqual([{ op: 'set', pointer: POINTER, value: 15 }]);
    const hooked = wl('Deployment', '0').replace('image: postgres:16}', 'image: postgres:16, lifecycle: {preStop: {sleep: {seconds: 5}}}}');
    expect(fixOf(hooked).edits).toEqual([{ op: 'set', pointer: POINTER, value: 20 }]);
    const [sts] = runRule(zeroGracePeriod, wl('StatefulSet', '0'));
    expect(sts.message).not.toMatch(/preStop delay/);
    expect(sts.fix!.edits).toHaveLength(1);
  });

  // (Review round 10: calico.yaml's calico-node, grace 0 next to `calico component node shutdown`.)
  test('a preStop program of unknown length: the repair gives at least the API default 30s (it set 0, a no-op), and says how to size it', () => {
    const program = wl('DaemonSet', '0', { served: false }).replace('image: postgres:16}', 'image: postgres:16, lifecycle: {preStop: {exec: {command: [calico, component, node, shutdown]}}}}');
    const fix = fixOf(program);
    expect(fix.edits).toEqual([{ op: 'set', pointer: POINTER, value: 30 }]);
    expect(fix.description).toBe(
      'set terminationGracePeriodSeconds to 30 (preStop + drain + addend + margin; at least the API default 30s, since the preStop hook of container "db" runs for an unknown time: set the kubegrace.dev/prestop-seconds annotation to size it)',
    );
    // With the hint the hook's length is known: preStop 40 + drain 10 + margin 5.
    const hinted = wl('DaemonSet', '0', { served: false, annotations: '"kubegrace.dev/prestop-seconds": "40"' }).replace('image: postgres:16}', 'image: postgres:16, lifecycle: {preStop: {exec: {command: [calico, component, node, shutdown]}}}}');
    expect(fixOf(hinted).edits).toEqual([{ op: 'set', pointer: POINTER, value: 55 }]);
  });

  const lint = (yaml: string, policy: ResolvedPolicy) => lintSources([{ file: 'w.yaml', text: yaml }], { rules: [zeroGracePeriod], policy, version: KubeVersion.parse('1.33') }).findings;

  test('prestop-missing off in the policy, or ignored on the object: neither the advice nor the fix adds a hook', () => {
    const off: ResolvedPolicy = { name: 'test', rules: new Map([['prestop-missing', { off: true }]]), customRules: [] };
    const [a] = lint(wl('Deployment', '0'), off);
    expect(a.message).not.toMatch(/preStop delay/);
    expect(a.fix!.edits).toEqual([{ op: 'set', pointer: POINTER, value: 15 }]);
    const on: ResolvedPolicy = { name: 'test', rules: new Map(), customRules: [] };
    const [b] = lint(wl('Deployment', '0', { annotations: '"kubegrace.dev/ignore": "prestop-missing"' }), on);
    expect(b.message).not.toMatch(/preStop delay/);
    expect(b.fix!.edits).toEqual([{ op: 'set', pointer: POINTER, value: 15 }]);
    expect(lint(wl('Deployment', '0'), on)[0].fix!.edits).toHaveLength(2);
  });

  test('--fix converges in one pass, to what the two rounds gave before (grace 25, the sleep), with nothing left of either rule', () => {
    const policy = loadPolicy('recommended', ALL_RULES);
    const r = fixSources([{ file: 'w.yaml', text: wl('Deployment', '0'), path: 'w.yaml' }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.33'), verifyPiecewise: true });
    expect(r.passes).toBe(1);
    expect(r.files[0].applied.map((a) => a.ruleId)).toEqual(['zero-grace-period']);
    expect(r.files[0].text).toContain('terminationGracePeriodSeconds: 25');
    expect(r.files[0].text).toMatch(/preStop:\s*\{?\s*sleep:\s*\{?\s*seconds: 10/);
    expect(r.lint.findings.filter((f) => f.ruleId === 'zero-grace-period' || f.ruleId === 'prestop-missing')).toEqual([]);
  });
});
