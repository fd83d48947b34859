import { Rule } from '../engine/types';
import { Workload } from '../model/workload';
import { shutdownAddends } from '../timeline/addends';
import { BudgetVerdict, terminationSchedule } from '../timeline/schedule';
import { annotationPointer, secs } from './mesh-util';
import { graceMessageRef, gracePointer } from './util';

export { exitingPreStop } from '../timeline/schedule';

export const nativeSidecarGraceBudget: Rule = {
  meta: {
    id: 'native-sidecar-grace-budget',
    spec: 'SIDE-002',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'grace too short for main containers plus sidecar drain; long preStop sleep on a native sidecar',
    doc: `Native sidecars (init containers with \`restartPolicy: Always\`) are stopped last: their SIGTERM waits until
every main container has exited, then goes out one sidecar at a time in reverse declaration order. All of it
must fit in one grace period; if it expires first, every remaining container gets SIGTERM, 2 s, then SIGKILL.
A native sidecar's own \`preStop\`, on the other hand, runs at the **start** of termination, in parallel with
the main containers (KEP-753).

**Conditions** (workloads with at least one native sidecar, counting a mesh proxy that an annotation explicitly
injects in native mode; Jobs and CronJobs, and grace 0, are skipped):

- **warning:** a native sidecar is killed before it has drained. The termination schedule
  (\`lib/timeline/schedule.ts\`, the one \`kubegrace explain\` draws) gives each sidecar its turn when every
  main container has exited and the sidecars after it have stopped, after its own preStop; it then needs its
  drain (\`kubegrace.dev/sidecar-drain-seconds\`: \`"5"\` for all, or \`"istio-proxy=2,fluent-bit=10"\`; default
  5 s each) before SIGKILL at the deadline (at least 2 s after its signal). Main containers count when
  \`grace-period-budget\` judges them (a known preStop delay, or no hook and a declared
  \`kubegrace.dev/drain-seconds\`), and so do **classic mesh proxies** the manifest renders or an annotation
  selects (\`config.linkerd.io/proxy-enable-native-sidecar: "false"\`, \`sidecar.istio.io/nativeSidecar: "false"\`):
  they are main containers too, so a Linkerd proxy signalled only after \`proxy-wait-before-exit-seconds\` (it
  exits once the app's connections are gone) or an Istio agent draining for \`terminationDrainDuration\` delays
  every native sidecar. \`grace-period-budget\` already adds the sidecar drains to each main container's
  budget (TERM-001, \`G < S(c) + D(c) + Σ sidecar drain\`); to avoid two findings for one fault this rule
  reports only where that rule reports nothing for the workload: the sidecars are cut because of a classic
  proxy, or because of a sidecar's own preStop. Served or not does not matter.
- **warning:** a native sidecar's \`preStop\` sleeps longer than \`maxSidecarPreStopSleepSeconds\` (default 5).
  The sidecar already outlives the main containers; the sleep cannot delay its SIGTERM any further, it only
  uses up the grace period the main containers and the other sidecars need.
- **warning:** a native sidecar's \`preStop\` makes it exit (\`kill\`/\`pkill\`/\`killall\` with a terminating
  signal, \`quitquitquit\`, \`curl … /shutdown\`, \`nginx -s quit\`, or a param \`exitPatterns\` regex). It exits
  at the start of termination, while the main containers still need it, and the kubelet restarts it.

**Fix:**
\`\`\`yaml
metadata:
  annotations:
    kubegrace.dev/sidecar-drain-seconds: "5"
spec:
  terminationGracePeriodSeconds: 45   # >= max(preStop + drain) + Σ sidecar drain + margin
  initContainers:
  - name: proxy
    restartPolicy: Always
    # no preStop sleep: the sidecar is stopped after the main containers anyway
\`\`\``,
    fixable: false,
    versionGate: 'SidecarContainers: alpha 1.28 (off), beta 1.29 (on), GA 1.33 (native-sidecar reports init containers with restartPolicy: Always below 1.29)',
    paramsSchema: {
      type: 'object',
      properties: {
        maxSidecarPreStopSleepSeconds: { type: 'number', minimum: 0 },
        exitPatterns: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    },
    defaults: { maxSidecarPreStopSleepSeconds: 5, exitPatterns: [] },
    references: [
      'kubernetes/enhancements keps/sig-node/753-sidecar-containers/README.md (termination pseudocode and risks)',
      'kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md (Pod shutdown and sidecar containers)',
    ],
  },
  check(ctx) {
    const opts = { maxSidecarPreStopSleepSeconds: ctx.params.maxSidecarPreStopSleepSeconds as number, exitPatterns: ctx.params.exitPatterns as string[] };
    for (const w of ctx.graph.workloads) {
      // The schedule gives SIDE-002 verdicts only to workloads that run native sidecars (in the
      // manifest, or injected as such: the shutdown addends); the others need no schedule here.
      if (w.isBatch || (w.sidecars.length === 0 && shutdownAddends(ctx.graph, w).length === 0)) continue;
      // The decision is the termination schedule's (lib/timeline/schedule.ts), which explain draws.
      for (const v of terminationSchedule(ctx.graph, w, opts).verdicts) {
        if (v.ruleId !== 'native-sidecar-grace-budget') continue;
        ctx.report({ object: w.obj, pointer: pointerOf(w, v), message: messageOf(w, v) });
      }
    }
  },
};

function pointerOf(w: Workload, v: BudgetVerdict): string {
  if (v.kind === 'hint') return annotationPointer(w, v.hintKey!);
  if (v.kind === 'sidecar-prestop-exit' || v.kind === 'sidecar-prestop-sleep') return `${v.containerView!.pointer}/lifecycle/preStop`;
  return gracePointer(w, v.containerView);
}

function messageOf(w: Workload, v: BudgetVerdict): string {
  switch (v.kind) {
    case 'hint':
      return v.why!;
    case 'sidecar-prestop-exit':
      return `native sidecar "${v.sidecar}": its preStop makes it exit (${v.why}) at the start of termination, while the main containers still need it, and the kubelet then restarts it; remove the hook: a native sidecar gets SIGTERM only after the main containers have exited`;
    case 'sidecar-prestop-sleep':
      return `native sidecar "${v.sidecar}": preStop sleeps ${secs(v.sleep!)} (> ${v.why}), but a native sidecar's preStop runs at the start of termination, in parallel with the main containers, and its SIGTERM already waits until they have exited; the sleep only uses up ${graceMessageRef(w)}: remove it`;
    default:
      return `${v.why}: the native sidecars need ${secs(v.needed)} of ${graceMessageRef(w)}; raise terminationGracePeriodSeconds to ${v.recommended}s`;
  }
}
