import { Rule } from '../engine/types';
import { isObject, JsonObject } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { ObjectGraph } from '../model/graph';
import { mountedConfigMapFile } from '../model/mounts';
import { flagValue } from '../catalog';
import { envFromVars, namedListenPort } from '../model/listen-ports';
import { PROBE_KINDS, probeOf } from './probe-util';

function declared(c: ContainerView): string {
  return c.ports.map((p) => (p.name ? `${p.name} (${p.containerPort})` : String(p.containerPort))).join(', ');
}

/** Other containers of the pod that declare the port, for the message. */
function declaredElsewhere(w: Workload, c: ContainerView, port: number | string): ContainerView | undefined {
  return [...w.containers, ...w.sidecars].find((o) => o !== c && o.ports.some((p) => (typeof port === 'number' ? p.containerPort === port : p.name === port)));
}

interface Problem {
  type: 'named' | 'numeric-string' | 'undeclared-number' | 'loopback' | 'sibling';
  kind: string;
  t: string;
  port: number | string;
  pointer: string;
  /** For 'loopback': the listen flag that binds the (resolved) port to a loopback host only. */
  bind?: LoopbackBind;
  /** For 'sibling': the other container that declares the port and probes it itself. */
  other?: ContainerView;
}

/**
 * The image of the kubernetes-csi livenessprobe sidecar (also read by the admission policy), a
 * container that exists to answer another's liveness probe: kubernetes-csi/livenessprobe
 * @02836bc8e6eb README.md ("exposes an HTTP `/healthz` endpoint, which serves as kubelet's
 * livenessProbe hook to monitor health of a CSI driver", "uses `Probe()` call", "`livenessProbe` is
 * set on the container with the CSI driver. This way, Kubernetes restarts the CSI driver container
 * when the probe fails"; `--health-port` default 9808). The driver's liveness probe on its port is
 * the design, never a probe of the wrong container.
 */
export const HEALTH_SIDECAR_IMAGE = new RegExp('(^|/)livenessprobe([:@]|$)');

/**
 * The declared ports that a container of the pod probes itself, each with the first such
 * container: a port number it declares that one of its own probes (without a host) targets by
 * number or by the port's name. A container that serves a port and checks it is where that port
 * answers; a port merely declared may belong to a sibling (charts declare the ports of a pod on
 * one container: kubecost's cost-model declares 9090, which its nginx sidecar serves). The
 * kubernetes-csi livenessprobe sidecar (HEALTH_SIDECAR_IMAGE) is left out: it exists to answer
 * another container's liveness probe.
 */
function selfProbedPorts(w: Workload): Map<number, ContainerView> {
  const out = new Map<number, ContainerView>();
  for (const o of [...w.containers, ...w.sidecars]) {
    if (HEALTH_SIDECAR_IMAGE.test(o.image)) continue;
    for (const kind of PROBE_KINDS) {
      const probe = probeOf(o, kind);
      if (!probe) continue;
      for (const t of ['httpGet', 'tcpSocket', 'grpc'] as const) {
        const h = probe[t];
        if (!isObject(h) || hasHost(t, h)) continue;
        const p = o.ports.find((x) => (typeof h.port === 'number' ? x.containerPort === h.port : t !== 'grpc' && typeof h.port === 'string' && x.name === h.port));
        if (p && !out.has(p.containerPort)) out.set(p.containerPort, o);
      }
    }
  }
  return out;
}

/** Whether an httpGet or tcpSocket handler sets a host (grpc has none). */
function hasHost(t: string, h: JsonObject): boolean {
  return (t === 'httpGet' || t === 'tcpSocket') && typeof get(h, 'host') === 'string' && get(h, 'host') !== '';
}

/**
 * A liveness probe handler without a host on a port number that this container does not declare,
 * while another container of the pod declares it and probes it itself (selfProbedPorts): the
 * kubelet probes the pod's IP, so the probe checks that other container, and each time it does not
 * answer the kubelet restarts this one, which fixes nothing there (review round 35, report p57
 * item 5: kubecost's nginx frontend probes cost-model's 9003). Not for a port of a health probe
 * listen flag (`bound`: the CSI livenessprobe sidecar's --health-port and --http-endpoint).
 */
function siblingProblem(c: ContainerView, kind: string, t: string, h: JsonObject, bound: Set<number>, selfProbed: Map<number, ContainerView>): Problem | undefined {
  if (kind !== 'livenessProbe' || hasHost(t, h) || typeof h.port !== 'number') return undefined;
  const port = h.port;
  if (c.ports.some((p) => p.containerPort === port) || bound.has(port)) return undefined;
  const other = selfProbed.get(port);
  if (!other || other === c) return undefined;
  return { type: 'sibling', kind, t, port, pointer: `${c.pointer}/${kind}/${t}/port`, other };
}

/**
 * A listen setting that binds a port to a loopback host only: a health probe listen flag
 * (LOOPBACK_PROBE_BIND) or separate host and port flags (splitLoopbackBind).
 */
interface LoopbackBind {
  container: ContainerView;
  /** The argument(s), as shown: `--http-endpoint=127.0.0.1:29643`, `--host=127.0.0.1 --port=5000`. */
  arg: string;
  port: number;
  /** The host a probe under hostNetwork should set (127.0.0.1 for localhost, ::1 unbracketed). */
  host: string;
  /** The same setting on all interfaces: `--http-endpoint=:29643`, `--host=0.0.0.0`. */
  allInterfaces: string;
}

