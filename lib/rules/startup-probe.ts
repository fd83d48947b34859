import { answersFromStartProbe } from '../catalog';
import { Rule } from '../engine/types';
import { isObject, Json } from '../model/types';
import { ContainerView, get, num, Workload } from '../model/workload';
import { isProcessExistenceCheck } from './liveness-equals-readiness';
import { describeHandler, probeOf, probeWindow } from './probe-util';

export const DEFAULT_INITIAL_DELAY_THRESHOLD = 30;

/** Volume types whose files are in place before the container starts (the kubelet writes them first). */
const PRESET_VOLUMES = ['configMap', 'secret', 'projected', 'downwardAPI'];
const CAT = /^(\/usr)?(\/bin\/)?cat$/;
const TEST = /^(\/usr)?(\/bin\/)?test$/;
const FILE_TEST = /^-[efrs]$/;
const DOT_DOT = /(^|\/)\.\.(\/|$)/;

/**
 * The file a check only looks for: `[cat, FILE]`, `[test, -e|-f|-r|-s, FILE]` or `["[", -f, FILE, "]"]`
 * (argv elements, as the kubelet runs them; the admission policy reads them the same way).
 */
export function checkedFile(cmd: string[]): string | undefined {
  if (cmd.length === 2 && CAT.test(cmd[0])) return cmd[1];
  if (cmd.length === 3 && TEST.test(cmd[0]) && FILE_TEST.test(cmd[1])) return cmd[2];
  if (cmd.length === 4 && cmd[0] === '[' && FILE_TEST.test(cmd[1]) && cmd[3] === ']') return cmd[2];
  return undefined;
}

/**
 * Whether a liveness handler only reads a file that a configMap, secret, projected or downwardAPI
 * volume puts in place before the container starts (redis-ha's split-brain-fix: `cat
 * /readonly-config/redis.conf`): it passes from the first second, so no slow start can fail it and
 * a startupProbe would measure nothing.
 */
function presetFileCheck(w: Workload, c: ContainerView, handler: Json | undefined): boolean {
  const cmd = get(handler, 'exec', 'command');
  if (!Array.isArray(cmd) || !cmd.every((x) => typeof x === 'string')) return false;
  const file = checkedFile(cmd as string[]);
  if (!file || !file.startsWith('/') || DOT_DOT.test(file)) return false;
  const volumes = get(w.podSpec, 'volumes');
  const mounts = get(c.raw, 'volumeMounts');
  if (!Array.isArray(volumes) || !Array.isArray(mounts)) return false;
  return mounts.some((vm) => {
    if (!isObject(vm) || typeof vm.mountPath !== 'string' || typeof vm.name !== 'string' || vm.subPath !== undefined) return false;
    const dir = vm.mountPath.endsWith('/') ? vm.mountPath : `${vm.mountPath}/`;
    if (!file.startsWith(dir)) return false;
    const v = volumes.find((x) => isObject(x) && x.name === vm.name);
    return isObject(v) && PRESET_VOLUMES.some((t) => isObject(v[t]));
  });
}

