import { Fix, FixEdit, Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { HINT } from '../model/graph';
import { Workload } from '../model/workload';
import { GRACE_MARGIN_SECONDS, MINIMUM_GRACE_AFTER_HOOK } from '../timeline/budget';
import { LINKERD, LinkerdMesh, linkerdMesh } from '../timeline/mesh';
import { graceEdit, preStopDelayEdit } from './lb-util';
import { annotationPointer, annotationSetPointers, appShutdowns, envIndex, longestPreStop, longestShutdown, longLived, namespaceOf, problemTarget, secs } from './mesh-util';
import { graceMessageRef, gracePointer } from './util';

/**
 * proxy-wait-before-exit-seconds to `n`, with the grace period above it (never lowered). A
 * rendered classic proxy carries the wait as its own preStop sleep, which is edited instead; the
 * annotation would not change a rendered pod. A proposal: mesh configuration (section 12).
 */
function waitFix(version: KubeVersion, w: Workload, lk: LinkerdMesh, n: number): Fix | undefined {
  const grace = Math.max(w.grace, n + GRACE_MARGIN_SECONDS);
  const raise: FixEdit[] = grace > w.grace ? [graceEdit(w, grace)] : [];
  const graceText = raise.length ? ` and set terminationGracePeriodSeconds to ${grace}` : '';
  // A rendered proxy (linkerd inject's output) is edited itself: an annotation would change nothing.
  if (lk.proxy && (lk.waitOrigin === 'container' || lk.waitOrigin === 'default')) {
    const edit = preStopDelayEdit(version, lk.proxy, n);
    if (!edit) return undefined;
    return { description: `${edit.text}${graceText}`, safety: 'proposal', edits: [...edit.edits, ...raise] };
  }
  const edits: FixEdit[] = annotationSetPointers(w, LINKERD.waitBeforeExit).map((pointer) => ({ op: 'set', pointer, value: String(n) }));
  return { description: `set ${LINKERD.waitBeforeExit} to "${n}"${graceText}`, safety: 'proposal', edits: [...edits, ...raise] };
}

/**
 * config.linkerd.io/shutdown-grace-period lowered to what fits in the grace period after the proxy's
 * wait (classic) or the app's shutdown (native), so the proxy closes the long-lived connections
 * itself before SIGKILL. Preferred over raising the grace period to 2 minutes and more, which would
 * hold every pod that long on each rollout only to close the same connections later. A rendered proxy
 * carries it as LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD, edited instead. A proposal (mesh configuration).
 */
function shutdownGraceFix(w: Workload, lk: LinkerdMesh, room: number): Fix | undefined {
  const seconds = Math.max(Math.floor(room), 1);
  const value = `${seconds}s`;
  const description = `set ${LINKERD.shutdownGracePeriod} to "${value}"`;
  if (lk.shutdownGraceOrigin === 'container' && lk.proxy) {
    const i = envIndex(lk.proxy, LINKERD.shutdownGraceEnv);
    if (i === undefined) return undefined;
    return { description: `set ${LINKERD.shutdownGraceEnv} of the linkerd-proxy container to "${value}"`, safety: 'proposal', edits: [{ op: 'set', pointer: `${lk.proxy.pointer}/env/${i}/value`, value }] };
  }
  return { description, safety: 'proposal', edits: annotationSetPointers(w, LINKERD.shutdownGracePeriod).map((pointer) => ({ op: 'set', pointer, value })) };
}

export const linkerdProxyDrain: Rule = {
  meta: {
    id: 'linkerd-proxy-drain',
    spec: 'MESH-LINKERD-001/002',
    defaultSeverity: 'error',
    severities: ['error', 'warning', 'info'],
    description: 'proxy-wait-before-exit-seconds >= grace, not above the app\'s preStop, or set where it is ignored (native sidecar)',
    doc: `\`${LINKERD.waitBeforeExit}: "<n>"\` makes Linkerd's injector add a \`preStop\` that sleeps \`n\` seconds to a
*classic* proxy container, so the proxy keeps serving while the application drains. Linkerd's guidance: the app's
own preStop sleep must be shorter than the proxy's, and both below \`terminationGracePeriodSeconds\`.

Applies to workloads where Linkerd injection is evident: \`linkerd.io/inject: enabled\` (or \`ingress\`) on the pod
template or workload, the same annotation on a Namespace in the set, or a rendered \`linkerd-proxy\` container.

Mode: a rendered proxy decides (an init container with \`restartPolicy: Always\` is native); else
\`config.linkerd.io/proxy-enable-native-sidecar\` (or its \`config.beta\`/\`config.alpha\` forms); else param
\`nativeDefault\` (default \`false\`: native sidecars became Linkerd's default only in 2.20, so older releases,
still the common case, inject a classic proxy).

**Conditions (MESH-LINKERD-001):**

- **error** (classic): \`n >= G\`: the proxy is still sleeping when the grace period ends; it gets at most 2 s
  after SIGTERM before SIGKILL and every connection is cut.
- **warning** (classic, \`n > 0\`): the app's longest preStop delay \`S >= n\`: the proxy gets SIGTERM before (or
  with) the app, so the app's shutdown-time calls fail.
- **warning** (classic, \`n\` unset or 0): an app container has a preStop delay \`S > 0\`: the proxy takes SIGTERM
  with the pod and refuses new connections from then on (Linkerd's graceful-shutdown docs), so requests from
  clients still catching up with the endpoint removal, and the app's own calls while it drains, fail during
  the very preStop meant to serve them. Without an app preStop either, \`prestop-missing\` reports the app.
- **info** (native): \`n\` is set: Linkerd ignores it for native sidecars (dead configuration).
- **warning:** a malformed value (\`n\` not a whole number, a native-sidecar switch not \`true\`/\`false\`, a
  shutdown grace period that is not a Go duration): Linkerd ignores it.

**MESH-LINKERD-002 (info):** \`config.linkerd.io/shutdown-grace-period\` (default 120 s) is how long the proxy waits
for open connections after its SIGTERM. Only for workloads marked \`kubegrace.dev/connection-pattern: long-lived\`
or \`fan-in\` (never by default, since the default 120 s already exceeds the default grace of 30 s): info when
\`n + shutdown-grace-period > G\` (classic) or \`app preStop + drain + shutdown-grace-period > G\` (native, where the
proxy's SIGTERM waits for the app): SIGKILL, not the proxy's graceful close, ends those connections.

**Fix (classic):**
\`\`\`yaml
metadata:
  annotations:
    config.alpha.linkerd.io/proxy-wait-before-exit-seconds: "20"
spec:
  terminationGracePeriodSeconds: 60
  containers:
  - name: app
    lifecycle: {preStop: {sleep: {seconds: 10}}}
\`\`\`

**\`--fix\`**: a wait >= grace raises \`terminationGracePeriodSeconds\` (safe). A wait not above the app's preStop, or no wait at all, sets the annotation (or the rendered proxy's own preStop sleep) to preStop + drain, with grace to match (proposal); a rendered proxy with no wait on >= 1.29 gets none, since \`native-sidecar\` proposes making it a native sidecar, after which the sleep would be dead weight. An annotation ignored in native-sidecar mode is removed, and a too-long shutdown-grace-period is lowered to fit (proposals). Malformed values get no fix.`,
    fixable: true,
    versionGate: 'no Kubernetes gate; Linkerd injects native sidecars by default from 2.20 (param nativeDefault, default false)',
    paramsSchema: {
      type: 'object',
      properties: { nativeDefault: { type: 'boolean' } },
      additionalProperties: false,
    },
    defaults: { nativeDefault: false },
    references: [
      'linkerd/linkerd2 pkg/k8s/labels.go, charts/partials/templates/_proxy.tpl',
      'linkerd/linkerd2 charts/linkerd-control-plane/values.yaml (proxy.nativeSidecar, "Ignored when nativeSidecar=true")',
      'https://linkerd.io/2.11/tasks/graceful-shutdown/',
      'linkerd/website linkerd.io/content/2-edge/tasks/graceful-shutdown.md',
    ],
  },
  check(ctx) {
    const nativeDefault = ctx.params.nativeDefault as boolean;
    /** Native sidecars are on by default (SidecarContainers beta, 1.29). */
    const nativeOn = ctx.version.atLeast(1, 29);
    for (const w of ctx.graph.workloads) {
      if (w.isBatch) continue;
      const lk = linkerdMesh(w, { namespace: namespaceOf(ctx.graph, w), nativeDefault });
      if (!lk) continue;
      for (const p of lk.problems) {
        const t = problemTarget(ctx.graph, w, p, lk.proxy);
        ctx.report({ ...t, severity: 'warning', message: `${p.key}: ${p.message}` });
      }
      if (w.grace === 0) continue;
      if (lk.mode === 'native') checkNative(w, lk);
      else checkClassic(w, lk);
    }

    function waitPointer(w: Workload, lk: LinkerdMesh): string {
      if (lk.waitOrigin === 'container' && lk.proxy) return `${lk.proxy.pointer}/lifecycle/preStop`;
      return annotationPointer(w, LINKERD.waitBeforeExit);
    }

    function modeNote(lk: LinkerdMesh): string {
      if (lk.modeOrigin === 'container') return 'the rendered linkerd-proxy is a classic container';
      if (lk.modeOrigin === 'default') return 'classic proxy assumed: no native-sidecar annotation, and Linkerd before 2.20 injects a classic proxy';
      return `${lk.modeKey}: "false"`;
    }

    function checkClassic(w: Workload, lk: LinkerdMesh): void {
      const n = lk.waitBeforeExitSeconds;
      const apps = appShutdowns(w, { requireDeclaredDrainWithoutHook: false });
      const longest = longestShutdown(apps);
      const g = w.grace;
      const wait = `linkerd-proxy waits ${secs(n)} before exit (${lk.waitOrigin === 'container' ? 'its preStop sleep' : LINKERD.waitBeforeExit})`;
      if (n > 0) {
        if (n >= g) {
          const rec = Math.ceil(Math.max(n, longest?.total ?? 0) + GRACE_MARGIN_SECONDS);
          ctx.report({
            object: w.obj,
            pointer: waitPointer(w, lk),
            severity: 'error',
            message: `${wait} >= ${graceMessageRef(w)} (${modeNote(lk)}): the proxy is still sleeping at the deadline and gets ${MINIMUM_GRACE_AFTER_HOOK}s after SIGTERM before SIGKILL, cutting every connection; raise terminationGracePeriodSeconds to at least ${rec}s or lower the wait below it`,
            // Raising the grace period is section 12's safe repair for MESH-*; the wait is what the user asked for.
            fix: { description: `set terminationGracePeriodSeconds to ${rec}`, safety: 'safe', edits: [graceEdit(w, rec)] },
          });
        } else {
          const app = longestPreStop(apps);
          if (app && app.preStopSeconds >= n) {
            const target = Math.ceil(app.preStopSeconds + app.drain);
            const grace = Math.max(g, target + GRACE_MARGIN_SECONDS);
            ctx.report({
              object: w.obj,
              pointer: waitPointer(w, lk),
              severity: 'warning',
              message: `${wait}, but container "${app.container.name}" has a preStop delay of ${secs(app.preStopSeconds)} >= that: the proxy gets SIGTERM no later than the app does, so the app's calls while it drains fail; set ${LINKERD.waitBeforeExit} above the app's preStop, e.g. "${target}" (preStop + drain), with terminationGracePeriodSeconds >= ${grace}s`,
              fix: waitFix(ctx.version, w, lk, Math.max(target, Math.floor(app.preStopSeconds) + 1)),
            });
          }
        }
      } else {
        // No wait: the proxy takes SIGTERM with the pod and refuses new connections from then on,
        // so an app that sleeps in its preStop to keep serving serves nothing meshed meanwhile.
        const app = longestPreStop(apps);
        if (app && app.preStopSeconds > 0) {
          const target = Math.ceil(app.preStopSeconds + app.drain);
          const grace = Math.max(g, target + GRACE_MARGIN_SECONDS);
          const malformed = lk.problems.some((p) => p.key === LINKERD.waitBeforeExit);
          const unset =
            lk.waitOrigin === 'default' ? `${LINKERD.waitBeforeExit} is not set` : malformed ? `${LINKERD.waitBeforeExit} is malformed, so it waits 0s` : `${lk.waitOrigin === 'container' ? 'its preStop sleep' : LINKERD.waitBeforeExit} is 0s`;
          ctx.report({
            object: w.obj,
            pointer: waitPointer(w, lk),
            severity: 'warning',
            message: `the linkerd-proxy gets SIGTERM as soon as the pod starts terminating (${modeNote(lk)}; ${unset}), while container "${app.container.name}" sleeps ${secs(app.preStopSeconds)} in its preStop to keep serving: from its SIGTERM the proxy refuses new connections, so requests that reach the pod during that preStop (clients still catching up with the endpoint removal) and the app's own calls while it drains fail; set ${LINKERD.waitBeforeExit}: "${target}" (preStop + drain), with terminationGracePeriodSeconds >= ${grace}s${nativeOn ? `, or run the proxy as a native sidecar, which Kubernetes stops only after the app has exited (${lk.proxy ? 'the rendered linkerd-proxy as an init container with restartPolicy: Always, as native-sidecar proposes' : `${LINKERD.nativeSidecar[0]}: "true"`})` : ''}`,
            // A rendered proxy that can be native: native-sidecar's proposal (moving it) is the better
            // repair, and a preStop sleep on it would then be dead weight (native-sidecar-grace-budget).
            fix: lk.proxy && nativeOn ? undefined : waitFix(ctx.version, w, lk, target),
          });
        }
      }
      if (longLived(w)) {
        const total = n + lk.shutdownGracePeriodSeconds;
        if (total > g) {
          ctx.report({
            object: w.obj,
            pointer: lk.shutdownGraceOrigin === 'annotation' ? annotationPointer(w, LINKERD.shutdownGracePeriod) : gracePointer(w),
            severity: 'info',
            message: `long-lived connections (${HINT.connectionPattern}: ${w.annotations[HINT.connectionPattern]}): proxy wait ${secs(n)} + shutdown-grace-period ${secs(lk.shutdownGracePeriodSeconds)}${lk.shutdownGraceOrigin === 'default' ? ' (default)' : ''} = ${secs(total)} exceeds ${graceMessageRef(w)}, so SIGKILL, not the proxy's graceful close, ends the remaining connections; set ${LINKERD.shutdownGracePeriod} to at most ${secs(Math.max(g - n - GRACE_MARGIN_SECONDS, 1))}, or raise terminationGracePeriodSeconds to ${Math.ceil(total + GRACE_MARGIN_SECONDS)}s`,
            fix: shutdownGraceFix(w, lk, g - n - GRACE_MARGIN_SECONDS),
          });
        }
      }
    }

    function checkNative(w: Workload, lk: LinkerdMesh): void {
      const waitAnn = w.annotations[LINKERD.waitBeforeExit];
      if (waitAnn !== undefined && lk.waitBeforeExitSeconds > 0) {
        const how = lk.modeOrigin === 'container' ? 'the rendered linkerd-proxy is a native sidecar' : lk.modeOrigin === 'default' ? 'native sidecar assumed (param nativeDefault)' : `${lk.modeKey}: "true"`;
        ctx.report({
          object: w.obj,
          pointer: annotationPointer(w, LINKERD.waitBeforeExit),
          severity: 'info',
          message: `${LINKERD.waitBeforeExit} "${waitAnn}" is ignored because the proxy runs as a native sidecar (${how}), which Kubernetes stops only after the app containers exit; remove the annotation`,
          // A proposal: mesh annotations are the user's (section 12); removed wherever written.
          fix: {
            description: `remove the ${LINKERD.waitBeforeExit} annotation`,
            safety: 'proposal',
            edits: annotationSetPointers(w, LINKERD.waitBeforeExit).map((pointer) => ({ op: 'remove', pointer })),
          },
        });
      }
      if (longLived(w)) {
        const app = longestShutdown(appShutdowns(w, { requireDeclaredDrainWithoutHook: false }));
        const appTime = app?.total ?? 0;
        const total = appTime + lk.shutdownGracePeriodSeconds;
        if (total > w.grace) {
          ctx.report({
            object: w.obj,
            pointer: lk.shutdownGraceOrigin === 'annotation' ? annotationPointer(w, LINKERD.shutdownGracePeriod) : gracePointer(w),
            severity: 'info',
            message: `long-lived connections (${HINT.connectionPattern}: ${w.annotations[HINT.connectionPattern]}): the native proxy gets SIGTERM after the app's ${secs(appTime)}${app ? ` (container "${app.container.name}" preStop + drain)` : ''}, and its shutdown-grace-period ${secs(lk.shutdownGracePeriodSeconds)}${lk.shutdownGraceOrigin === 'default' ? ' (default)' : ''} brings the total to ${secs(total)} > ${graceMessageRef(w)}, so SIGKILL, not the proxy's graceful close, ends the remaining connections; set ${LINKERD.shutdownGracePeriod} to at most ${secs(Math.max(w.grace - appTime - GRACE_MARGIN_SECONDS, 1))}, or raise terminationGracePeriodSeconds to ${Math.ceil(total + GRACE_MARGIN_SECONDS)}s`,
            fix: shutdownGraceFix(w, lk, w.grace - appTime - GRACE_MARGIN_SECONDS),
          });
        }
      }
    }
  },
};
