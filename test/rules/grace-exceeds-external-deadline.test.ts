import { graceExceedsExternalDeadline } from '../../lib/rules/grace-exceeds-external-deadline';
import { ruleTester, runRule } from '../helpers/rule-tester';

function deploy(grace?: number, annotations = '', kind = 'Deployment'): string {
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata:
      labels: {app: w}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${grace === undefined ? '' : `      terminationGracePeriodSeconds: ${grace}\n`}      containers: [{name: app, image: w:1}]
`;
}

ruleTester(graceExceedsExternalDeadline, {
  valid: [
    { name: 'default grace 30', yaml: deploy() },
    { name: 'grace exactly at the autoscaler limit (600)', yaml: deploy(600) },
    { name: 'autoscaler check off (0)', yaml: deploy(3600), params: { autoscalerMaxGracefulTerminationSeconds: 0 } },
    { name: 'raised autoscaler limit', yaml: deploy(3600), params: { autoscalerMaxGracefulTerminationSeconds: 3600 } },
    { name: 'node shutdown unknown by default: grace 300 is fine', yaml: deploy(300) },
    { name: 'node shutdown budget equal to grace', yaml: deploy(120), params: { nodeShutdownGracePeriodSeconds: 120 } },
    { name: 'node shutdown not checked before 1.21 (gate beta from 1.21)', yaml: deploy(120), params: { nodeShutdownGracePeriodSeconds: 60 }, kubeVersion: '1.20' },
  ],
  invalid: [
    {
      name: 'grace above the autoscaler default 600',
      yaml: deploy(1800),
      findings: [{ severity: 'info', pointer: '/spec/template/spec/terminationGracePeriodSeconds', object: 'Deployment/worker', message: "terminationGracePeriodSeconds (1800s) exceeds the cluster-autoscaler's --max-graceful-termination-sec (600s)" }],
    },
    {
      name: 'StatefulSet too (not only served workloads)',
      yaml: deploy(601, '', 'StatefulSet'),
      findings: [{ severity: 'info', object: 'StatefulSet/worker', message: '601s' }],
    },
    {
      name: 'custom autoscaler limit',
      yaml: deploy(120),
      params: { autoscalerMaxGracefulTerminationSeconds: 60 },
      findings: [{ severity: 'info', message: '(60s)' }],
    },
    {
      name: 'node shutdown budget below grace (1.21: gate on)',
      yaml: deploy(120),
      kubeVersion: '1.21',
      params: { nodeShutdownGracePeriodSeconds: 90 },
      findings: [{ severity: 'info', message: "the kubelet's node-shutdown budget for regular pods (90s)" }],
    },
    {
      name: 'both deadlines exceeded: one finding each',
      yaml: deploy(900),
      params: { nodeShutdownGracePeriodSeconds: 30 },
      findings: [
        { severity: 'info', message: 'cluster-autoscaler' },
        { severity: 'info', message: 'node-shutdown' },
      ],
    },
    {
      name: 'a lower node shutdown budget catches the default grace 30 (pointer at the pod spec)',
      yaml: deploy(),
      params: { nodeShutdownGracePeriodSeconds: 20 },
      findings: [{ severity: 'info', pointer: '/spec/template/spec', message: 'the default grace period (30s)' }],
    },
    {
      name: 'suppressed',
      yaml: deploy(1800, '"kubegrace.dev/ignore": "grace-exceeds-external-deadline", "kubegrace.dev/ignore-reason": "batch drain"'),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});

// Review round 23 (Windmill's workers: a 7-day grace for their jobs, pods annotated safe-to-evict "false").
test('grace-exceeds-external-deadline: pods the autoscaler may not evict are not judged against its limit', () => {
  const yaml = (ann: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  replicas: 2
  selector: {matchLabels: {app: w}}
  template:
    metadata:
      labels: {app: w}
${ann}    spec:
      terminationGracePeriodSeconds: 604800
      containers: [{name: w, image: example/worker:1}]
`;
  const flagged = runRule(graceExceedsExternalDeadline, yaml(''));
  expect(flagged).toHaveLength(1);
  expect(flagged[0].message).toContain('or keep the autoscaler from removing its node (pod annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "false")');
  expect(runRule(graceExceedsExternalDeadline, yaml('      annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: "false"}\n'))).toEqual([]);
});

// Review report p26 item 3 (velero's node-agent DaemonSet, grace 3600): the autoscaler counts DaemonSet pods
// drainable before it reads safe-to-evict, evicts them best effort and deletes the node without waiting for them.
test('grace-exceeds-external-deadline: a DaemonSet is judged against the autoscaler with or without safe-to-evict, and not told to set it', () => {
  const plain = runRule(graceExceedsExternalDeadline, deploy(3600, '', 'DaemonSet'));
  const annotated = runRule(graceExceedsExternalDeadline, deploy(3600, 'cluster-autoscaler.kubernetes.io/safe-to-evict: "false"', 'DaemonSet'));
  for (const f of [plain, annotated]) {
    expect(f).toHaveLength(1);
    expect(f[0].message).toContain('it evicts DaemonSet pods best effort with at most 600s of grace and deletes the node without waiting for them');
    expect(f[0].message).toContain('--drain-priority-config');
    expect(f[0].message).not.toContain('or keep the autoscaler from removing its node');
  }
  // The node-shutdown budget keeps its own wording on a DaemonSet.
  const shutdown = runRule(graceExceedsExternalDeadline, deploy(120, '', 'DaemonSet'), undefined, { nodeShutdownGracePeriodSeconds: 60 });
  expect(shutdown.map((f) => f.message)).toEqual([expect.stringContaining('the kubelet kills the pod at that budget when the node shuts down')]);
});