/**
 * The ports of health probe listen flags (HEALTH_PROBE_BIND: the first such argument of each
 * container's args) in the pod: every kubebuilder operator probes controller-runtime's
 * --health-probe-bind-address port without declaring it.
 * Per pod, since its containers share one network namespace and the kubelet probes the pod's IP.
 */
function healthProbeBindPorts(graph: ObjectGraph, w: Workload): Set<number> {
  const out = new Set<number>();
  for (const c of [...w.containers, ...w.sidecars]) {
    const args = Array.isArray(c.raw.args) ? c.raw.args : [];
    const a = args.find((x): x is string => typeof x === 'string' && HEALTH_PROBE_BIND.test(x));
    if (a !== undefined) out.add(flagPort(a));
    // The same setting in the manager's config file (controller-runtime's ComponentConfig,
    // `health: {healthProbeBindAddress: ":8081"}`, read with --config: kueue's chart; review round 13).
    const file = flagValue(args.filter((x): x is string => typeof x === 'string'), '--config');
    if (file === undefined || !file.startsWith('/')) continue;
    const read = mountedConfigMapFile(graph, w, c, file);
    const m = 'text' in read ? CONFIG_HEALTH_PROBE_BIND.exec(read.text) : null;
    if (m) out.add(Number(m[1]));
  }
  return out;
}

/**
 * controller-runtime v1alpha1 ControllerManagerConfiguration's health.healthProbeBindAddress
 * (json "healthProbeBindAddress"; sigs.k8s.io/controller-runtime pkg/config/v1alpha1 ControllerHealth),
 * which kueue's Configuration keeps: the port after the last ':'.
 */
const CONFIG_HEALTH_PROBE_BIND = /^\s*healthProbeBindAddress:\s*["']?[^\s"':]*:(\d{1,5})["']?\s*$/m;

/**
 * A health probe listen flag with its port (also read by the admission policy): controller-runtime's
 * --health-probe-bind-address=[host]:N (the OpenTelemetry operator spells it --health-probe-addr), --<x>-probe-port=N
 * (trust-manager's --readiness-probe-port),
 * and the kubernetes-csi livenessprobe sidecar's --health-port=N and --http-endpoint=[host]:N, whose
 * /healthz the CSI driver container beside it probes without declaring the port (csi-driver-smb,
 * juicefs; review round 14).
 */
export const HEALTH_PROBE_BIND = /^--?(?:(?:[a-z0-9]+-)*probe(?:-bind-address=.*:|-addr=.*:|-port=)|health-port=|http-endpoint=.*:)[0-9]{1,5}$/;

/**
 * A HEALTH_PROBE_BIND argument whose host is a loopback address (also read by the admission policy):
 * controller-runtime's --health-probe-bind-address=127.0.0.1:8081 or the CSI livenessprobe sidecar's
 * --http-endpoint=127.0.0.1:29643 (the host 127.0.0.0/8, localhost, [::1] or ::1). The program then
 * accepts connections on that port only at the loopback interface of the pod's network namespace
 * (the node's, under hostNetwork), never at the pod's IP, which is where the kubelet sends a probe
 * without a host: kubernetes/kubernetes pkg/probe/http/request.go:46-48 (@008b3652959c) (NewRequestForHTTPGetAction:
 * `host := httpGet.Host; if host == "" { host = podIP }`, called from pkg/kubelet/prober/prober.go
 * runProbe with status.PodIP) and pkg/kubelet/prober/prober.go runProbe (tcpSocket: `host :=
 * p.TCPSocket.Host; if host == "" { host = status.PodIP }`; grpc: `host := status.PodIP`, no host
 * field); under hostNetwork the pod's IP is the node's IP. The Kubernetes docs (kubernetes/website
 * content/en/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md,
 * "HTTP probes": host "defaults to the pod IP"; "Suppose the container listens on 127.0.0.1 and the
 * Pod's hostNetwork field is true. Then host, under httpGet, should be set to 127.0.0.1").
 * kubernetes-csi/csi-driver-smb charts/latest ships exactly this since 8c342afd0 ("fix: Drop host: localhost in
 * probes to better fulfill PSA": the node and controller pods, both hostNetwork; still so at 95c696805).
 * (--<x>-probe-port=N and --health-port=N carry no host: all interfaces.)
 */
export const LOOPBACK_PROBE_BIND = /^--?(?:(?:[a-z0-9]+-)*probe-(?:bind-address|addr)|http-endpoint)=(?:127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|localhost|\[::1\]|::1):[0-9]{1,5}$/;

/**
 * The ports that a container of the pod binds to a loopback host only, by its health probe listen
 * flag (the first HEALTH_PROBE_BIND argument of its args, as healthProbeBindPorts), each with the
 * first container and argument that bind it. (Only the args: the --config file's
 * healthProbeBindAddress is not read for this.)
 */
