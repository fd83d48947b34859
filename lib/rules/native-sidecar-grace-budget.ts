import { Rule } from '../engine/types';
import { ContainerView, get, Workload } from '../model/workload';
import { parseSidecarDrainHint, shutdownAddends, SIDECAR_DRAIN_HINT } from '../timeline/addends';
import { classifyPreStop } from '../timeline/prestop';
import { annotationPointer, secs } from './mesh-util';
import { graceMessageRef } from './util';

/** preStop kinds that delay by a known time. */
const DELAYS = new Set(['sleep', 'exec-sleep', 'exec-sleep-then', 'exec-wait']);

const SHELL = /^(?:\/usr)?(?:\/bin\/)?(?:ba|da|a)?sh$/;
/** Signals that only reload, rotate or probe: they do not make a process exit. */
const HARMLESS_SIGNAL = /^-(?:0|1|HUP|SIGHUP|USR1|SIGUSR1|USR2|SIGUSR2|WINCH|SIGWINCH|CONT|SIGCONT|s\s+(?:0|HUP|SIGHUP|USR1|SIGUSR1|USR2|SIGUSR2|WINCH|CONT))$/i;

/**
 * Why an exec preStop makes the container exit (or undefined): a kill/pkill/killall with a
 * terminating signal, Envoy's or the Istio agent's `quitquitquit`, Linkerd's admin `/shutdown`
 * through curl/wget, or `nginx -s quit|stop`. Extra regular expressions come from the params.
 */
export function exitingPreStop(command: string[], extra: string[] = []): string | undefined {
  const parts = command.length === 3 && SHELL.test(command[0]) && command[1] === '-c' ? command[2].split(/\s*(?:;|&&|\|\||\n)\s*/) : [command.join(' ')];
  for (const raw of parts) {
    const p = raw.trim();
    const kill = /^(?:exec\s+)?(?:\S*\/)?(kill|pkill|killall)\s+(.*)$/.exec(p);
    if (kill) {
      const args = kill[2].trim();
      const sig = /^(-s\s+\S+|-\S+)/.exec(args)?.[1];
      if (!sig || !HARMLESS_SIGNAL.test(sig)) return `it runs "${p}"`;
    }
    if (/\bquitquitquit\b/.test(p)) return `it calls quitquitquit ("${p}")`;
    if (/\b(curl|wget)\b.*\/shutdown\b/.test(p)) return `it calls the admin /shutdown endpoint ("${p}")`;
    if (/(?:^|\/)nginx\s+-s\s+(quit|stop)\b/.test(p)) return `it runs "${p}"`;
  }
  const joined = command.join(' ');
  for (const x of extra) if (new RegExp(x).test(joined)) return `it matches the exit pattern /${x}/`;
  return undefined;
}

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

- **warning:** \`G < max over main containers of (S(c) + D(c)) + Σ sidecar drain\`, where \`S\` is the preStop
  delay, \`D\` the app drain (\`kubegrace.dev/drain-seconds\`, default 10) and each sidecar's drain comes from
  \`kubegrace.dev/sidecar-drain-seconds\` (\`"5"\` for all, or \`"istio-proxy=2,fluent-bit=10"\`; default 5 s each).
  As in \`grace-period-budget\`, a main container without a preStop hook counts only when the drain hint is
  declared. The budget finding itself is reported by \`grace-period-budget\`, which adds the same sidecar drain
  to every main container's budget (see \`lib/timeline/addends.ts\`) and judges every workload, served or not:
  one finding for one fault.
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
    const maxSleep = ctx.params.maxSidecarPreStopSleepSeconds as number;
    const exitPatterns = ctx.params.exitPatterns as string[];
    for (const w of ctx.graph.workloads) {
      if (w.isBatch) continue;
      // The native sidecars in the manifest, plus mesh proxies the injector adds as native sidecars.
      const addends = shutdownAddends(ctx.graph, w);
      if (w.sidecars.length === 0 && addends.length === 0) continue;
      const hint = parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]);
      if (hint.problem) {
        ctx.report({ object: w.obj, pointer: annotationPointer(w, SIDECAR_DRAIN_HINT), message: `${SIDECAR_DRAIN_HINT} ${hint.problem}` });
      }
      for (const s of w.sidecars) checkSidecarPreStop(w, s);
    }

    function checkSidecarPreStop(w: Workload, s: ContainerView): void {
      const pre = classifyPreStop(get(s.raw, 'lifecycle', 'preStop'));
      const pointer = `${s.pointer}/lifecycle/preStop`;
      if (pre.command) {
        const why = exitingPreStop(pre.command, exitPatterns);
        if (why) {
          ctx.report({
            object: w.obj,
            pointer,
            message: `native sidecar "${s.name}": its preStop makes it exit (${why}) at the start of termination, while the main containers still need it, and the kubelet then restarts it; remove the hook: a native sidecar gets SIGTERM only after the main containers have exited`,
          });
          return;
        }
      }
      if (DELAYS.has(pre.kind) && pre.seconds !== undefined && pre.seconds > maxSleep) {
        ctx.report({
          object: w.obj,
          pointer,
          message: `native sidecar "${s.name}": preStop sleeps ${secs(pre.seconds)} (> ${secs(maxSleep)}), but a native sidecar's preStop runs at the start of termination, in parallel with the main containers, and its SIGTERM already waits until they have exited; the sleep only uses up ${graceMessageRef(w)}: remove it`,
        });
      }
    }
  },
};
