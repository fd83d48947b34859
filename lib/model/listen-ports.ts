import { isObject, Json, KObject } from './types';
import { ContainerView } from './workload';

/**
 * Whether a container's own configuration names a port number as one it listens on: the evidence
 * resolveTargetPort (graph.ts) uses for a numeric targetPort that no container of a multi-container
 * pod declares. Flink's operator pod: the webhook Service targets 9443, and only the `flink-webhook`
 * container says so, with env `WEBHOOK_SERVER_PORT: '9443'` (FlinkOperatorWebhook binds that
 * variable); its sibling `flink-kubernetes-operator` declares only `health-port`.
 *
 * Read, each compared with the port number N, the args first:
 * - an env var whose value is N, or a listen address `[host]:N` (`LISTEN_ADDR=0.0.0.0:9443`, `ADDR=:9443`;
 *   hostPort says which hosts);
 * - an arg or command element (and each word of one, so `sh -c "exec app --port 9443"` counts)
 *   `--*port*=N`, `--*=[host]:N` (controller-runtime's `--metrics-bind-address=:8080` and
 *   `--health-probe-bind-address=:8081`, which traffic.ts and probe-port read for their own
 *   purposes, are of this form), a bare `[host]:N`, or a `--*port*` flag followed by N (`-port 9443`).
 *
 * Not counted, as they name a port the container connects to rather than one it serves: a loopback
 * host (`127.0.0.1:8080`, `localhost:8080`: a Service cannot reach a listener bound there, and an
 * address there is how a helper reaches the app beside it), another host name (`postgres:5432`, or
 * as a pair of env vars `DB_HOST=postgres`, `DB_PORT=5432`: dialedPort), a URL (`http://app:8080`), and names
 * that say so: `upstream`, `backend`, `target`, `remote`, `client`, `dial`, `connect`, `forward`, `app`
 * (a sidecar's `--app-port 8080`, Dapr's form, names the app's port beside it), or another
 * container's name of the pod (`REDIS_PORT=6379` in the app beside a `redis` container). These err
 * towards no evidence, where the caller guesses and says so.
 *
 * `addressOnly`: only listen addresses count (`[host]:N`), not a bare N, for a mesh proxy, whose env
 * lists the app's ports it forwards to (Linkerd's LINKERD2_PROXY_INBOUND_PORTS=8080, Istio's
 * ISTIO_META_POD_PORTS) beside its own listen addresses (LINKERD2_PROXY_INBOUND_LISTEN_ADDR=0.0.0.0:4143).
 */
