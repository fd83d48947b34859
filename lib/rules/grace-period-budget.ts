import { Catalog } from '../catalog';
import { Rule } from '../engine/types';
import { HINT } from '../model/graph';
import { get, Workload } from '../model/workload';
import { MINIMUM_GRACE_AFTER_HOOK } from '../timeline/budget';
import { DEFAULT_PRESTOP_SECONDS, DEFAULT_WAIT_PATTERNS, PRESTOP_SECONDS_HINT } from '../timeline/prestop';
import { budgetTerms, terminationSchedule } from '../timeline/schedule';
import { shellLessPatterns } from '../timeline/shell-less';
import { annotationPointer } from './mesh-util';
import { neededGrace, raiseGraceEdit } from './fix-util';
import { graceMessageRef, gracePointer } from './util';

/**
 * True when the termination schedule can give this workload no grace-period-budget verdict, so it
 * need not be built: no kubegrace.dev/prestop-seconds hint (its only hint verdict), no declared
 * drain, no main container with a preStop hook, and none running a program the catalog knows to
 * keep serving after SIGTERM. The schedule judges a main container only when its hook's delay is
 * known, when that program's time is known, or when it has no hook and the drain is declared
 * (schedule.ts `judged`).
 */
function noBudgetVerdict(w: Workload, catalog: Catalog): boolean {
  if (w.annotations[PRESTOP_SECONDS_HINT] !== undefined || w.annotations[HINT.drainSeconds] !== undefined || w.annotations[HINT.servesAfterSigterm] !== undefined) return false;
  for (const c of w.containers) {
    const h = get(c.raw, 'lifecycle', 'preStop');
    if (h !== undefined && h !== null) return false;
    if (catalog.matchContainer(c, 'serves-after-sigterm').length) return false;
  }
  return true;
}

import { sigtermIgnored } from '../timeline/sigterm';
import { passingHelmHook } from './lb-util';