function loopbackBinds(w: Workload): Map<number, LoopbackBind> {
  const out = new Map<number, LoopbackBind>();
  for (const c of [...w.containers, ...w.sidecars]) {
    const args = Array.isArray(c.raw.args) ? c.raw.args : [];
    const a = args.find((x): x is string => typeof x === 'string' && HEALTH_PROBE_BIND.test(x));
    if (a !== undefined && LOOPBACK_PROBE_BIND.test(a)) {
      const port = flagPort(a);
      if (!out.has(port)) out.set(port, { container: c, arg: a, port, host: loopbackHost(a), allInterfaces: `${a.slice(0, a.indexOf('=') + 1)}:${port}` });
    }
    const split = splitLoopbackBind(c);
    if (split && !out.has(split.port)) out.set(split.port, split);
  }
  return out;
}

/**
 * Separate listen host and port flags (also read by the admission policy): `--host`, `-h`, `--bind`,
 * `--address` or `--listen-address` for the host, `--port` or `-p` for the port, each written
 * `--flag=value` or `--flag value` as elements of the container's command and args (not words of a
 * shell script: `pg_isready -h 127.0.0.1 -p 5432` there is a client). MLflow's tracking server takes
 * exactly these: mlflow/mlflow @004d7de0da51 mlflow/utils/cli_args.py HOST (`"--host", "-h"`, "The
 * network interface to bind the server to (default: 127.0.0.1) ... Use '127.0.0.1' for local-only
 * access, or '0.0.0.0' to allow connections from any network") and PORT (`"--port", "-p"`, "The port
 * to listen on (default: 5000)"), both options of `mlflow server` (@00747dbbf0b0 mlflow/cli/__init__.py:
 * `@cli_args.HOST @cli_args.PORT`); the community-charts mlflow chart renders `--host=127.0.0.1
 * --port=5000` with its oauth2-proxy sidecar (review round 34, report p51 item 6).
 *
 * A host flag also names a server to connect to in some programs (a click CLI's `--host`/`--port`
 * "The host to connect to"), so the pair counts only when the container itself declares
 * `containerPort: N`: the port is its own, and a program that owns a port and is told a host with it
 * binds there. Every host flag must be loopback (127.0.0.0/8, localhost, ::1, [::1]) and every port
 * flag the same N.
 */
export const SPLIT_HOST_FLAGS = ['--host', '-h', '--bind', '--address', '--listen-address'];
export const SPLIT_PORT_FLAGS = ['--port', '-p'];
/** A loopback host, alone (SPLIT_HOST_FLAGS). */
export const LOOPBACK_HOST = /^(?:127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|localhost|::1|\[::1\])$/;

/** The values of the flags `names` in argv, `--flag=value` or `--flag value` (which takes the next element). */
function flagValues(argv: string[], names: readonly string[]): { name: string; arg: string; value: string }[] {
  const out: { name: string; arg: string; value: string }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    if (eq > 0 && names.includes(a.slice(0, eq))) out.push({ name: a.slice(0, eq), arg: a, value: a.slice(eq + 1) });
    else if (names.includes(a)) {
      const value = argv[i + 1] ?? '';
      out.push({ name: a, arg: `${a} ${value}`.trim(), value });
      i++;
    }
  }
  return out;
}

/** A container's separate loopback host and port flags (SPLIT_HOST_FLAGS), for a port it declares. */
function splitLoopbackBind(c: ContainerView): LoopbackBind | undefined {
  const argv = [c.raw.command, c.raw.args].flatMap((x) => (Array.isArray(x) ? x : [])).filter((x): x is string => typeof x === 'string');
  // (One pass over both kinds, as the admission policy reads them: `-p -h` gives -p the value "-h".)
  const all = flagValues(argv, [...SPLIT_HOST_FLAGS, ...SPLIT_PORT_FLAGS]);
  const hosts = all.filter((f) => SPLIT_HOST_FLAGS.includes(f.name));
  const ports = all.filter((f) => SPLIT_PORT_FLAGS.includes(f.name));
  if (!hosts.length || !ports.length || !hosts.every((h) => LOOPBACK_HOST.test(h.value))) return undefined;
  if (!/^[0-9]{1,5}$/.test(ports[0].value) || !ports.every((p) => p.value === ports[0].value)) return undefined;
  const port = Number(ports[0].value);
  if (!c.ports.some((p) => p.containerPort === port)) return undefined;
  const h = hosts[0].value.replace('[', '').replace(']', '');
  return { container: c, arg: `${hosts[0].arg} ${ports[0].arg}`, port, host: h === 'localhost' ? '127.0.0.1' : h, allInterfaces: `${hosts[0].name}=0.0.0.0` };
}

/** The port of a HEALTH_PROBE_BIND argument: after the last '=', then after the last ':'. */
function flagPort(a: string): number {
  const v = a.slice(a.lastIndexOf('=') + 1);
  return Number(v.slice(v.lastIndexOf(':') + 1));
}

