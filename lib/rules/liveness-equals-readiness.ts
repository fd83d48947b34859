import { Rule } from '../engine/types';
import { JsonObject } from '../model/types';
import { get } from '../model/workload';
import { dependencyProbe, isProcessLocalProbe } from '../catalog';
import { canonicalHandler, describeHandler, handlerType, normalizePath, probeOf, probeWindow } from './probe-util';

/**
 * Liveness paths that suggest readiness or dependency checks (exact match on the path, query and a
 * trailing slash ignored). Kept to names whose meaning is unambiguous: readiness endpoints of common
 * conventions (Kubernetes components' /readyz, Spring Boot's readiness group, MicroProfile /health/ready)
 * and explicit "deep" health checks. Generic names such as /health or /healthz are not listed.
 */
export const DEFAULT_DEPENDENCY_CHECK_PATHS = [
  '/ready',
  '/readyz',
  '/readiness',
  '/health/ready',
  '/health/readiness',
  '/healthz/ready',
  '/actuator/health/readiness',
  '/health/deep',
  '/healthz/deep',
  '/deep',
];

// A process-existence check: pgrep or pidof (read the process table) or kill -0 (signal 0: is the PID
// alive), run directly or as the only command of `sh -c`. Like a TCP connect, it cannot depend on
// another service. Words are literal (unquoted without shell metacharacters, or quoted without
// expansions), separated by spaces or tabs only (a newline would start another command); only
// kill -0's PIDs may be expanded, from a variable, a file read with cat, or pidof/pgrep.
const WORD = String.raw`(?:[^\s;&|<>()\`$'"\\]+|'[^'\n]*'|"[^"$\`\\\n]*")+`;
const PATH_PREFIX = String.raw`(?:[\w./-]*/)?`;
const PID_SOURCE = String.raw`${PATH_PREFIX}(?:cat|pidof|pgrep)(?:[ \t]+${WORD})+`;
const PID_EXPANSION = String.raw`(?:\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\}|\$\([ \t]*${PID_SOURCE}[ \t]*\)|\`[ \t]*${PID_SOURCE}[ \t]*\`)`;
const PID = String.raw`(?:[0-9]+|${PID_EXPANSION}|"${PID_EXPANSION}")`;
const TO_DEV_NULL = String.raw`(?:[ \t]+(?:[12]?>>?|&>)[ \t]*/dev/null|[ \t]+[12]>&[12])`;
// Postfix's own test of its master daemon: `master -t` exits 0 when master.pid does not exist or is
// not locked, "evidence that the master(8) daemon is not running" (vdukhovni/postfix @17830e5c13c1
// postfix/src/master/master.c:52-55 and :496-500), so `! master -t` passes while the master runs;
// `postfix status` runs `master -t` and exits 0 when it fails (postfix/conf/postfix-script:254-265).
// Neither looks beyond the lock file (review round 35, report p57 item 3: Mailu's postfix). `!` is a
// reserved word of the shell: it must stand alone (`!master` is a command named so).
export const PROCESS_CHECK_SCRIPT = new RegExp(
  String.raw`^(?:(?:exec[ \t]+)?(?:${PATH_PREFIX}(?:pgrep|pidof)(?:[ \t]+${WORD})+|${PATH_PREFIX}kill[ \t]+(?:-0|-s[ \t]+0)(?:[ \t]+${PID})+)|![ \t]+${PATH_PREFIX}master[ \t]+-t|(?:exec[ \t]+)?${PATH_PREFIX}postfix[ \t]+status)${TO_DEV_NULL}*$`,
);
export const SHELL = /^(?:[\w./-]*\/)?(?:ba|da|a)?sh$/;
export const SHELL_C = /^-[elux]*c[elux]*$/;

/**
 * Whether an exec command only checks that a process exists: `pgrep [-x|-f|...] NAME`, `pidof NAME`
 * or `kill -0 PID` (exec'd directly, or as the whole script of `sh -c`, `bash -c`, ..., optionally
 * with output sent to /dev/null). A script that does anything more (`pgrep x && curl db`) is not.
 */
