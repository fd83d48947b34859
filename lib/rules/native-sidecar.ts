import { Fix, FixEdit, Rule } from '../engine/types';
import { HINT, trafficEvidencePorts } from '../model/graph';
import { ContainerView, get, Workload } from '../model/workload';
import { parseSidecarDrainHint, shutdownAddends, SIDECAR_DRAIN_HINT, sidecarDrainSeconds } from '../timeline/addends';
import { Addend, containerBudget, recommendedGrace } from '../timeline/budget';
import { ISTIO, istioMesh, LINKERD, linkerdMesh } from '../timeline/mesh';
import { graceEdit } from './lb-util';
import { namespaceOf } from './mesh-util';
import { trafficContainersOf } from '../model/traffic';
import { imageRepository } from '../catalog';
import { parseGoDuration } from '../timeline/duration';
import { podPreStopDelay } from '../timeline/prestop';
import { shellLessPatterns } from '../timeline/shell-less';
import { isObject } from '../model/types';

/** Helpers needed while the app shuts down (graceful-termination.md SIDE-001). */
export const DEFAULT_SIDECAR_NAMES = ['istio-proxy', 'linkerd-proxy', 'envoy', 'cloud-sql-proxy', 'fluent-bit'];

/** How each mesh is told to inject its proxy as a native sidecar. */
function meshSwitch(c: ContainerView): string {
  if (c.name === ISTIO.proxyContainer) return ` (Istio: annotation ${ISTIO.nativeSidecar}: "true", or istiod ENABLE_NATIVE_SIDECARS)`;
  if (c.name === LINKERD.proxyContainer) return ` (Linkerd: annotation ${LINKERD.nativeSidecar[0]}: "true", or the chart value proxy.nativeSidecar)`;
  return '';
}

/**
 * A Docker-in-Docker daemon (Docker Official Image \`docker\`, a dind tag): the app beside it runs its
 * work in containers of that daemon, which dockerd stops when it gets SIGTERM (Kestra's workers and
 * their dind sidecar; review round 23).
 */
function dockerDaemon(c: ContainerView): boolean {
  const tag = c.image.includes(':') ? c.image.slice(c.image.lastIndexOf(':') + 1) : '';
  if (imageRepository(c.image).path !== 'docker' || !/dind/.test(tag)) return false;
  // A preStop hook of its own keeps the daemon up until its containers are done (the drone-runner-docker
  // chart's waits until no container runs): SIGTERM comes only after it returns.
  const hook = get(c.raw, 'lifecycle', 'preStop');
  return hook === undefined || hook === null;
}

/**
 * The Cloud SQL Auth Proxy by its official images, whatever the container's name (charts call it
 * \`cloudsql-proxy\`, \`cloud-sql-proxy\`, \`cloudsqlproxy\`, \`sql-proxy\`; review round 32, report p37, the Metabase
 * chart): v2 \`cloud-sql-connectors/cloud-sql-proxy\` ("gcr.io/cloud-sql-connectors/cloud-sql-proxy",
 * us., eu., asia.: GoogleCloudPlatform/cloud-sql-proxy@6361ee95 README.md, Container Images), v1
 * \`cloudsql-docker/gce-proxy\` (gcr.io, us., eu., asia.: its v1 README, Container Images), on any
 * registry or mirror. Not when a shell script runs in it (\`sh -c '/cloud_sql_proxy … & …'\`): such
 * scripts stop the proxy themselves when the app is done (the pattern for Jobs).
 */
const CLOUD_SQL_PROXY_IMAGES = [/(^|\/)cloud-sql-connectors\/cloud-sql-proxy$/, /(^|\/)cloudsql-docker\/gce-proxy$/];
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
function cloudSqlProxy(c: ContainerView): boolean {
  const repo = imageRepository(c.image).path;
  if (!CLOUD_SQL_PROXY_IMAGES.some((re) => re.test(repo))) return false;
  const argv = [get(c.raw, 'command'), get(c.raw, 'args')].flatMap((v) => (Array.isArray(v) ? v : []));
  const first = typeof argv[0] === 'string' ? argv[0].slice(argv[0].lastIndexOf('/') + 1) : '';
  return !SHELLS.has(first);
}