export function namedListenPort(c: ContainerView, port: number, others: readonly ContainerView[], addressOnly = false, envFrom: readonly EnvFromVar[] = []): string | undefined {
  const n = String(port);
  const otherNames = others.filter((o) => o !== c).map((o) => o.name.toLowerCase().replace(/[^a-z0-9]+/g, ''));
  const clientName = (name: string) => {
    const flat = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
    return CLIENT_WORDS.test(name) || otherNames.some((o) => o.length > 1 && flat.startsWith(o));
  };
  const words = [c.raw.command, c.raw.args].flatMap((a) => (Array.isArray(a) ? a : [])).flatMap((a) => (typeof a === 'string' ? a.trim().split(/\s+/) : typeof a === 'number' ? [String(a)] : []));
  for (let i = 0; i < words.length; i++) {
    const w = words[i].replace(/^["']|["';]+$/g, '');
    const flag = /^--?([A-Za-z0-9_.-]+)=(.*)$/.exec(w);
    if (flag) {
      if (clientName(flag[1])) continue;
      if ((flag[2] === n && /port/i.test(flag[1]) && !addressOnly) || hostPort(flag[2]) === port) return `arg ${w}`;
      continue;
    }
    if (hostPort(w) === port) return `arg ${w}`;
    const bare = /^--?([A-Za-z0-9_.-]*port[A-Za-z0-9_.-]*)$/i.exec(w);
    if (bare && !addressOnly && !clientName(bare[1]) && words[i + 1]?.replace(/^["']|["';]+$/g, '') === n) return `args ${w} ${n}`;
  }
  // (After the args: an arg says how the program is run, an env var may name another's port: Tyk's
  // operator has TYK_HTTP_INGRESS_PORT=8080 beside its --metrics-bind-address=:8080; review round 15.)
  const env = Array.isArray(c.raw.env) ? c.raw.env : [];
  for (const e of env) {
    const name = (e as { name?: Json })?.name;
    const value = (e as { value?: Json })?.value;
    if (typeof name !== 'string' || (typeof value !== 'string' && typeof value !== 'number')) continue;
    const v = String(value).trim();
    if (v === n && !addressOnly && !clientName(name) && !dialedPort(name, env)) return `env ${name}=${v}`;
    if (hostPort(v) === port && !clientName(name)) return `env ${name}=${v}`;
  }
  // Then the variables of envFrom sources in the input (harbor-core's METRIC_PORT: "8001" in the
  // ConfigMap it loads; review report p32 item 3), read as the inline ones. An inline env entry of the
  // same name wins, as in the container (the kubelet sets env after envFrom).
  if (!envFrom.length) return undefined;
  const inline = new Set(env.map((e) => (e as { name?: Json })?.name).filter((x): x is string => typeof x === 'string'));
  const all: Json[] = [...env, ...envFrom.filter((e) => !inline.has(e.name)).map((e) => ({ name: e.name, value: e.value }))];
  for (const e of envFrom) {
    if (inline.has(e.name)) continue;
    const v = e.value.trim();
    if (v === n && !addressOnly && !clientName(e.name) && !dialedPort(e.name, all)) return `envFrom ${e.from} ${e.name}=${v}`;
    if (hostPort(v) === port && !clientName(e.name)) return `envFrom ${e.from} ${e.name}=${v}`;
  }
  return undefined;
}

/** A variable a container gets from an envFrom source: its name (with the prefix), value, and source (`ConfigMap harbor-core`). */
export interface EnvFromVar {
  name: string;
  value: string;
  from: string;
}

/**
 * The variables a container gets by envFrom from ConfigMaps and Secrets of the input (the pod's
 * namespace), each key with the entry's prefix; a later source wins for a key, as in the container.
 * Sources not in the input give nothing.
 */
export function envFromVars(c: ContainerView, namespace: string | undefined, objectsOf: (kind: string, namespace: string | undefined) => readonly KObject[]): EnvFromVar[] {
  const list = Array.isArray(c.raw.envFrom) ? c.raw.envFrom : [];
  const byName = new Map<string, EnvFromVar>();
  for (const src of list) {
    if (!isObject(src)) continue;
    const prefix = typeof src.prefix === 'string' ? src.prefix : '';
    const cm = isObject(src.configMapRef) ? src.configMapRef : undefined;
    const sec = isObject(src.secretRef) ? src.secretRef : undefined;
    const ref = cm ?? sec;
    if (!ref || typeof ref.name !== 'string') continue;
    const kind = cm ? 'ConfigMap' : 'Secret';
    const o = objectsOf(kind, namespace).find((x) => x.name === ref.name);
    if (!o) continue;
    const vars: [string, string][] = [];
    if (isObject(o.raw.data)) {
      for (const [k, v] of Object.entries(o.raw.data)) {
        if (typeof v !== 'string' && typeof v !== 'number') continue;
        vars.push([k, kind === 'Secret' ? Buffer.from(String(v), 'base64').toString('utf8') : String(v)]);
      }
    }
    if (kind === 'Secret' && isObject(o.raw.stringData)) for (const [k, v] of Object.entries(o.raw.stringData)) if (typeof v === 'string' || typeof v === 'number') vars.push([k, String(v)]);
    for (const [k, v] of vars) byName.set(prefix + k, { name: prefix + k, value: v, from: `${kind} ${o.name}` });
  }
  return [...byName.values()];
}

/**
 * Whether env `name` is the port half of a host/port pair the container dials: `<P>_PORT` (or
 * `<P>PORT`) beside `<P>_HOST`, `_HOSTNAME`, `_ADDR`, `_ADDRESS`, `_SERVER` or `_SERVICE_HOST` (the
 * same separator) whose value names another host (review round 30: Seldon Core v2's agent has
 * SELDON_SCHEDULER_HOST=seldon-scheduler and SELDON_SCHEDULER_PORT=9005, the scheduler it connects
 * to, SeldonIO/seldon-core scheduler/cmd/agent/cli/cli.go: flags scheduler-host and scheduler-port;
 * likewise DB_HOST/DB_PORT, REDIS_HOST/REDIS_PORT). Like `postgres:5432` written as one address.
 * Not when the host is where a server binds: empty, a wildcard (`0.0.0.0`, `::`, `*`), loopback, or a
 * variable or field reference (`$(POD_IP)`, fieldRef status.podIP). A host from a Secret or ConfigMap
 * counts as another host (connection settings are what those usually carry). A bare `PORT` has no
 * pair.
 */
function dialedPort(name: string, env: readonly Json[]): boolean {
  const m = /^(.*[A-Za-z0-9])(_?)PORT$/i.exec(name);
  if (!m) return false;
  const [, prefix, sep] = m;
  const hostNames = HOST_SUFFIXES.map((h) => `${prefix}${sep}${h}`.toUpperCase());
  return env.some((e) => {
    if (!isObject(e) || typeof e.name !== 'string' || !hostNames.includes(e.name.toUpperCase())) return false;
    if (typeof e.value === 'string') return !LOCAL_HOST.test(e.value.trim());
    const from = e.valueFrom;
    return isObject(from) && (from.secretKeyRef !== undefined || from.configMapKeyRef !== undefined);
  });
}

/** The host halves of a host/port pair (dialedPort). */
const HOST_SUFFIXES = ['HOST', 'HOSTNAME', 'ADDR', 'ADDRESS', 'SERVER', 'SERVICE_HOST'];

/** A host a server binds to (dialedPort): empty, a wildcard, loopback, or a reference resolved in the pod (`$(POD_IP)`). */
const LOCAL_HOST = /^(|0\.0\.0\.0|::|\[::\]|\*|localhost|127(?:\.[0-9]{1,3}){3}|::1|\[::1\]|\$\([A-Za-z0-9_]+\)|\$\{[A-Za-z0-9_]+\})$/i;

/** Names of a port the container connects to, not one it serves (as a part of the name). */
const CLIENT_WORDS = /(^|[-_.])(upstream|backend|target|remote|client|dial|connect|forward|app|application|ingress|egress)($|[-_.])/i;

/**
 * The port of a listen address `[host]:N`, the host empty, `*`, an IPv4 address, a bracketed IPv6
 * one or a variable (`$(POD_IP)`, `${POD_IP}`); undefined for a loopback host, a host name (more
 * often the address of a server the container calls: `postgres:5432`) or anything else.
 */
function hostPort(v: string): number | undefined {
  const m = /^(|\*|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|\[[0-9A-Fa-f:.]*\]|\$\([A-Za-z0-9_]+\)|\$\{[A-Za-z0-9_]+\}):([0-9]{1,5})$/.exec(v);
  if (!m || /^(127\.|\[::1\]$)/.test(m[1])) return undefined;
  return Number(m[2]);
}