/** What is wrong with one probe handler's port, if anything. */
function problemOf(c: ContainerView, kind: string, t: string, h: JsonObject, bound: Set<number>, loopback: Map<number, LoopbackBind>, listens: (port: number) => boolean): Problem | undefined {
  const withHost = (t === 'httpGet' || t === 'tcpSocket') && typeof get(h, 'host') === 'string' && get(h, 'host') !== '';
  // An explicit host checks another host, whose ports this container does not declare.
  if (t === 'httpGet' && withHost) return undefined;
  const port = h.port;
  const pointer = `${c.pointer}/${kind}/${t}/port`;
  // Without a host the kubelet connects to the pod's IP (grpc has no host): a port that a container
  // of the pod listens on only at a loopback address (LOOPBACK_PROBE_BIND) never answers there. The
  // port is a number, or a name this container declares (resolved through its own ports, as the kubelet does).
  if (!withHost) {
    const n = typeof port === 'number' ? port : typeof port === 'string' && t !== 'grpc' ? c.ports.find((p) => p.name === port)?.containerPort : undefined;
    const bind = n === undefined ? undefined : loopback.get(n);
    if (bind) return { type: 'loopback', kind, t, port: port as number | string, pointer, bind };
  }
  if (typeof port === 'string' && t !== 'grpc') {
    if (c.ports.some((p) => p.name === port)) return undefined;
    return { type: /^\d+$/.test(port) ? 'numeric-string' : 'named', kind, t, port, pointer };
  }
  if (typeof port !== 'number' || c.ports.length === 0) return undefined;
  if (c.ports.some((p) => p.containerPort === port)) return undefined;
  // controller-runtime's --health-probe-bind-address=:8081 names the port (every kubebuilder operator): not a typo.
  if (bound.has(port)) return undefined;
  // Nor a port the container's own env or args name as one it listens on (listen-ports.ts
  // namedListenPort: DD_HEALTH_PORT=5556, --port=8081, HEALTH_ADDR=:8081): set next to the probe,
  // not a typo (review round 35, report p56 item 2: the Datadog Agent and Cluster Agent).
  if (listens(port)) return undefined;
  return { type: 'undeclared-number', kind, t, port, pointer };
}

