import { ObjectGraph, ServedPort } from '../model/graph';
import { clientEvidencePorts, containerGuess, trafficPortsOf } from '../model/traffic';
export { trafficContainers, trafficPorts } from '../model/traffic';
import { isObject, Json, JsonObject } from '../model/types';
import { KubeVersion } from '../engine/version';
import { ContainerView, DEFAULTS, get, num, Workload } from '../model/workload';

/** Shared helpers of the TERM-002..005 and PROBE-* rules. */

export const PROBE_KINDS = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** The probe object of a container, when it is an object. */
export function probeOf(c: ContainerView, kind: ProbeKind): JsonObject | undefined {
  const p = c.raw[kind];
  return isObject(p) ? p : undefined;
}

/** The handler type of a probe or lifecycle handler: httpGet, tcpSocket, exec, grpc, sleep. */
export type HandlerType = 'httpGet' | 'tcpSocket' | 'exec' | 'grpc' | 'sleep';
const HANDLER_TYPES: HandlerType[] = ['httpGet', 'tcpSocket', 'exec', 'grpc', 'sleep'];

export function handlerType(h: JsonObject): HandlerType | undefined {
  return HANDLER_TYPES.find((t) => h[t] !== undefined && h[t] !== null);
}

/** An int-or-string port with a named port resolved through the container's own ports (as the kubelet does). */
export function resolvePort(c: ContainerView, port: Json | undefined): number | string | undefined {
  if (typeof port === 'number') return port;
  if (typeof port !== 'string') return undefined;
  const named = c.ports.find((p) => p.name === port);
  return named ? named.containerPort : port;
}

/** `8080` or `"http" (8080)`, for messages. */
export function portLabel(c: ContainerView, port: Json | undefined): string {
  if (typeof port === 'string') {
    const named = c.ports.find((p) => p.name === port);
    return named ? `"${port}" (${named.containerPort})` : `"${port}"`;
  }
  return String(port);
}

/** Probe failure window: failureThreshold x periodSeconds with the API defaults. */
export function probeWindow(p: JsonObject): { failureThreshold: number; periodSeconds: number; seconds: number } {
  const failureThreshold = num(p.failureThreshold) ?? DEFAULTS.probe.failureThreshold;
  const periodSeconds = num(p.periodSeconds) ?? DEFAULTS.probe.periodSeconds;
  return { failureThreshold, periodSeconds, seconds: failureThreshold * periodSeconds };
}