export function isProcessExistenceCheck(command: readonly string[]): boolean {
  if (!command.length) return false;
  const [bin, ...args] = command;
  const name = bin.replace(/^[\w./-]*\//, '');
  if (name === 'pgrep' || name === 'pidof') return args.length > 0 && /^[\w./-]*$/.test(bin);
  if (name === 'postfix') return /^[\w./-]*$/.test(bin) && args.length === 1 && args[0] === 'status';
  if (name === 'kill') return /^[\w./-]*$/.test(bin) && args[0] === '-0' && args.length > 1 && args.slice(1).every((a) => /^[0-9]+$/.test(a));
  if (SHELL.test(bin) && args.length === 2 && SHELL_C.test(args[0])) return PROCESS_CHECK_SCRIPT.test(args[1].trim());
  return false;
}

/** The exec command of a probe, when it is a list of strings. */
function execCommand(p: JsonObject): string[] {
  const cmd = get(p, 'exec', 'command');
  return Array.isArray(cmd) && cmd.every((x) => typeof x === 'string') ? (cmd as string[]) : [];
}

/**
 * Why a probe looks like a dependency check ("checks a readiness path", "asks for a full check",
 * "depends on the metadata database (catalog ...)"), or undefined.
 */
function dependencyCheck(c: Parameters<typeof dependencyProbe>[0], p: JsonObject, depPaths: Set<string>): string | undefined {
  // The catalog knows the program's handler (Hasura's /healthz pings its metadata database).
  const known = dependencyProbe(c, p);
  if (known) return `depends on ${known.dependency!.on} (catalog ${known.id})`;
  if (handlerType(p) !== 'httpGet') return undefined;
  const path = get(p, 'httpGet', 'path');
  if (depPaths.has(normalizePath(path))) return `checks ${normalizePath(path)}, a readiness path`;
  const query = typeof path === 'string' && path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  if (/(^|&)(full|deep|dependencies|deps|all)(=(true|1|yes))?($|&)/i.test(query)) return `asks for a full check (?${query})`;
  return undefined;
}

/**
 * The advice of the path guess: an endpoint of the process alone for liveness, with examples that are
 * not the readiness probe's own path (policy-reporter's readiness is on /healthz: advising /healthz for
 * liveness would make the two probes the same check; review round 26), and what to do with the path.
 */
function processOnlyAdvice(norm: string, ready: JsonObject | undefined): string {
  const readyPath = ready && handlerType(ready) === 'httpGet' ? normalizePath(get(ready, 'httpGet', 'path')) : undefined;
  const examples = ['/livez', '/healthz'].filter((p) => p !== readyPath).join(' or ');
  return readyPath === undefined || readyPath === norm
    ? `point liveness at an endpoint that checks only the process itself (e.g. ${examples}) and keep ${norm} for the readinessProbe`
    : `point liveness at an endpoint that checks only the process itself (e.g. ${examples}; the readinessProbe checks ${readyPath})`;
}

type Window = ReturnType<typeof probeWindow>;

/** The longest liveness window the advice doubles into (5 minutes); longer equal windows get other advice. */
const MAX_DOUBLED_LIVENESS_SECONDS = 300;

/**
 * The window fix for the same check on both probes. The probe docs' pattern is a liveness window
 * longer than the readiness one ("observed as not-ready for some period of time before it is hard
 * killed"): with equal windows, a liveness failureThreshold giving 2 x the readiness window (counted
 * in liveness periods, so 6 x 5s beside 3 x 10s is not told "6"). When liveness is already the shorter
 * window, doubling the readiness window can mean a hung process restarted only after many minutes
 * (VPA chart: readiness 120 x 5s; 240 x 5s = 20 min, review p30): readiness is then the one to
 * shorten, to at most half the liveness window, when that leaves it at least 2 probes; else liveness
 * is raised.
 */
function windowFix(lw: Window, rw: Window, start: { hasStartupProbe: boolean; delay: number }): { readiness?: number; liveness?: number; detail?: string; text: string } {
  const n = Math.ceil((2 * rw.seconds) / lw.periodSeconds);
  // Equal windows so long that doubling would leave a hung process unrestarted for more than
  // MAX_DOUBLED_LIVENESS_SECONDS (kubecost: 200 x 10s on both, 4000s doubled; review round 35,
  // report p57 item 2) are a start allowance when there is no startupProbe: a large readiness
  // failureThreshold does not delay the first Ready (readiness needs one success), it only keeps a
  // broken pod in its Services longer. The allowance belongs in a startupProbe, and both windows can
  // then be short; the liveness one stays 2 x the readiness one.
  const long = lw.seconds === rw.seconds && n * lw.periodSeconds > MAX_DOUBLED_LIVENESS_SECONDS;
  const shortLive = Math.ceil((6 * rw.periodSeconds) / lw.periodSeconds);
  if (long && !start.hasStartupProbe && rw.failureThreshold > 3 && lw.failureThreshold > shortLive) {
    const period = Math.min(lw.periodSeconds, 10);
    const f = Math.ceil((start.delay + lw.seconds) / period);
    return {
      text: `move the start allowance into a startupProbe with the same check (periodSeconds ${period}, failureThreshold ${f}: ${f * period}s to start, the ${start.delay > 0 ? `${start.delay}s delay plus the ` : ''}${lw.seconds}s liveness window allowed today) and shorten both windows, e.g. readinessProbe.failureThreshold 3 (${3 * rw.periodSeconds}s) and livenessProbe.failureThreshold ${shortLive} (${shortLive * lw.periodSeconds}s, 2 x readiness); raising liveness to ${n} instead would leave a hung process unrestarted for ${n * lw.periodSeconds}s`,
    };
  }
  if (lw.seconds < rw.seconds || long) {
    const k = Math.floor(lw.seconds / (2 * rw.periodSeconds));
    if (k >= 2) return { readiness: k, text: `lower readinessProbe.failureThreshold to ${k} (${k} x ${rw.periodSeconds}s = ${k * rw.periodSeconds}s, at most half the liveness window), so the container turns unready well before liveness restarts it` };
  }
  const detail = lw.periodSeconds === rw.periodSeconds ? '2 x readiness' : `${n} x ${lw.periodSeconds}s = ${n * lw.periodSeconds}s, 2 x the readiness window`;
  return { liveness: n, detail, text: `set livenessProbe.failureThreshold to ${n} (${detail})` };
}

export const livenessEqualsReadiness: Rule = {
  meta: {
    id: 'liveness-equals-readiness',
    spec: 'PROBE-002',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'identical liveness and readiness handler and window',
    doc: `When a container's liveness and readiness probes run the same check with the same failure window,
the container is restarted at the very moment it turns unready: it never spends time unready-but-alive.
If that check depends on anything outside the process (a database, a downstream service, a cache), a
dependency outage or overload makes every replica unready and restarts all of them together: the cascading
failure the probe documentation warns about. The recommended pattern is the same cheap endpoint with a
**higher** \`failureThreshold\` for liveness, so the pod sits unready for a while before it is killed.

**Applies to:** main containers and native sidecars.

**Conditions** (one finding per container, the first that matches):

1. \`livenessProbe\` and \`readinessProbe\` are deep-equal on the handler (\`httpGet\` path **including its
   query string**, port, host, scheme and headers; \`exec.command\`; \`grpc\` port and service) **and** on
   \`failureThreshold × periodSeconds\` (defaults 3 × 10 s), or the liveness window is the shorter one, which restarts
   the container before it even turns unready (flyteadmin: 5 s × 3 beside 10 s × 3). Named ports are resolved through the container's
   ports, so \`port: http\` and \`port: 8080\` compare equal.
   - **warning** when the shared check looks like a readiness or dependency check (its path is in
     \`dependencyCheckPaths\`, or its query asks for a full/deep check such as \`?full=true\`), or when the
     catalog of well-known workloads knows it checks a dependency (e.g. Hasura's \`/healthz\`, which fails
     when the metadata database does; CouchDB's \`/_up\`, 404 in maintenance mode or while the node syncs
     from its seeds; Woodpecker's \`/healthz\` with a PostgreSQL or MySQL database);
   - **info** otherwise: whether another generic \`/healthz\`, gRPC health service or script checks dependencies
     cannot be seen from the manifest, so this is the documentation's advice, not a predicted outage;
   - **not reported** for \`tcpSocket\` (a TCP connect to the process cannot depend on another service), for an
     \`exec\` that only checks that a process exists (\`pgrep [-x|-f] NAME\`, \`pidof NAME\`, \`kill -0 PID\` or
     \`postfix status\`, run directly or as the whole script of \`sh -c\`, and \`! master -t\`, Postfix's test that its
     master daemon holds its lock file, as the whole script; output to /dev/null allowed; \`pgrep x && curl db\` is still
     reported), and for checks that the catalog of well-known workloads marks as process-local (e.g. the
     OpenTelemetry collector's health_check extension, Meilisearch's \`/health\`, ZooKeeper's \`ruok\` sent to
     localhost), where unready and dead are the same state.
2. The liveness \`httpGet\` path is in the param \`dependencyCheckPaths\` (exact match, query and trailing
   slash ignored) (**warning**): it suggests the check includes readiness or dependencies, so a dependency
   outage restarts healthy processes (every replica, or the only one when the workload has one replica). Default: ${DEFAULT_DEPENDENCY_CHECK_PATHS.map((p) => `\`${p}\``).join(', ')}.
   Generic names such as \`/health\` or \`/healthz\` are not listed. Not reported for a check the catalog marks
   as process-local (e.g. Envoy Gateway's \`/ready\` on 19003, Envoy's own state): the catalog knows what the
   path only suggests.

**Fix:** separate endpoints, or a liveness window longer than the readiness one. With equal windows the
advice is a liveness \`failureThreshold\` giving 2 × the readiness window (counted in liveness periods).
When liveness is already the shorter window, the advice is to shorten readiness to at most half the liveness
window (when that leaves it at least 2 probes), not to double a long readiness window into liveness (a
readiness of 120 × 5 s would make a hung process wait 20 minutes for its restart); otherwise liveness is raised.
Equal windows so long that doubling would pass ${MAX_DOUBLED_LIVENESS_SECONDS} s (kubecost: 200 × 10 s on both) are a start allowance
when the container has no \`startupProbe\` (a large readiness failureThreshold does not delay the first Ready, it only
keeps a broken pod in its Services longer): the advice is a \`startupProbe\` with the same check carrying that
allowance, and short windows for both probes (readiness 3 periods, liveness twice that). With a \`startupProbe\`
already there, readiness is shortened to at most half the liveness window instead.
The message says the container "leaves its Services" only when a Service in the input selects it.

\`\`\`yaml
livenessProbe:
  httpGet: {path: /livez, port: http}
  periodSeconds: 10
  failureThreshold: 6
readinessProbe:
  httpGet: {path: /readyz, port: http}
  periodSeconds: 10
  failureThreshold: 3
\`\`\``,
    fixable: false,
    paramsSchema: {
      type: 'object',
      properties: { dependencyCheckPaths: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
    defaults: { dependencyCheckPaths: DEFAULT_DEPENDENCY_CHECK_PATHS },
    references: ['kubernetes/website content/en/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md (introduction and caution notes)'],
  },
  check(ctx) {
    const depPaths = new Set((ctx.params.dependencyCheckPaths as string[]).map((p) => normalizePath(p)));
    for (const w of ctx.graph.workloads) {
      for (const c of [...w.containers, ...w.sidecars]) {
        const live = probeOf(c, 'livenessProbe');
        if (!live) continue;
        const ready = probeOf(c, 'readinessProbe');
        // The canonical forms only when there is a readiness probe to compare with.
        const lh = ready ? canonicalHandler(c, live) : undefined;
        if (ready && lh !== undefined && lh === canonicalHandler(c, ready)) {
          const lw = probeWindow(live);
          const rw = probeWindow(ready);
          // (A shorter liveness window is worse: the container is restarted before it is even taken out
          // of its Services; flyteadmin's 5s x 3 liveness beside 10s x 3 readiness, review round 18.)
          if (lw.seconds <= rw.seconds) {
            const shorter = lw.seconds < rw.seconds;
            const windowWords = shorter ? 'with a shorter liveness failure window' : 'with the same failure window';
            // A longer liveness timeout spares an answer that is only slow (bitnami mediawiki's
            // apache-exporter: liveness 5s, readiness 1s; review round 28): said, since a failing
            // dependency still fails both.
            const timeout = (p: JsonObject) => (typeof p.timeoutSeconds === 'number' && p.timeoutSeconds > 0 ? p.timeoutSeconds : 1);
            const slow = timeout(live) > timeout(ready) ? ` (an answer slower than the readiness timeout ${timeout(ready)}s but within the liveness timeout ${timeout(live)}s fails readiness alone)` : '';
            // "leaves its Services" only when a Service in the input selects the pods (VPA's recommender: none).
            const services = ctx.graph.servicesFor(w).length > 0 ? ' (and leaves its Services)' : '';
            const when = (shorter ? `restarted before it even turns unready${services}` : 'restarted the moment it turns unready') + slow;
            // A TCP connect, a check that a process exists, or a check known to look only at the
            // process: unready means dead anyway.
            if (handlerType(live) === 'tcpSocket' || isProcessLocalProbe(c, live)) continue;
            if (handlerType(live) === 'exec' && isProcessExistenceCheck(execCommand(live))) continue;
            const deep = dependencyCheck(c, live, depPaths);
            // One replica: nothing is restarted "together", but the restart still adds to the outage.
            const single = ctx.graph.effectiveReplicas(w) === 1;
            const fix = windowFix(lw, rw, { hasStartupProbe: probeOf(c, 'startupProbe') !== undefined, delay: typeof live.initialDelaySeconds === 'number' && live.initialDelaySeconds > 0 ? live.initialDelaySeconds : 0 });
            ctx.report({
              object: w.obj,
              pointer: `${c.pointer}/livenessProbe`,
              severity: deep ? 'warning' : 'info',
              message: deep
                ? `container "${c.name}": livenessProbe and readinessProbe run the same check (${describeHandler(c, live)}), which ${deep}, ${windowWords} (liveness ${lw.failureThreshold} x ${lw.periodSeconds}s = ${lw.seconds}s, readiness ${rw.failureThreshold} x ${rw.periodSeconds}s = ${rw.seconds}s): ${single ? 'when a dependency fails, the only replica turns unready and is restarted, which does not fix the dependency and adds restarts (and their start-up time) to the outage' : 'when a dependency fails, every replica turns unready and is restarted at the same moment, which does not fix the dependency and turns a partial outage into a full one'}; point liveness at a check of the process alone, or at least ${fix.text}`
                : `container "${c.name}": livenessProbe and readinessProbe run the same check (${describeHandler(c, live)}) ${windowWords} (liveness ${lw.failureThreshold} x ${lw.periodSeconds}s = ${lw.seconds}s, readiness ${rw.failureThreshold} x ${rw.periodSeconds}s = ${rw.seconds}s), so the container is ${when}; if the check looks at anything beyond the process, a dependency outage restarts ${single ? 'the only replica while it lasts' : 'every replica together'}. ${
                    fix.liveness !== undefined
                      ? `The probe docs recommend a higher liveness failureThreshold, e.g. ${fix.liveness} (${fix.detail})`
                      : `The probe docs' pattern is a liveness window longer than the readiness one: ${fix.text}`
                  }`,
            });
            continue;
          }
        }
        if (handlerType(live) === 'httpGet') {
          const path = get(live, 'httpGet', 'path');
          const norm = normalizePath(path);
          // The path is only a guess at what the check does; the catalog knows the program's handler.
          if (depPaths.has(norm) && !isProcessLocalProbe(c, live)) {
            // One replica: nothing is restarted "together" (review round 33, report p42: ADC's adc-server, 1 replica).
            const restarts =
              ctx.graph.effectiveReplicas(w) === 1
                ? 'the kubelet restarts the only replica, which does not fix the dependency and adds restarts (and their start-up time) to the outage'
                : 'the kubelet restarts every replica, which does not fix the dependency and turns a partial outage into a full one';
            ctx.report({
              object: w.obj,
              pointer: `${c.pointer}/livenessProbe/httpGet/path`,
              message: `container "${c.name}": livenessProbe checks ${String(path)}, a path that suggests readiness or dependency checks: when a dependency fails ${restarts}; ${processOnlyAdvice(norm, ready)}`,
            });
          }
        }
      }
    }
  },
};