/** The value of the last `-name=v`, `--name=v`, `-name v` or `--name v` in argv (`dashes`: the prefixes the program's flag parser accepts); undefined when absent. */
function flagValue(argv: string[], name: string, dashes: readonly string[]): string | undefined {
  let v: string | undefined;
  argv.forEach((a, i) => {
    for (const d of dashes) {
      if (a === `${d}${name}` && i + 1 < argv.length) v = argv[i + 1];
      else if (a.startsWith(`${d}${name}=`)) v = a.slice(d.length + name.length + 1);
    }
  });
  return v;
}

/**
 * How long the Cloud SQL Auth Proxy keeps accepting database connections after its SIGTERM, from
 * its flags; `seconds` undefined when the input does not say (a flag value that is not a Go duration,
 * v2 settings in env, envFrom or a config file). Checked in GoogleCloudPlatform/cloud-sql-proxy:
 *
 * - v1 (`gce-proxy`, branch v1 @e321f913): `-term_timeout` defaults to 0
 *   (cmd/cloud_sql_proxy/cloud_sql_proxy.go:97); on SIGTERM it calls `proxyClient.Shutdown(*termTimeout)`
 *   (:733), which waits up to that long while connections are open (proxy/proxy/client.go:633-652),
 *   then cancels the context (:724) and the process exits (:749-758). With the default it exits at once.
 * - v2 (`cloud-sql-proxy`, @31c3b33e): on SIGTERM it sleeps `--min-sigterm-delay` (cmd/root.go:1254-1263,
 *   flag :536, default 0: "The number of seconds to accept new connections after receiving a TERM
 *   signal"), then `Close` (internal/proxy/proxy.go:734-771) closes the dialer (:748; a Dial after that
 *   fails, cloud-sql-go-connector dialer.go ErrDialerClosed), waits up to `--max-sigterm-delay` (:755,
 *   flag cmd/root.go:538, default 0) while connections are open, and closes the listeners (:770).
 *   `--max-sigterm-delay` keeps only the connections already open (a pool); it is counted all the same.
 *   Env settings: `CSQL_PROXY_` + the flag name (cmd/root.go:438).
 */
function cloudSqlProxyStop(c: ContainerView): { seconds?: number; words: string; repair: string } {
  const argv = [get(c.raw, 'command'), get(c.raw, 'args')].flatMap((v) => (Array.isArray(v) ? v : [])).filter((a): a is string => typeof a === 'string');
  const dur = (v: string) => parseGoDuration(v);
  if (/(^|\/)cloudsql-docker\/gce-proxy$/.test(imageRepository(c.image).path)) {
    const v = flagValue(argv, 'term_timeout', ['-', '--']);
    if (v === undefined) return { seconds: 0, words: 'with -term_timeout at its default 0, the Cloud SQL Auth Proxy (v1) exits at once', repair: 'give it a preStop delay at least as long' };
    const s = dur(v);
    return { seconds: s, words: `with -term_timeout=${v}, the Cloud SQL Auth Proxy (v1) exits within ${s}s (sooner once no connection is open)`, repair: 'give it a preStop delay at least as long' };
  }
  const env = get(c.raw, 'env');
  const envs = (Array.isArray(env) ? env : []).filter(isObject);
  const envFrom = get(c.raw, 'envFrom');
  if ((Array.isArray(envFrom) && envFrom.length) || flagValue(argv, 'config-file', ['--']) !== undefined || envs.some((e) => e.name === 'CSQL_PROXY_CONFIG_FILE')) return { words: '', repair: '' };
  const setting = (flag: string): string | undefined | null => {
    const f = flagValue(argv, flag, ['--']);
    if (f !== undefined) return f;
    const e = envs.find((x) => x.name === `CSQL_PROXY_${flag.toUpperCase().replace(/-/g, '_')}`);
    if (!e) return undefined;
    return typeof e.value === 'string' ? e.value : null;
  };
  const min = setting('min-sigterm-delay');
  const max = setting('max-sigterm-delay');
  if (min === null || max === null) return { words: '', repair: '' };
  const a = min === undefined ? 0 : dur(min);
  const b = max === undefined ? 0 : dur(max);
  const repair = 'give it a preStop delay at least as long, or --min-sigterm-delay (v2.12.0 and later)';
  if (a === undefined || b === undefined) return { words: '', repair };
  if (min === undefined && max === undefined) return { seconds: 0, words: 'with --min-sigterm-delay and --max-sigterm-delay at their default 0, the Cloud SQL Auth Proxy stops at once', repair };
  const set = [min !== undefined ? `--min-sigterm-delay=${min}` : '', max !== undefined ? `--max-sigterm-delay=${max}` : ''].filter(Boolean).join(' and ');
  return { seconds: a + b, words: `with ${set}, the Cloud SQL Auth Proxy stops within ${a + b}s`, repair };
}