/** The path of an httpGet without query or fragment, "/" when empty, without a trailing slash. */
export function normalizePath(path: Json | undefined): string {
  const raw = typeof path === 'string' ? path : '';
  let p = raw.split(/[?#]/)[0].trim();
  if (p === '') p = '/';
  if (!p.startsWith('/')) p = `/${p}`;
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/**
 * The path of an httpGet as the kubelet requests it, for equality: normalizePath plus the query string
 * (`/healthz?full=true` is another check than `/healthz`: argo-cd's repo-server checks its dependencies
 * only with `full=true`).
 */
export function requestPath(path: Json | undefined): string {
  const raw = typeof path === 'string' ? path.trim() : '';
  const q = raw.indexOf('?');
  const query = q >= 0 ? raw.slice(q + 1).split('#')[0] : '';
  return normalizePath(raw) + (query ? `?${query}` : '');
}

function str(v: Json | undefined, dflt = ''): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : dflt;
}

/**
 * A canonical form of a probe's handler, for equality: named ports resolved through the
 * container's own ports, API defaults applied (scheme HTTP, path "/", grpc service ""),
 * headers order-insensitive with case-insensitive names. Undefined when there is no handler.
 */
export function canonicalHandler(c: ContainerView, p: JsonObject): string | undefined {
  const t = handlerType(p);
  if (!t) return undefined;
  const h = p[t];
  switch (t) {
    case 'httpGet': {
      const headers = Array.isArray(get(h, 'httpHeaders'))
        ? (get(h, 'httpHeaders') as Json[])
            .filter(isObject)
            .map((x) => `${str(x.name).toLowerCase()}=${str(x.value)}`)
            .sort()
        : [];
      return JSON.stringify({
        t,
        path: requestPath(get(h, 'path')),
        port: resolvePort(c, get(h, 'port')) ?? null,
        host: str(get(h, 'host')),
        scheme: str(get(h, 'scheme'), 'HTTP').toUpperCase(),
        headers,
      });
    }
    case 'tcpSocket':
      return JSON.stringify({ t, port: resolvePort(c, get(h, 'port')) ?? null, host: str(get(h, 'host')) });
    case 'grpc':
      return JSON.stringify({ t, port: num(get(h, 'port')) ?? null, service: str(get(h, 'service')) });
    case 'exec': {
      const cmd = get(h, 'command');
      return JSON.stringify({ t, command: Array.isArray(cmd) ? cmd.map((x) => str(x)) : [] });
    }
    case 'sleep':
      return JSON.stringify({ t, seconds: num(get(h, 'seconds')) ?? null });
  }
}

/** A short human description of a probe handler: "httpGet /healthz on port 8080". */
/**
 * What a copy of the check must keep besides path and port: its host (NodeLocal DNSCache probes
 * 169.254.20.10, the link-local address its health server listens on, from a hostNetwork pod: the
 * same check on the pod IP never passes), scheme and headers (review round 13).
 */
function requestParts(h: Json | undefined): string {
  const parts: string[] = [];
  const host = get(h, 'host');
  if (typeof host === 'string' && host !== '') parts.push(`host ${host}`);
  const scheme = get(h, 'scheme');
  if (typeof scheme === 'string' && scheme !== '' && scheme.toUpperCase() !== 'HTTP') parts.push(`scheme ${scheme}`);
  const headers = get(h, 'httpHeaders');
  if (Array.isArray(headers) && headers.length) parts.push(`httpHeaders ${headers.map((x) => `${String(get(x, 'name'))}: ${String(get(x, 'value'))}`).join(', ')}`);
  return parts.length ? `, ${parts.join(', ')}` : '';
}

export function describeHandler(c: ContainerView, p: JsonObject): string {
  const t = handlerType(p);
  const h = t ? p[t] : undefined;
  switch (t) {
    case 'httpGet':
      return `httpGet ${requestPath(get(h, 'path'))} on port ${portLabel(c, get(h, 'port'))}${requestParts(h)}`;
    case 'tcpSocket':
      return `tcpSocket on port ${portLabel(c, get(h, 'port'))}${requestParts(h)}`;
    case 'grpc': {
      const svc = str(get(h, 'service'));
      return `grpc on port ${String(num(get(h, 'port')))}${svc ? ` (service "${svc}")` : ''}`;
    }
    case 'exec': {
      const cmd = get(h, 'command');
      return `exec ${JSON.stringify(Array.isArray(cmd) ? cmd : [])}`;
    }
    default:
      return 'an unknown handler';
  }
}

/** Readiness gates that make a cloud load balancer's target health gate the pod's readiness. */
export const AWS_LBC_GATE_PREFIX = 'target-health.elbv2.k8s.aws/';
export const GKE_NEG_GATE = 'cloud.google.com/load-balancer-neg-ready';

/** The cloud LB readiness gate written in the pod template, if any. */
export function cloudLbReadinessGate(w: Workload): string | undefined {
  const gates = w.podSpec.readinessGates;
  if (!Array.isArray(gates)) return undefined;
  for (const g of gates) {
    const t = get(g, 'conditionType');
    if (typeof t === 'string' && (t.startsWith(AWS_LBC_GATE_PREFIX) || t === GKE_NEG_GATE)) return t;
  }
  return undefined;
}

/** "port 8080 for Service web", "ports 8080, 9090 for Services a, b": the container's port numbers, for messages. */
export function servedPortsLabel(graph: ObjectGraph, w: Workload, c: ContainerView, of: readonly ServedPort[] = trafficPortsOf(graph, w)): string | undefined {
  const ports = of.filter((p) => p.container === c);
  if (!ports.length) return undefined;
  const portOf = (p: ServedPort) => (p.containerPort ? String(p.containerPort.containerPort) : String(p.servicePort.targetPort));
  // Peer ports (etcd's 2380, ZooKeeper's follower and election, Elasticsearch's transport) are named
  // apart when a client port is served too: the finding is about the clients.
  const peer = (p: ServedPort) => PEER_PORT.test(p.servicePort.name ?? '') || PEER_PORT.test(p.containerPort?.name ?? '');
  const client = ports.filter((p) => !peer(p));
  const shown = client.length ? client : ports;
  const nums = [...new Set(shown.map(portOf))];
  const peers = client.length ? [...new Set(ports.filter(peer).map(portOf))].filter((n) => !nums.includes(n)) : [];
  const svcs = [...new Set(shown.map((p) => p.service.obj.name))];
  // The container's own port numbers, "for" the Services that route to them (a Service's own port,
  // e.g. metrics-server's 443 in front of 10250, is another number).
  const also = peers.length ? ` (and peer port${peers.length > 1 ? 's' : ''} ${peers.join(', ')})` : '';
  // An undeclared port found through the container's own env or args (ServedPort.pick): said how.
  const named = [...new Set(shown.flatMap((p) => (p.pick?.by === 'config' ? [p.pick.evidence] : [])))];
  const how = named.length ? ` (undeclared; named by its ${named.join(', ')})` : '';
  return `${nums.length > 1 ? 'ports' : 'port'} ${nums.join(', ')} for ${svcs.length > 1 ? 'Services' : 'Service'} ${svcs.join(', ')}${how}${also}`;
}

/**
 * `container "app"`, or `probably container "app" (no container declares port 9443 or names it in
 * its env or args)` when the served ports `of` reach it only by a guess (traffic.ts containerGuess),
 * for the start of a finding's message.
 */
export function containerRef(c: ContainerView, of: readonly ServedPort[]): string {
  const guess = containerGuess(c, of);
  return guess ? `probably container "${c.name}" (${guess})` : `container "${c.name}"`;
}

/**
 * Port names of member-to-member traffic in clustered data stores, for messages only: etcd's
 * \`peer\`, ZooKeeper's \`follower\` and \`election\`, Raft ports, ClickHouse's \`interserver\`,
 * Cassandra's \`intra\` (as a word of the name); Elasticsearch's and OpenSearch's \`transport\` and
 * NATS's route port \`cluster\` (6222; Mattermost's 8075) only as the whole name: as a word they also
 * name client ports, Mailu's \`imap-transport\` is LMTP delivery from postfix and front (review
 * round 35, report p57 item 6), and the datadog chart's \`dd-datadog-cluster-agent-metrics-api\` is the
 * external metrics API.
 */
const PEER_PORT = /(^|[-_])(peer|follower|election|raft|interserver|intra)($|[-_])|^(transport|cluster)$/i;

/** "port http/8080", "ports http/8080, 9000": the container's declared TCP ports that suggest traffic, for messages when no Service says. */
export function declaredPortsLabel(graph: ObjectGraph, w: Workload, c: ContainerView): string | undefined {
  // The ports that are the evidence of traffic (not metrics or operator ports, nor the program's own
  // monitoring port, which the served decision does not count), else every TCP port.
  const evidence = clientEvidencePorts(graph, w, c);
  const ports = (evidence.length ? evidence : c.ports.filter((p) => p.protocol === 'TCP')).map((p) => (p.name ? `${p.name}/${p.containerPort}` : String(p.containerPort)));
  if (!ports.length) return undefined;
  return `${ports.length > 1 ? 'ports' : 'port'} ${ports.slice(0, 3).join(', ')}`;
}

/**
 * A container the Istio injector writes at admission: `image: auto` in a template that asks for
 * injection (the istio/gateway chart). Its probes, lifecycle and drain come from the injection template,
 * so the rendered manifest does not show them.
 */
export function injectedAtAdmission(w: Workload, c: ContainerView): boolean {
  if (c.image !== 'auto') return false;
  const inject = w.annotations['sidecar.istio.io/inject'] ?? w.templateLabels['sidecar.istio.io/inject'];
  return w.annotations['inject.istio.io/templates'] !== undefined || inject === 'true';
}

/** The preStop delay to add, in the form the target version supports. */
export function preStopFix(version: KubeVersion, seconds = 10): string {
  return version.atLeast(1, 30)
    ? `lifecycle: {preStop: {sleep: {seconds: ${seconds}}}}`
    : `lifecycle: {preStop: {exec: {command: ["sleep", "${seconds}"]}}} (needs a sleep binary in the image; the sleep action needs Kubernetes >= 1.30)`;
}