export const startupProbe: Rule = {
  meta: {
    id: 'startup-probe',
    spec: 'PROBE-003',
    defaultSeverity: 'info',
    severities: ['error', 'info'],
    description: 'long liveness initialDelaySeconds instead of a startupProbe (info); probe-level terminationGracePeriodSeconds on a readiness probe (error)',
    doc: `A long \`livenessProbe.initialDelaySeconds\` is a guess at the worst-case startup time: too short and a
slow start is killed in a restart loop, too long and a hung container is detected late on every start.
A \`startupProbe\` on the same endpoint waits only as long as the start really takes; liveness and
readiness do not run until it succeeds. For native sidecars, the startupProbe also decides when the next
init container or the main containers start.

**Conditions** (main containers and native sidecars):

- **info:** a \`livenessProbe\` has \`initialDelaySeconds\` >= the param \`initialDelayThreshold\` (default
  ${DEFAULT_INITIAL_DELAY_THRESHOLD}) and the container has no \`startupProbe\`. Not when the liveness check only looks for
  a file that a \`configMap\`, \`secret\`, \`projected\` or \`downwardAPI\` volume puts in place before the container
  starts (\`cat /readonly-config/redis.conf\`, \`test -f ...\`): it passes from the first second, so no start can fail it.
  Nor when it only looks for a process (\`pgrep memcached\`, \`pidof\`, \`kill -0\`, \`postfix status\`, directly or as the whole
  \`sh -c\` script, or \`! master -t\` as the whole script; the grammar of liveness-equals-readiness): it passes as soon as the process exists, whether
  or not the program has finished starting, so no slow start can fail it and a startupProbe with the same check
  would measure nothing.
  Nor when the catalog of well-known workloads marks the liveness check as answering from the start
  (\`answersFromStart\` on a \`process-local-probe\` entry: Prometheus' and every Thanos component's
  \`/-/healthy\`, Hazelcast's \`/hazelcast/health/node-state\`): the program serves it as soon as its listener is
  up, and its slow start phases (WAL replay, bucket sync, cluster join) hold back only readiness, so no slow
  start can fail it either. A check that does wait for the start (\`/-/ready\`, \`/hazelcast/health/ready\`) is
  still reported. The catalog also marks a TCP connect to postgres_exporter's and mysqld_exporter's listener so
  (entry \`sql-exporter-listener\`): they open their port as the last step of \`main()\`, before any database connection.
  Nor when \`initialDelaySeconds\` is shorter than the liveness \`periodSeconds\` (Grafana OnCall's celery worker:
  30 s beside 300 s): the kubelet's probe ticker does not start with the container, so without the delay the first
  check would still land anywhere in the first period; the start allowance and the time before a hung container is
  restarted come from the period and \`failureThreshold\`, and a startupProbe every 10 s would only run the check
  many times more often.
- **error:** a \`readinessProbe\` sets a probe-level \`terminationGracePeriodSeconds\`. It is allowed only on
  liveness and startup probes (stable since 1.28); the API rejects it on readiness probes.

**Fix:** move the wait into a startupProbe sized so that \`failureThreshold × periodSeconds\` >= the
worst-case startup time, and drop the liveness delay. The finding advises the liveness check's period (at
most 10s) and a failureThreshold that covers the liveness delay plus its failure window, and keeps the
liveness check's \`timeoutSeconds\` when it is above the default. A long timeout needs no long period: the
kubelet's probe worker runs one check at a time and waits for it before the next tick
(kubernetes/kubernetes @00421113e1c6 pkg/kubelet/prober/worker.go \`run\`/\`doProbe\`), so a slow check only
delays the next one, while a long period delays the first successful check, and with it readiness, at
every start:

\`\`\`yaml
startupProbe:
  httpGet: {path: /healthz, port: http}
  periodSeconds: 10
  failureThreshold: 30     # up to 300 s to start
livenessProbe:
  httpGet: {path: /healthz, port: http}
  periodSeconds: 10
\`\`\``,
    fixable: false,
    paramsSchema: {
      type: 'object',
      properties: { initialDelayThreshold: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    },
    defaults: { initialDelayThreshold: DEFAULT_INITIAL_DELAY_THRESHOLD },
    references: [
      'kubernetes/website content/en/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md#define-startup-probes ("Protect slow starting containers")',
      'kubernetes/website content/en/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md#probe-level-terminationgraceperiodseconds',
      'kubernetes/website content/en/docs/concepts/workloads/pods/sidecar-containers.md',
    ],
  },
  check(ctx) {
    const threshold = ctx.params.initialDelayThreshold as number;
    for (const w of ctx.graph.workloads) {
      for (const c of [...w.containers, ...w.sidecars]) {
        const ready = probeOf(c, 'readinessProbe');
        const readyTgps = ready?.terminationGracePeriodSeconds;
        if (ready && readyTgps !== undefined && readyTgps !== null) {
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/readinessProbe/terminationGracePeriodSeconds`,
            severity: 'error',
            message: `container "${c.name}": readinessProbe sets terminationGracePeriodSeconds (${String(readyTgps)}): the API rejects it, it is allowed only on livenessProbe and startupProbe; remove it from the readinessProbe (move it to the livenessProbe if a failed liveness check should use a shorter grace period)`,
          });
        }
        const live = probeOf(c, 'livenessProbe');
        const delay = live ? num(live.initialDelaySeconds) : undefined;
        if (!live || delay === undefined || delay < threshold || probeOf(c, 'startupProbe')) continue;
        if (presetFileCheck(w, c, live as Json)) continue;
        // Review round 30 (report p27 item 2): bitnami/memcached's `pgrep memcached`; the image execs memcached.
        const cmd = get(live, 'exec', 'command');
        if (Array.isArray(cmd) && cmd.every((x) => typeof x === 'string') && isProcessExistenceCheck(cmd as string[])) continue;
        // Review reports p36 item 3 and p38 item 1: Thanos' and Prometheus' /-/healthy, Hazelcast's
        // node-state pass once the listener is up; the slow phases gate only readiness (catalog answersFromStart).
        if (answersFromStartProbe(c, live as Json)) continue;
        // A delay shorter than the liveness period is no start allowance: the probe worker's ticker
        // runs from the worker's start, not the container's, so even without the delay the first check
        // would land anywhere in the first period (kubernetes/kubernetes @00421113e1c6
        // pkg/kubelet/prober/worker.go run: time.NewTicker(PeriodSeconds), doProbe skips ticks while
        // time since StartedAt < InitialDelaySeconds). The window a start gets and the time before a
        // hung container is restarted are set by the period and failureThreshold, not by the delay,
        // and a startupProbe every 10s would run the check many times more often than liveness does
        // (Grafana OnCall's celery worker: delay 30s, period 300s, `celery inspect ping`; review
        // round 35, report p55 item 3).
        const lw = probeWindow(live);
        if (delay < lw.periodSeconds) continue;
        // Cover the delay plus the liveness failure window it allowed, probing at most every 10s.
        // A check that may take timeoutSeconds (kube-ovn's health scripts: 45s) keeps it: with the default
        // 1s every check of a slow script times out, the restart loop the advice is meant to end
        // (review round 14). The period does not follow the timeout: the probe worker runs its checks
        // one at a time (kubernetes/kubernetes @00421113e1c6 pkg/kubelet/prober/worker.go run: `for
        // w.doProbe(ctx) { select { ... case <-probeTicker.C: ... } }`, doProbe returns only once the
        // check has), so a slow check only delays the next one, and a period of the timeout (30s for the
        // kubernetes-dashboard metrics-scraper) would hold a container that is up in 1s non-Ready for up
        // to 30s at every start (review round 34, report p49 item C). Each failure takes at least one
        // period, so failureThreshold x period stays a lower bound of the time allowed.
        const rawTimeout = num(live.timeoutSeconds);
        const timeout = rawTimeout !== undefined && rawTimeout > 1 ? rawTimeout : undefined;
        const period = Math.min(lw.periodSeconds, 10);
        const failures = Math.ceil((delay + lw.seconds) / period);
        // The probe worker ticks every periodSeconds from its own start and skips ticks until
        // initialDelaySeconds have passed since the container started (kubernetes
        // pkg/kubelet/prober/worker.go run/doProbe), so the first check lands in [delay, delay + period) and
        // the failureThreshold-th in a row failureThreshold - 1 periods later: the kill comes somewhere in
        // [delay + (F-1)P, delay + FP) (review round 33, report p42 item 3). The advised startup budget keeps the upper bound.
        const killFrom = delay + lw.seconds - lw.periodSeconds;
        ctx.report({
          object: w.obj,
          pointer: `${c.pointer}/livenessProbe/initialDelaySeconds`,
          severity: 'info',
          message: `container "${c.name}": livenessProbe waits initialDelaySeconds ${delay}s (>= ${threshold}s) instead of using a startupProbe: a start slower than ${killFrom}-${delay + lw.seconds}s ends in a restart loop (the kubelet's first check falls between ${delay}s and ${delay + lw.periodSeconds}s after the start, on its ${lw.periodSeconds}s ticker, and ${lw.failureThreshold > 1 ? `${lw.failureThreshold} failed checks in a row end it ${(lw.failureThreshold - 1) * lw.periodSeconds}s later` : 'the first failed check ends it'}), and every start waits the full ${delay}s before a hung container is detected; add a startupProbe with the same check (${describeHandler(c, live)}), periodSeconds ${period}${timeout !== undefined ? `, timeoutSeconds ${timeout} (the liveness check's${timeout > period ? '; checks never overlap, so a slow one only delays the next and the period need not be longer' : ''})` : ''} and failureThreshold ${failures} (${failures * period}s to start, at least the ${delay}s delay plus the ${lw.seconds}s liveness failure window allowed today), and drop initialDelaySeconds`,
        });
      }
    }
  },
};