export const nativeSidecar: Rule = {
  meta: {
    id: 'native-sidecar',
    spec: 'SIDE-001',
    defaultSeverity: 'info',
    severities: ['error', 'warning', 'info'],
    description:
      'shutdown-critical helper (proxy, log shipper) as a classic container (info; warning in a Job, or for a Cloud SQL Auth Proxy that stops before an app\'s preStop delay ends); `restartPolicy: Always` init container on a version without native sidecars (error)',
    doc: `Classic containers all receive SIGTERM at the same moment, in no defined order. A proxy or log shipper
that runs as a classic container can therefore exit before the application has drained, and every call the
app makes while shutting down (or every log line it writes) is lost. A native sidecar (an init container
with \`restartPolicy: Always\`, Kubernetes >= 1.29) starts before the main containers and gets SIGTERM only
after all of them have exited; its readiness counts toward the pod's.

**Conditions:**

- **info:** a main container (\`containers[]\`) whose name is a shutdown-critical helper (param
  \`sidecarNames\`, default \`istio-proxy\`, \`linkerd-proxy\`, \`envoy\`, \`cloud-sql-proxy\`, \`fluent-bit\`), or the
  Cloud SQL Auth Proxy by its official image whatever the name (\`*/cloud-sql-connectors/cloud-sql-proxy\`, v1
  \`*/cloudsql-docker/gce-proxy\`; not when a shell script runs in it), or a Docker
  daemon by its image (\`docker\` with a \`dind\` tag, and no preStop hook of its own to wait for its containers: dockerd
  stops the containers it runs for the app when it exits), runs
  next to at least one other main container, and the target is >= 1.29. A helper that is the pod's only
  main container is the application itself (an Istio gateway, a fluent-bit DaemonSet) and is not reported, nor
  is one that is the only main container receiving the pod's traffic while the others declare no port that
  suggests traffic (Contour's and Envoy Gateway's \`envoy\` beside their port-less \`shutdown-manager\`): the
  others are its helpers. An envoy in front of an app that declares its own port (a TLS or mesh proxy) is a
  helper.
- **warning:** the same in a Job or CronJob: a Job never completes while a classic sidecar keeps running
  after the main container has finished.
- **warning:** the Cloud SQL Auth Proxy by its image as a classic container when another main container's
  preStop delay (of known length) outlasts it: the proxy gets SIGTERM when its own preStop ends (at once
  without one) and then keeps accepting only as long as its flags say. v1 (\`gce-proxy\`): \`-term_timeout\`,
  default 0, waits that long at most while connections are open and exits at once by default. v2:
  \`--min-sigterm-delay\` (default 0) keeps it accepting, \`--max-sigterm-delay\` (default 0) then keeps the
  connections already open (counted too); by default it stops at once. The app keeps running, and serving,
  through its delay with no database: a preStop sleep on the app alone (the repair \`prestop-missing\`
  advises) makes the outage certain. Not when the proxy's settings are not all in the input (a flag value
  that is not a Go duration, v2 settings in \`CSQL_PROXY_*\` env from elsewhere, \`envFrom\` or a config file) or a
  hook's length is unknown.
- **error:** an init container with \`restartPolicy: Always\` on a target < 1.29. \`SidecarContainers\` is alpha
  and off in 1.28 (the field is dropped) and absent before (the field is unknown): the container runs as a
  classic init container that never exits, and the pod never starts.

Not reported (deliberate classic proxies): a \`linkerd-proxy\` whose identity service is \`localhost\` (the
Linkerd identity controller's own proxy bootstraps its certificate from the controller in the same pod, so
it cannot start first); and, outside Jobs, a proxy whose mesh annotation explicitly turns native mode off
(\`${LINKERD.nativeSidecar[0]}: "false"\` and its beta/alpha forms, \`${ISTIO.nativeSidecar}: "false"\`).

**Fix** (meshes: let the injector do it, e.g. \`${ISTIO.nativeSidecar}: "true"\`):
\`\`\`yaml
initContainers:
- name: proxy
  image: example/proxy
  restartPolicy: Always        # makes it a native sidecar
  startupProbe: {httpGet: {path: /ready, port: 15021}}
containers:
- name: app
\`\`\`

**\`--fix\`** (proposal): moves the helper to the end of \`initContainers\` with \`restartPolicy: Always\`, keeping all its fields and comments, and raises the grace period if its drain no longer fits. Below 1.32 a helper behind a named Service port is not moved (EndpointSlices resolve named ports of native sidecars only from 1.32). A \`restartPolicy: Always\` init container on a version without native sidecars is moved back to \`containers\` (proposal; Jobs get no fix).`,
    fixable: true,
    versionGate: 'SidecarContainers: alpha 1.28 (off), beta 1.29 (on), GA 1.33',
    paramsSchema: {
      type: 'object',
      properties: { sidecarNames: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
    defaults: { sidecarNames: DEFAULT_SIDECAR_NAMES },
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/pods/sidecar-containers.md',
      'kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md (Pod shutdown and sidecar containers)',
      'kubernetes/enhancements keps/sig-node/753-sidecar-containers/README.md',
      'kubernetes/website feature-gates SidecarContainers.md',
    ],
  },
  check(ctx) {
    const names = new Set(ctx.params.sidecarNames as string[]);
    const nativeOn = ctx.version.atLeast(1, 29);
    const v = ctx.version.toString();
    const shellLess = shellLessPatterns(ctx.paramsOf('prestop-sleep-action'));
    for (const w of ctx.graph.workloads) {
      if (!nativeOn) {
        // One fix per workload, on its first finding: moving containers shifts the indices that
        // separate fixes would point at.
        const back = w.isBatch ? undefined : toClassicFix(w);
        w.sidecars.forEach((c, i) => {
          const why = ctx.version.atLeast(1, 28)
            ? `SidecarContainers is alpha and off by default on ${v}: the API server drops the field`
            : `native sidecars do not exist on ${v}: the field is unknown (rejected under strict field validation, dropped otherwise)`;
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/restartPolicy`,
            severity: 'error',
            message: `init container "${c.name}" has restartPolicy: Always, but ${why}, and the container then runs as a classic init container that never exits, so the pod never starts; target Kubernetes >= 1.29, or run "${c.name}" as a regular container`,
            fix: i === 0 ? back : undefined,
          });
        });
        continue;
      }
      if (w.containers.length < 2) continue;
      const helpers = w.containers.filter((c) => (names.has(c.name) || cloudSqlProxy(c) || dockerDaemon(c)) && !deliberateClassic(w, c) && !theServer(w, c));
      if (!helpers.length) continue;
      const movable = helpers.filter((c) => !namedPortBlocks(w, c));
      const fix = toNativeFix(w, movable);
      const fixOn = movable[0];
      let late: ReturnType<typeof cloudSqlOutlived>;
      for (const c of helpers) {
        const others = w.containers.filter((x) => x !== c).map((x) => `"${x.name}"`).join(', ');
        if (w.isBatch) {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'warning',
            message: `"${c.name}" runs as a classic container next to ${others}: it keeps running after the job's work is done, so the pod never completes and the Job never finishes; make it a native sidecar (move it to initContainers with restartPolicy: Always${meshSwitch(c)})`,
            fix: c === fixOn ? fix : undefined,
          });
        } else if ((late = cloudSqlOutlived(w, c, helpers))) {
          const { app, appSeconds, hook, stop, lasts } = late;
          const window = lasts === 0 ? `for those ${appSeconds}s` : `for the last ${appSeconds - lasts}s of them`;
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'warning',
            message: `"${c.name}" runs as a classic container ${hook === 0 ? 'with no preStop hook: it gets SIGTERM as soon as termination starts' : `whose preStop lasts ${hook}s: it gets SIGTERM then`} and, ${stop.words}, while "${app.name}" keeps running through its ${appSeconds}s preStop delay: ${window} every database call "${app.name}" makes through the proxy fails; on ${v} make it a native sidecar (move it to initContainers with restartPolicy: Always), which is stopped only after the main containers exit, or ${stop.repair} (${appSeconds}s)`,
            fix: c === fixOn ? fix : undefined,
          });
        } else {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'info',
            message: dockerDaemon(c)
              ? `"${c.name}" runs a Docker daemon (${c.image}) as a classic container: it gets SIGTERM together with ${others}, and dockerd stops the containers it runs when it exits (within its --shutdown-timeout, 15s by default), so the work they do for ${others} is cut while ${others} still wait for it; on ${v} make it a native sidecar (move it to initContainers with restartPolicy: Always), which is stopped only after the main containers exit`
              : `"${c.name}" runs as a classic container: it gets SIGTERM together with ${others}, in no defined order, and can exit before they finish draining, so their shutdown-time calls fail; on ${v} make it a native sidecar (move it to initContainers with restartPolicy: Always${meshSwitch(c)}), which is stopped only after the main containers exit`,
            fix: c === fixOn ? fix : undefined,
          });
        }
      }
    }

    /**
     * The container the pod's traffic goes to, alone among the main containers, while the others
     * declare no port that suggests traffic: then it is the application (Contour's and Envoy
     * Gateway's envoy, with a port-less shutdown-manager beside it whose hook envoy's own preStop
     * waits for), not a helper of the others. (An envoy in front of an app that declares its own
     * port, a TLS or mesh proxy, stays a helper.)
     */
    function theServer(w: Workload, c: ContainerView): boolean {
      if (w.isBatch) return false;
      const served = trafficContainersOf(ctx.graph, w).filter((x) => x.role === 'main');
      return served.length === 1 && served[0] === c && w.containers.every((x) => x === c || trafficEvidencePorts(x).length === 0);
    }

    /**
     * A classic Cloud SQL Auth Proxy (by its image) that stops accepting before another main
     * container's (not another helper's) known preStop delay ends: its own known preStop (none: 0s)
     * plus what its flags give (cloudSqlProxyStop) is shorter. The app's delay keeps it running, and serving, after the proxy
     * is gone (review round 33, report p43, the Unleash chart's cloudsql sidecar: unleash sleeps 10s, gce-proxy
     * v1 exits at t=0). Undefined when either length is unknown.
     */
    function cloudSqlOutlived(w: Workload, c: ContainerView, helpers: readonly ContainerView[]) {
      if (w.isBatch || !cloudSqlProxy(c)) return undefined;
      const own = podPreStopDelay(c, w.annotations, undefined, w.containers, shellLess);
      const hook = own.kind === 'none' ? 0 : own.seconds;
      const stop = cloudSqlProxyStop(c);
      if (hook === undefined || stop.seconds === undefined) return undefined;
      const lasts = hook + stop.seconds;
      let app: ContainerView | undefined;
      let appSeconds = 0;
      for (const x of w.containers) {
        // (Another helper's hook is not an app's delay.)
        if (x === c || helpers.includes(x)) continue;
        const d = podPreStopDelay(x, w.annotations, undefined, w.containers, shellLess);
        if (d.kind === 'none' || d.seconds === undefined || d.seconds <= lasts || d.seconds <= appSeconds) continue;
        app = x;
        appSeconds = d.seconds;
      }
      return app && { app, appSeconds, hook, stop, lasts };
    }

    /** Classic on purpose: Linkerd's identity controller proxy, or an explicit mesh opt-out (not for Jobs). */
    function deliberateClassic(w: Workload, c: ContainerView): boolean {
      const ns = namespaceOf(ctx.graph, w);
      if (c.name === LINKERD.proxyContainer) {
        const lk = linkerdMesh(w, { namespace: ns });
        if (lk?.selfIdentity) return true;
        if (!w.isBatch && LINKERD.nativeSidecar.some((k) => w.annotations[k]?.trim() === 'false')) return true;
      }
      if (c.name === ISTIO.proxyContainer && !w.isBatch) {
        const is = istioMesh(w, { namespace: ns });
        if (w.annotations[ISTIO.nativeSidecar]?.trim() === 'false' || is?.gateway) return true;
      }
      return false;
    }

    /**
     * A Service reaches the container through a named targetPort: EndpointSlices resolve named ports
     * of native sidecars only from 1.32 (kubernetes/kubernetes#127976, #128850), so moving it earlier
     * would take the port out of the Service.
     */
    function namedPortBlocks(w: Workload, c: ContainerView): boolean {
      if (ctx.version.atLeast(1, 32)) return false;
      return ctx.graph.servedPorts(w).some((p) => p.container === c && typeof p.servicePort.targetPort === 'string');
    }

    /**
     * Moves the helpers to the end of initContainers with restartPolicy: Always, every other field
     * kept (ports, probes and lifecycle hooks are all valid on a native sidecar); after the classic
     * init containers, so those run as before. Native sidecars stop after the main containers, one
     * by one, so the grace period is raised when it no longer covers the main containers' preStop +
     * drain plus every native sidecar's drain (the TERM-001 / SIDE-002 budget). A proposal (section 12).
     */
    function toNativeFix(w: Workload, move: ContainerView[]): Fix | undefined {
      if (!move.length) return undefined;
      const edits: FixEdit[] = removeEdits(move);
      for (const c of move) edits.push({ op: 'append', pointer: `${w.podSpecPointer}/initContainers`, value: { ...c.raw, restartPolicy: 'Always' } });
      const hint = parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]);
      const addends: Addend[] = [...shutdownAddends(ctx.graph, w), ...move.map((c) => ({ seconds: sidecarDrainSeconds(hint, c), source: `native sidecar "${c.name}" drain` }))];
      const declared = w.annotations[HINT.drainSeconds] !== undefined;
      let grace = w.grace;
      if (w.grace > 0) {
        for (const c of w.containers) {
          if (move.includes(c)) continue;
          const b = containerBudget(w, c, addends, undefined, ctx.graph);
          if (b.preStop.kind === 'none' && !declared && b.servesAfter === 0) continue;
          const s = b.preStop.kind === 'none' ? 0 : b.preStop.seconds;
          if (s === undefined || b.needed === undefined || b.needed <= w.grace) continue;
          grace = Math.max(grace, recommendedGrace(s + b.servesAfter, b.drain, b.addend));
        }
      }
      if (grace > w.grace) edits.push(graceEdit(w, grace));
      const list = move.map((c) => `"${c.name}"`).join(', ');
      return {
        description: `move container${move.length > 1 ? 's' : ''} ${list} to initContainers with restartPolicy: Always (native sidecar${move.length > 1 ? 's' : ''})${grace > w.grace ? ` and set terminationGracePeriodSeconds to ${grace}` : ''}`,
        safety: 'proposal',
        edits,
      };
    }

    /** Runs the native sidecars as regular containers (the only form the target supports), restartPolicy dropped. */
    function toClassicFix(w: Workload): Fix | undefined {
      if (!w.sidecars.length) return undefined;
      const edits: FixEdit[] = removeEdits(w.sidecars);
      for (const c of w.sidecars) {
        const rest = { ...c.raw };
        delete rest.restartPolicy;
        edits.push({ op: 'append', pointer: `${w.podSpecPointer}/containers`, value: rest });
      }
      const list = w.sidecars.map((c) => `"${c.name}"`).join(', ');
      return { description: `move init container${w.sidecars.length > 1 ? 's' : ''} ${list} to containers without restartPolicy (no native sidecars on ${v})`, safety: 'proposal', edits };
    }
  },
};

/**
 * Removes `gone` from its list, highest index first, so each pointer still names the item it was
 * computed for (the fixer accepts the later items' shift to lower indices).
 */
function removeEdits(gone: ContainerView[]): FixEdit[] {
  return [...gone].sort((a, b) => index(b) - index(a)).map((c) => ({ op: 'remove', pointer: c.pointer }) as FixEdit);
}

/** The container's index in its list, from its pointer. */
function index(c: ContainerView): number {
  return Number(c.pointer.slice(c.pointer.lastIndexOf('/') + 1));
}