/** "a", "a and b", "a, b and c". */
function list(xs: string[]): string {
  return xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

export const probePort: Rule = {
  meta: {
    id: 'probe-port',
    spec: 'SVC-001 (by analogy)',
    defaultSeverity: 'error',
    severities: ['error', 'warning', 'info'],
    description:
      'a readiness or startup probe uses a named port the container does not declare, so the pod never becomes Ready, or a probe without a host checks a port that a container of the pod listens on only at a loopback address, so it can never succeed (error); a liveness probe on such a name, which silently disables the liveness check, or a liveness probe on a port that another container of the pod declares and probes itself, which restarts this container whenever the other fails (warning); a numeric port not declared by the container nor named by its env or args as a listen port (info: works, but often a typo)',
    doc: `The kubelet resolves a probe's named port through the **container's own** \`ports[].name\`, as the
EndpointSlice controller does for a Service's named \`targetPort\` (SVC-001). A name the container does not
declare cannot be resolved, and the kubelet treats that as a probe **error**, not a failure: it resolves
the name at each check (kubernetes/kubernetes @4966917a139d pkg/probe/util.go \`ResolveContainerPort\`:
\`port %q not found\`, through @008b3652959c pkg/probe/http/request.go \`NewRequestForHTTPGetAction\` for
\`httpGet\`), pkg/kubelet/prober/prober.go \`runProbe\` returns \`probe.Unknown\` with the error
("HTTP-Probe failed to create request", "TCP-Probe failed to resolve port") and the pod gets the event
"<type> probe errored and resulted in unknown state", and the probe worker throws an errored result away
(@00421113e1c6 pkg/kubelet/prober/worker.go \`doProbe\`: "Prober error, throw away the result"). Each
probe therefore keeps the result its worker starts with (\`newWorker\`: readiness \`Failure\`, liveness
\`Success\`, startup \`Unknown\`), and no failure is ever counted:

- a **readiness** probe never succeeds: the pod never becomes Ready, so no Service routes to it and a
  rollout stalls;
- a **startup** probe never succeeds and never fails: the container never counts as started
  (@0181833dbbd0 pkg/kubelet/prober/prober_manager.go \`UpdatePodStatus\`: \`started = result ==
  results.Success\`, readiness only \`if started\`), its liveness and readiness checks never run, and it
  is not restarted either: the pod stays not Ready for good;
- a **liveness** probe never fails: the kubelet never restarts the container, however it hangs. The
  liveness check is silently disabled, which is a warning, not an error.

(The upstream reports agree: in prometheus-community/helm-charts the kube-state-metrics chart with
\`kubeRBACProxy.enabled\` probes names that only the proxy containers declare, and the container "never
gets ready" (#6164, #7144); PR #6402 shows the events \`Readiness probe errored and resulted in unknown
state: strconv.Atoi: parsing "metrics"\` and \`Liveness probe errored ...: parsing "http"\`, and PR #5844 a
\`kubectl describe\` of such a pod with \`Ready: False\` and \`Restart Count: 0\`.)

A probe without a \`host\` connects to the **pod's IP** (the node's IP under \`hostNetwork: true\`):
kubernetes/kubernetes pkg/probe/http/request.go:46-48 (@008b3652959c) (\`NewRequestForHTTPGetAction\`: an empty
\`httpGet.host\` becomes the pod IP that pkg/kubelet/prober/prober.go \`runProbe\` passes, \`status.PodIP\`)
and pkg/kubelet/prober/prober.go \`runProbe\` (an empty \`tcpSocket.host\` becomes \`status.PodIP\`; \`grpc\`
always probes \`status.PodIP\`). The Kubernetes docs say the same (configure-liveness-readiness-startup-probes,
"HTTP probes": \`host\` "defaults to the pod IP"; a container that listens on 127.0.0.1 in a
\`hostNetwork\` pod needs \`host: 127.0.0.1\`). A program that listens only at a loopback address
(127.0.0.1, localhost, [::1]) accepts nothing there, so such a probe fails every time: the CSI
livenessprobe sidecar with \`--http-endpoint=127.0.0.1:29643\` beside a driver whose liveness probe is
\`httpGet {path: /healthz, port: 29643}\` restarts the driver every few minutes on every node
(kubernetes-csi/csi-driver-smb charts/latest since 8c342afd0, "fix: Drop host: localhost in probes to better fulfill PSA",
still so at 95c696805).

**Applies to:** \`livenessProbe\`, \`readinessProbe\` and \`startupProbe\` of main containers and native
sidecars. Probes with an explicit \`httpGet.host\` check another host and are skipped.

**Conditions:**

- **error:** the \`httpGet.port\` or \`tcpSocket.port\` of a \`readinessProbe\` or \`startupProbe\` is a string
  (a port name) that the container does not declare in its \`ports\` (also when another container of the
  pod declares it: lookup is per container).
- **warning:** the same on a \`livenessProbe\` only (when a readiness or startup probe of the container
  uses the same undeclared name, the one finding naming them all is the error).
- **error:** a probe port is a string of digits (\`port: "8080"\`): the API accepts a string only as a
  port name (IANA_SVC_NAME, with at least one letter), so the pod is rejected.
- **error:** a probe without a host (\`httpGet\` or \`tcpSocket\` without \`host\`, and every \`grpc\` probe)
  is on a port that a container of the pod listens on only at a loopback address: the health probe listen
  flag of its \`args\` (the first one, see below) is \`--health-probe-bind-address=HOST:N\` or
  \`--http-endpoint=HOST:N\` with HOST 127.0.0.0/8, \`localhost\`, \`[::1]\` or \`::1\`, and the probe's port is
  N, or a name that the probing container declares with \`containerPort: N\`. Likewise separate host and
  port flags among the elements of a container's \`command\` and \`args\` (\`--flag=value\` or \`--flag value\`):
  \`--host\`, \`-h\`, \`--bind\`, \`--address\` or \`--listen-address\` with such a HOST (every one of them),
  and \`--port\` or \`-p\` with N (every one the same), when that container itself declares
  \`containerPort: N\`: MLflow's \`mlflow server --host=127.0.0.1 --port=5000\` (mlflow/mlflow @004d7de0da51
  mlflow/utils/cli_args.py: \`--host\`/\`-h\` "The network interface to bind the server to (default:
  127.0.0.1)", \`--port\`/\`-p\` "The port to listen on"), as the community-charts mlflow chart renders it
  beside an oauth2-proxy. (A host flag names a server to connect to in some programs, hence the declared
  port; words of a shell script, such as \`pg_isready -h 127.0.0.1 -p 5432\`, are not read.) The finding
  names the listening container and its flags. A refused connection is a probe **failure**, which the
  kubelet counts (unlike an unresolvable name): a readiness probe keeps the pod from ever becoming Ready,
  a liveness or startup probe restarts the container in a loop. (A port set only in a \`--config\` file
  is not read for this.)
- **warning:** a \`livenessProbe\` without a host on a port number that the container does not declare,
  while another container of the pod declares it and probes it itself (one of its own probes targets
  it, by number or by the port's name: that is where the port answers; a port merely declared there may
  be this container's, as charts declare a pod's ports on one container). The kubelet probes the pod's
  IP, so the probe checks the other container, and when the liveness probe fails "the kubelet kills
  the Container" (kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md,
  "Types of probe"): this container is restarted whenever the other one is slow or down, which fixes
  nothing there, and nothing checks this container itself. Kubecost's cost-analyzer chart 2.3.3
  (cost-analyzer-deployment-template.yaml): the nginx frontend's liveness probe (6 x 5s) is
  \`/healthz\` on 9003, the cost-model container's port, whose own liveness allows 2000s; a slow
  cost-model start sends nginx into CrashLoopBackOff (review round 35, report p57 item 5). Not reported
  for a readiness or startup probe (a readiness probe on a sibling's port gates the pod's readiness
  with the sibling's, as the sibling's own does), nor for a port of a health probe listen flag (below),
  nor when the other container is the kubernetes-csi livenessprobe sidecar (an image named
  \`livenessprobe\`), which exists to answer the CSI driver's liveness probe: its \`/healthz\` calls the
  driver's \`Probe\` over the driver's socket.
- **info:** the port is a number that the container does not declare, while it declares at least one
  port. Probing an undeclared port works (ports need not be declared), but it is often a typo or a stale
  port after a change. Containers that declare no ports at all are not reported, nor a port that the
  container's own \`env\` or \`args\` name as one it listens on (the readings of
  \`lib/model/listen-ports.ts\`, as service-selector-ports uses them: an env value N or \`[host]:N\`, a
  \`--*port*=N\` or \`--*port* N\` argument, a listen address \`--*=[host]:N\`; not a port it connects to,
  such as a \`<P>_PORT\` beside a \`<P>_HOST\` naming another host, a client flag, or a variable named for
  another container of the pod; also the variables of \`envFrom\` sources in the input): the Datadog Agent
  and Cluster Agent serve their health probe on \`health_port\`, which env \`DD_HEALTH_PORT\` sets and the
  chart sets beside the probes (DataDog/datadog-agent @00114955bd12 pkg/config/setup/config.go:
  \`NewConfig("datadog", "DD", ...)\`, \`BindEnvAndSetDefault("health_port", int64(0))\`; @0002c75ce5fe
  cmd/cluster-agent/subcommands/start/command.go \`start\`: \`healthPort = ...GetInt("health_port")\`,
  \`healthprobe.Serve(mainCtx, healthPort)\`; pkg/api/healthprobe/healthprobe.go \`Serve\`:
  \`net.Listen("tcp", fmt.Sprintf("0.0.0.0:%v", port))\`; review round 35, report p56 item 2). \`grpc.port\` is always a
  number and is checked the same way. Not reported either: a port the catalog knows as the program's
  own health check port (a \`process-local-probe\` entry that pins it, e.g. the ingress-nginx controller's
  \`/healthz\` on 10254 and the OpenTelemetry Collector's health_check extension on 13133): the charts
  probe it without declaring it, and it is right. Nor the port of a health probe listen flag in the
  \`args\` of a container of the pod (the first such argument of each): controller-runtime's
  \`--health-probe-bind-address=[host]:N\`, which every kubebuilder operator probes without declaring, a
  \`--<name>-probe-port=N\` (trust-manager's \`--readiness-probe-port\`), or the kubernetes-csi livenessprobe
  sidecar's \`--health-port=N\` or \`--http-endpoint=[host]:N\`, whose \`/healthz\` the CSI driver beside it probes; nor the same setting in the config file a
  controller-runtime manager reads with \`--config FILE\` (\`health: {healthProbeBindAddress: ":N"}\`, kueue's chart),
  when a ConfigMap of the input provides that file.

Probes of one container that share the same bad port (liveness and readiness often do) are reported
once, at the first of them.

**Fix:** use a port the container declares, or declare it:

\`\`\`yaml
ports:
- {name: http, containerPort: 8080}
readinessProbe:
  httpGet: {path: /readyz, port: http}
\`\`\`

For a port bound to a loopback address: under \`hostNetwork: true\` the kubelet shares the node's
loopback, so set \`httpGet.host: 127.0.0.1\` (the address the program listens on: \`::1\` for \`[::1]\`;
\`tcpSocket.host\` likewise; \`grpc\` has no host, so make the program listen on all interfaces). Without \`hostNetwork\`, make the program listen on all interfaces
(\`--http-endpoint=:29643\`, \`--health-probe-bind-address=:8081\`, \`--host=0.0.0.0\`): the kubelet cannot reach the pod's
loopback, and \`host: 127.0.0.1\` would probe the node's own loopback.

\`\`\`yaml
hostNetwork: true
containers:
- name: liveness-probe
  args: [--csi-address=/csi/csi.sock, --http-endpoint=127.0.0.1:29643]
- name: smb
  livenessProbe:
    httpGet: {host: 127.0.0.1, path: /healthz, port: 29643}
\`\`\``,
    fixable: false,
    references: [
      'kubernetes/kubernetes pkg/api/v1/pod/util.go (FindPort)',
      'kubernetes/kubernetes pkg/kubelet/prober/prober.go (named probe ports resolved through the container ports; runProbe: tcpSocket and grpc probes connect to status.PodIP when no host is set; a port that does not resolve returns probe.Unknown with the error, and probe() records "<type> probe errored and resulted in unknown state"; read in a stored copy, commit not pinned)',
      'kubernetes/kubernetes @4966917a139d pkg/probe/util.go (ResolveContainerPort: a name not among the container ports is an error, `port %q not found`)',
      'kubernetes/kubernetes @00421113e1c6 pkg/kubelet/prober/worker.go (newWorker: initial results readiness Failure, liveness Success, startup Unknown; doProbe: "Prober error, throw away the result"; "Disable other probes until container has started")',
      'kubernetes/kubernetes @0181833dbbd0 pkg/kubelet/prober/prober_manager.go (UpdatePodStatus: started = result == results.Success; Ready evaluated only if started)',
      'prometheus-community/helm-charts #6164, #7144, PR #6402, PR #5844 (kube-state-metrics with kubeRBACProxy: probes on names the container does not declare; "never gets ready", "probe errored and resulted in unknown state", Restart Count 0)',
      'kubernetes/kubernetes @008b3652959c pkg/probe/http/request.go:46-48 (NewRequestForHTTPGetAction: an empty httpGet.host becomes the pod IP)',
      'kubernetes/website content/en/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md ("HTTP probes": host defaults to the pod IP; 127.0.0.1 under hostNetwork)',
      'kubernetes-csi/csi-driver-smb 8c342afd0 ("fix: Drop host: localhost in probes to better fulfill PSA": charts/latest, livenessprobe --http-endpoint=127.0.0.1:29643, driver probe without host)',
      'kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md (livenessProbe: "If the liveness probe fails, the kubelet kills the Container, and the Container is subjected to its restart policy")',
      'DataDog/datadog-agent @00114955bd12 pkg/config/setup/config.go (InitConfig: BindEnvAndSetDefault("health_port", int64(0)), env prefix DD); @0002c75ce5fe cmd/cluster-agent/subcommands/start/command.go (start: healthprobe.Serve(mainCtx, healthPort)); pkg/api/healthprobe/healthprobe.go (Serve listens on 0.0.0.0:port; stored copy, commit not pinned)',
      'mlflow/mlflow @004d7de0da51 mlflow/utils/cli_args.py (HOST: "--host", "-h", "The network interface to bind the server to (default: 127.0.0.1)"; PORT: "--port", "-p", "The port to listen on (default: 5000)"); @00747dbbf0b0 mlflow/cli/__init__.py (server: @cli_args.HOST @cli_args.PORT)',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      const bound = healthProbeBindPorts(ctx.graph, w);
      const loopback = loopbackBinds(w);
      const selfProbed = selfProbedPorts(w);
      const pod = [...w.containers, ...w.sidecars];
      for (const c of pod) {
        const listens = (port: number) => namedListenPort(c, port, pod, false, envFromVars(c, w.obj.namespace, (k, ns) => ctx.graph.ofKindIn(k, ns))) !== undefined;
        // One finding per container and port: liveness and readiness often share the same port.
        const groups = new Map<string, Problem[]>();
        for (const kind of PROBE_KINDS) {
          const probe = probeOf(c, kind);
          if (!probe) continue;
          for (const t of ['httpGet', 'tcpSocket', 'grpc'] as const) {
            const h = probe[t];
            if (!isObject(h)) continue;
            // (A port of another container: reported as that, and not also as an undeclared number.)
            const sibling = siblingProblem(c, kind, t, h, bound, selfProbed);
            if (sibling) groups.set(`sibling:${sibling.port}`, [...(groups.get(`sibling:${sibling.port}`) ?? []), sibling]);
            const p = problemOf(c, kind, t, h, bound, loopback, listens);
            if (!p || (sibling && p.type === 'undeclared-number')) continue;
            // A port the catalog knows as the program's own health check port is not a typo.
            if (p.type === 'undeclared-number' && ctx.catalog.programProbePort(c, probe, t)) continue;
            // (A loopback-bound port is grouped by its number: a name and the number it resolves to are one port.)
            const key = p.type === 'loopback' ? `loopback:${p.bind!.port}` : `${p.type}:${String(p.port)}`;
            groups.set(key, [...(groups.get(key) ?? []), p]);
          }
        }
        for (const ps of groups.values()) report(w, c, ps);
      }
    }

    function report(w: Workload, c: ContainerView, ps: Problem[]): void {
      const first = ps[0];
      const sameType = ps.every((p) => p.t === first.t);
      const fields = sameType ? `${list(ps.map((p) => p.kind))} ${first.t}.port` : list(ps.map((p) => `${p.kind} ${p.t}.port`));
      const many = ps.length > 1;
      const port = first.port;
      let message: string;
      if (first.type === 'loopback') {
        message = loopbackMessage(w, c, ps, fields);
      } else if (first.type === 'sibling') {
        const o = first.other!;
        message =
          `container "${c.name}": ${fields} ${many ? `are ${port}, a port` : `${port} is a port`} of container "${o.name}", which declares it and probes it itself, not of this container (${c.ports.length ? `it declares ${declared(c)}` : 'it declares no ports'}): ` +
          `the kubelet sends a probe without a host to the pod's IP, so ${many ? 'these probes check' : 'this probe checks'} "${o.name}", and whenever "${o.name}" does not answer (a slow start, a stall) the kubelet restarts "${c.name}", which does not fix "${o.name}", and ${many ? 'they never check' : 'it never checks'} "${c.name}" itself; ` +
          `probe a port or endpoint that "${c.name}" serves, or give it no liveness probe`;
      } else if (first.type === 'numeric-string') {
        message = `container "${c.name}": ${fields} ${many ? 'are' : 'is'} the string "${port}": the API accepts a string only as a port name (IANA_SVC_NAME, with at least one letter), so the pod is rejected; write the number without quotes: port: ${port}`;
      } else if (first.type === 'named') {
        const other = declaredElsewhere(w, c, port);
        message = `container "${c.name}": ${fields} ${many ? `are "${port}", which is` : `"${port}" is`} not a port name of this container (${c.ports.length ? `it declares ${declared(c)}` : 'it declares no ports'}${other ? `; "${port}" is declared by container "${other.name}", but names resolve per container` : ''}): ${unresolvedConsequence(ps.map((p) => p.kind))}; use a declared port name or number, or declare {name: ${port}, containerPort: N}`;
      } else {
        const other = declaredElsewhere(w, c, port);
        message = `container "${c.name}": ${fields} ${many ? `are ${port}, which is` : `${port} is`} not declared by the container (it declares ${declared(c)})${other ? `; container "${other.name}" declares it, so the ${many ? 'probes check' : 'probe checks'} that container instead of this one` : ''}: ${many ? 'the probes work' : 'the probe works'} if the app listens there, but this is often a typo or a stale port; check the port and declare it in ports`;
      }
      // An unresolvable name on a liveness probe alone errors without consequence but a silently
      // disabled liveness check (unresolvedConsequence): a warning; on a readiness or startup probe
      // the pod is never Ready (review round 34, report p49 item A).
      const severity = first.type === 'undeclared-number' ? 'info' : first.type === 'sibling' || (first.type === 'named' && ps.every((p) => p.kind === 'livenessProbe')) ? 'warning' : 'error';
      ctx.report({ object: w.obj, pointer: first.pointer, severity, message });
    }
  },
};

/**
 * What the kubelet does with probes whose port name it cannot resolve, by the probes' kinds. The
 * kubelet resolves the name when it runs each check (pkg/probe/util.go ResolveContainerPort: `port
 * %q not found`, kubernetes/kubernetes @4966917a139d; called by pkg/probe/http/request.go
 * NewRequestForHTTPGetAction, @008b3652959c, and for tcpSocket by pkg/kubelet/prober/prober.go
 * runProbe); runProbe returns probe.Unknown with the error ("HTTP-Probe failed to create request",
 * "TCP-Probe failed to resolve port") and probe() records the event "<type> probe errored and
 * resulted in unknown state" and returns the error (prober.go read in a stored copy, commit not
 * pinned). The probe worker throws an errored result away (pkg/kubelet/prober/worker.go doProbe,
 * @00421113e1c6: `if err != nil { // Prober error, throw away the result. return true }`), so each
 * probe keeps the result its worker starts with (newWorker: readiness results.Failure, liveness
 * results.Success, startup results.Unknown), and no failure is ever counted:
 * - readiness: never Success, so the container is never Ready;
 * - startup: never Success, so the container never counts as started (prober_manager.go
 *   UpdatePodStatus, @0181833dbbd0: `started = result == results.Success`, and readiness is
 *   evaluated only `if started`), its liveness and readiness checks never run (worker.go doProbe:
 *   "Disable other probes until container has started"), and it is never restarted either;
 * - liveness: stays Success, so it never restarts the container: the check is silently disabled.
 */
function unresolvedConsequence(kinds: string[]): string {
  const head = `the kubelet cannot resolve it, so every check errors ("probe errored and resulted in unknown state") and the kubelet throws the result away: `;
  const liveness = kinds.includes('livenessProbe');
  if (kinds.includes('startupProbe')) {
    return `${head}the container never counts as started, so its liveness and readiness probes never run and the pod never becomes Ready, nor is it restarted: it stays not Ready for good (no Service routes to it, and a rollout stalls)`;
  }
  if (kinds.includes('readinessProbe')) {
    return `${head}readiness stays at its initial failure and the pod never becomes Ready (no Service routes to it, and a rollout stalls)${liveness ? ', and liveness stays at its initial success, so it never restarts the container' : ''}`;
  }
  return `${head}liveness stays at its initial success, so the kubelet never restarts the container, however it hangs: the liveness check is silently disabled`;
}

/** The host a probe under hostNetwork should connect to for a LOOPBACK_PROBE_BIND argument: its own address (127.0.0.1 for localhost, ::1 unbracketed). */
function loopbackHost(arg: string): string {
  const v = arg.slice(arg.indexOf('=') + 1);
  const h = v.slice(0, v.lastIndexOf(':')).replace('[', '').replace(']', '');
  return h === 'localhost' ? '127.0.0.1' : h;
}

/** The error for probes without a host on a port that a container of the pod binds to a loopback address only. */
function loopbackMessage(w: Workload, c: ContainerView, ps: Problem[], fields: string): string {
  const b = ps[0].bind!;
  const many = ps.length > 1;
  const shown = ps.map((p) => p.port).filter((x, i, xs) => xs.indexOf(x) === i);
  const port = shown.map((x) => (typeof x === 'string' ? `"${x}" (${b.port})` : String(x))).join(' and ');
  const hostNetwork = w.podSpec.hostNetwork === true;
  // A refused connection is a probe failure, which the kubelet counts (unlike a port name it cannot
  // resolve, an error it throws away): readiness never passes, and liveness and startup restart.
  const ready = ps.some((p) => p.kind === 'readinessProbe');
  const restarts = ps.some((p) => p.kind !== 'readinessProbe');
  const consequence = [ready ? 'the pod never becomes Ready' : '', restarts ? 'the kubelet restarts the container in a loop' : ''].filter(Boolean).join(', and ');
  const allInterfaces = b.allInterfaces;
  const where = b.container === c ? 'the container itself listens' : `container "${b.container.name}" listens`;
  const head =
    `container "${c.name}": ${fields} ${many ? `are ${port}, a port` : `${port} is a port`} ${where} on only at a loopback address (${b.arg}): ` +
    `without a host the kubelet probes the pod's IP${hostNetwork ? " (the node's IP, hostNetwork: true)" : ''}, where nothing accepts on that port, so the ${many ? 'probes fail' : 'probe fails'} every time` +
    ` (a refused connection is a failure, not an error: ${consequence}); `;
  const grpc = ps.some((p) => p.t === 'grpc');
  const hosts = [...new Set(ps.filter((p) => p.t !== 'grpc').map((p) => p.t))].map((t) => `${t}.host: ${b.host}`);
  if (hostNetwork && !grpc) {
    return `${head}set ${list(hosts)} (under hostNetwork the kubelet shares the node's loopback), or make it listen on all interfaces (${allInterfaces})`;
  }
  if (hostNetwork) {
    return `${head}grpc has no host: make it listen on all interfaces (${allInterfaces})${hosts.length ? `, or set ${list(hosts)} on the other probes (under hostNetwork the kubelet shares the node's loopback)` : ''}`;
  }
  return `${head}make it listen on all interfaces (${allInterfaces}): the kubelet cannot reach the pod's loopback, and host: 127.0.0.1 would probe the node's own loopback`;
}