export const gracePeriodBudget: Rule = {
  meta: {
    id: 'grace-period-budget',
    spec: 'TERM-001',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'preStop delay >= terminationGracePeriodSeconds (error); preStop + drain + mesh/LB addend > grace (warning)',
    doc: `The kubelet runs the preStop hook with the grace clock already running, and passes what is left
(never less than ${MINIMUM_GRACE_AFTER_HOOK} s) to the container's stop. A preStop delay at or above
\`terminationGracePeriodSeconds\` leaves the app at most ${MINIMUM_GRACE_AFTER_HOOK} s between SIGTERM and
SIGKILL (error). When preStop + the app's drain time (\`kubegrace.dev/drain-seconds\`, default 10) + any mesh
or load-balancer addend exceed the grace period, in-flight work is killed (warning). The message marks a drain
that is the 10 s default (neither declared nor the program's own setting) as \`(assumed)\`: declare the app's real
drain to judge it.

Judged whatever routes to the pods: served, unserved or unknown (graceful-termination.md section 0): a hook or
a declared drain is spent against the grace period whether or not a Service is in the input, so a file that
holds the Deployment alone is judged too. Native sidecars' drain (\`kubegrace.dev/sidecar-drain-seconds\`,
default 5 s each) is part of the addend, since they are stopped only after the main containers exit.

Without a preStop hook the budget is judged only when \`kubegrace.dev/drain-seconds\` declares the drain
time, or the catalog reads it from the program's own settings (the AWS Node Termination Handler waits at SIGTERM for
the node drains in flight, each bounded by \`NODE_TERMINATION_GRACE_PERIOD\`, default 120 s; the KEDA interceptor's
\`KEDA_HTTP_DRAIN_TIMEOUT\`), whose source the message names (the default is an assumption; \`prestop-missing\`
reports the missing hook). A shell hook that sleeps first
(\`sleep 5 && nginx -s quit\`) or last (\`wget .../healthcheck/fail; sleep 25\`, Gloo's gateway-proxy) lasts at least
that sleep, a lower bound that is judged (a newline separates commands as \`;\` does, and the sleep's argument may be
quoted: Seldon Core v2's Envoy hook, \`echo ... > /dev/tcp/localhost/9901\` then \`sleep '30'\` on its own line). A shell
hook that signals the app before any sleep (\`killall -INT pgbouncer && sleep 120\`, the Airflow chart's pgbouncer;
\`kill -SIGTERM 1; sleep 30\`: a \`kill\`, \`pkill\` or \`killall\` with no signal or TERM, INT or KILL, not HUP, USR1, USR2,
which reload, nor QUIT, a JVM's thread dump) starts the app's shutdown at once: its delay is 0 s, and the sleep after
the signal only keeps the container up while the app drains. The drain is then at least that sleep, and when it does not
fit the grace period the **warning** says that the grace period cuts the drain window the hook gives (not the
error: the app is not left 2 s after its stop signal). \`prestop-missing\` reports the missing delay. A hook that runs a
program of unknown duration (an exec other than those sleeps, an httpGet) is judged only when
\`kubegrace.dev/prestop-seconds\` declares how long it runs (\`"25"\`, or \`"app=25,worker=40"\` per container);
the declared duration also wins over a recognised wait command or a sleep followed by more work. An httpGet
hook that another container's known hook answers lasts as long as that hook (Contour's Envoy calls
\`/shutdown\` on its shutdown-manager, which answers when the shutdown-manager's own hook has drained Envoy:
the catalog's \`awaitedBy\`, docs/catalog.md), so it is judged with that delay. An exec hook that only sleeps, in
an image without a shell or \`sleep\` binary (\`prestop-sleep-action\`'s \`shellLessImagePatterns\`, the policy's
included), fails at once (FailedPreStopHook) and SIGTERM follows: it counts as no hook (0 s), and
\`prestop-sleep-action\` reports it; raising the grace period would not bring the delay back.

A program the catalog knows to keep accepting after SIGTERM by itself (\`serves-after-sigterm\` entries in
docs/catalog.md: CoreDNS's \`lameduck\`, read from the Corefile in the ConfigMap it mounts, Traefik's
\`requestAcceptGraceTimeout\`, the KEDA HTTP add-on interceptor's \`KEDA_HTTP_SHUTDOWN_DELAY\` in its \`env\`,
Skipper's \`-wait-for-healthcheck-interval\`, default 45s, which the default grace period of 30s cannot hold,
the SeaweedFS volume server's \`-preStopSeconds\`, default 10s, VictoriaMetrics' \`-http.shutdownDelay\`)
drains only after that time: preStop + that time + drain + addend must fit, and such a container is judged even
with no hook and no declared drain. A quiet period that each request restarts (the knative.dev/pkg webhook drainer of
Knative Serving's and Tekton's webhooks: 45s) is no time the program needs: it serves as long as requests come, and
once endpoint removal has stopped them SIGKILL may end the period at no loss; it counts as the endpoint-propagation
time, ${DEFAULT_PRESTOP_SECONDS} s (review round 35, report p54 item 5). Its drain is the program's own when the catalog reads it (Traefik's
\`graceTimeOut\`, the interceptor's \`KEDA_HTTP_DRAIN_TIMEOUT\`, default 30s), unless
\`kubegrace.dev/drain-seconds\` declares one. A Corefile whose ConfigMap is not in the input, or a variable set
from a ConfigMap or Secret, is not assumed. The user's \`kubegrace.dev/serves-after-sigterm-seconds\` hint, which
\`prestop-missing\` takes in place of a preStop delay, counts the same way for the main containers whose program the
catalog does not time.

The verdicts come from the termination schedule in \`lib/timeline/schedule.ts\`, the one that
\`kubegrace explain\` draws, so the picture and the findings cannot disagree.

- **info:** a container whose PID 1 never receives SIGTERM: the kernel delivers a signal to a PID namespace's init only
  if it handles it (pid_namespaces(7)), and \`tail\` and \`sleep\` do not, nor does a shell without a \`trap\` that
  runs only them (\`sh -c 'tail -F /log/x'\`, \`while true; do sleep 30; done\`, \`sleep infinity\`). It runs until
  SIGKILL at the deadline, so every deletion of a pod takes the whole grace period.
- **warning:** a shell that stays PID 1 above the app, which then never gets SIGTERM (its graceful shutdown never runs;
  it is SIGKILLed at the deadline): the script waits for a background job (\`app & wait\`), or runs a pipeline or a
  loop last (no shell replaces itself with those), or runs the app in the foreground before further commands that
  are no app (\`/pump …; if [ $? == 0 ]; then echo …; tail -f /dev/null; fi\`: no shell replaces itself with a
  command that is not its last; not when \`tail\` or \`sleep\` follows outside an \`if\`/\`case\`, as after a
  command that may have started a daemon and ended), or \`sh\` is dash, which runs even the last command as its child
  (checked: dash 0.5.12 on Debian 12; bash 5.2 execs a last simple command), on a Docker Official Image built on
  Debian or Ubuntu (python, node, ruby, golang, nginx, … but not their alpine variants) or on a known image built
  from one (apache/superset, open-webui/pipelines: \`FROM python:*-slim-bookworm\`). Not when the last command
  runs with \`exec\`, or the script has a \`trap\`, a function definition or a here-document, or a command
  substitution gives a command its program (\`$(which app)\`; other \`$(…)\` and backticks are read as a word,
  nested quotes and all); an image whose \`/bin/sh\` is not
  known is not judged. Comments are read as the shell reads them (a \`#\` that starts a word outside quotes), and
  the message names what still runs: the last command of an \`if\`/\`case\` block, the commands of a loop (not
  keywords or short commands such as \`cat\`). Also a known bash script that starts its server without exec, as
  PID 1 or last under \`sh -c\`, even with \`exec\`, or as the image's CMD or ENTRYPOINT: apache/superset's
  \`run-server.sh\` (gunicorn), where the advice is to run gunicorn itself, and open-webui/pipelines' \`start.sh\`
  (uvicorn; its ENTRYPOINT \`bash start.sh\`, also with \`args\` alone, which become start.sh's \`--mode\`), where
  the advice is to run \`start.sh --mode setup\` and then \`exec uvicorn\` in one shell, and grafana/oncall's
  \`celery_with_exporter.sh\` (celery; the chart's celery \`command\`), where the advice is to run the celery worker
  itself with the script's flags, or to end the script with \`exec celery\`.

  Both are judged where PID 1 is known: \`command\` set (it replaces the image's ENTRYPOINT), \`args\`
  alone on busybox, alpine, debian or ubuntu (no ENTRYPOINT), or on those two images; not with \`shareProcessNamespace: true\` (PID 1 is
  then the pause process), nor in Jobs, CronJobs, Pods that run to completion or Helm hooks (but a hook Deployment, StatefulSet, DaemonSet or ReplicaSet that Helm
  leaves running, one without \`hook-succeeded\` in its \`helm.sh/hook-delete-policy\`, is judged). \`kubegrace explain\`
  draws such a container running until SIGKILL, and \`prestop-missing\` does not report it (its socket stays open
  until then). Not in the exported admission policy.

Fix: raise \`terminationGracePeriodSeconds\` to preStop + drain + addend + a margin of 5 s.

**\`--fix\` (safe):** raises \`terminationGracePeriodSeconds\` to the neediest main container's preStop + drain + addend + 5 s; it never lowers a grace period.`,
    fixable: true,
    paramsSchema: { type: 'object', properties: { waitPatterns: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
    defaults: { waitPatterns: DEFAULT_WAIT_PATTERNS },
    references: ['kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md#pod-termination', 'kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go'],
  },
  check(ctx) {
    const patterns = ctx.params.waitPatterns as string[];
    // Which images cannot run an exec sleep: prestop-sleep-action's param, so the two agree (review round 29).
    const shellLess = shellLessPatterns(ctx.paramsOf('prestop-sleep-action'));
    for (const w of ctx.graph.workloads) {
      // A container whose PID 1 ignores SIGTERM runs to the deadline, whatever the budget (a Job's
      // pods end by themselves: their deletion is no routine).
      if (w.grace > 0 && !w.isBatch && !passingHelmHook(w.obj)) {
        for (const c of [...w.containers, ...w.sidecars]) {
          const ig = sigtermIgnored(w, c);
          if (!ig) continue;
          const held = ig.kind === 'shell-holds';
          // (kubectl drain leaves DaemonSet pods alone, and a DaemonSet has no scale-down: review round 22.)
          const deletions = w.kind === 'DaemonSet' ? 'every rollout step and node removal' : 'every deletion of a pod (rollout, drain, scale-down)';
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/${ig.field}`,
            severity: held ? 'warning' : 'info',
            message: held
              ? `container "${c.name}" runs ${ig.how}: the kernel drops a signal to PID 1 unless it handles it, and ${ig.noHandler}, so ${ig.under} never gets SIGTERM: its graceful shutdown never runs, and it is SIGKILLed at ${graceMessageRef(w)}, which ${deletions} then takes; ${ig.advice}`
              : `container "${c.name}" runs ${ig.how}: the kernel drops a signal to PID 1 unless it handles it, and ${ig.noHandler}, so the container runs until SIGKILL at ${graceMessageRef(w)} and ${deletions} takes that long; ${ig.advice}`,
          });
        }
      }
      if (noBudgetVerdict(w, ctx.catalog)) continue;
      // The decision is the termination schedule's (lib/timeline/schedule.ts), which explain draws:
      // consistency of what is configured, whatever routes to the pods (TERM-001 applies to all).
      const all = terminationSchedule(ctx.graph, w, { waitPatterns: patterns, shellLessImagePatterns: shellLess }).verdicts.filter((v) => v.ruleId === 'grace-period-budget');
      for (const v of all) if (v.kind === 'hint') ctx.report({ object: w.obj, pointer: annotationPointer(w, v.hintKey!), severity: 'warning', message: v.why! });
      const verdicts = all.filter((v) => v.kind !== 'hint');
      if (!verdicts.length) continue;
      // One repair for every container: the grace period the neediest container requires.
      const grace = neededGrace(ctx.graph, w, undefined, patterns, shellLess);
      const edit = raiseGraceEdit(w, grace);
      const fix = edit && { description: `raise terminationGracePeriodSeconds to ${grace} (preStop + drain + addend + margin)`, safety: 'safe' as const, edits: [edit] };
      for (const v of verdicts) {
        const c = v.containerView!;
        const hinted = v.hinted ? ` (${PRESTOP_SECONDS_HINT})` : '';
        if (v.kind === 'hook-exceeds-grace') {
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/lifecycle/preStop`,
            severity: 'error',
            message: `container "${c.name}": preStop delay ${v.preStop}s${hinted} >= ${graceMessageRef(w)}: the app gets only ${MINIMUM_GRACE_AFTER_HOOK}s after SIGTERM before SIGKILL; raise the grace period to at least ${v.recommended}s or shorten the delay`,
            fix,
          });
        } else if (v.stopFirst) {
          // (Review round 33, report p39: the Airflow chart's pgbouncer, `killall -INT pgbouncer && sleep
          // 120`. The app gets its stop signal from the hook at 0 s: what the deadline cuts is its drain.)
          const parts = budgetTerms(v, hinted).filter((t) => !t.startsWith('preStop '));
          const terms = parts.length > 1 ? `${parts.join(' + ')} = ${v.needed}s` : parts[0];
          ctx.report({
            object: w.obj,
            pointer: gracePointer(w, c),
            severity: 'warning',
            message: `container "${c.name}": ${graceMessageRef(w)} cuts the drain its preStop gives the app (${terms} needed): the hook signals the app first ("${v.stopFirst.stop}"), so its shutdown starts at once, and the sleep ${v.stopFirst.wait}s after the signal is its drain window, not a delay before the app stops; raise terminationGracePeriodSeconds to ${v.recommended}s or shorten the sleep`,
            fix,
          });
        } else {
          const parts = budgetTerms(v, hinted);
          ctx.report({
            object: w.obj,
            pointer: gracePointer(w, c),
            severity: 'warning',
            message: `container "${c.name}": ${parts.join(' + ')} = ${v.needed}s exceeds ${graceMessageRef(w)}; in-flight work is killed at the deadline: raise terminationGracePeriodSeconds to ${v.recommended}s`,
            fix,
          });
        }
      }
    }
  },
};
