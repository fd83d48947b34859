/** Helpers shared by the SIDE-*, MESH-* and SPREAD-* rules. */
import { HINT, ObjectGraph } from '../model/graph';
import { escapeSegment } from '../model/parse';
import { matches, parseLabelSelector, stringMap } from '../model/selector';
import { isObject, Json, JsonObject, KObject } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { containerDrainSeconds } from '../timeline/budget';
import { MESH_PROXY_NAMES, MeshProblem } from '../timeline/mesh';
import { PreStopDelay, podPreStopDelay } from '../timeline/prestop';
import { existingPointer } from './rollout-util';

/** Path of the pod template's metadata (the object's own metadata for a bare Pod). */
function templateMetaPath(w: Workload): string[] {
  if (!w.templatePointer) return ['metadata'];
  return [...w.templatePointer.slice(1).split('/'), 'metadata'];
}

/**
 * Where an annotation is written: the pod template's (which the workload view prefers), else the
 * workload's own metadata; when it is in neither, the deepest existing template metadata field.
 */
export function annotationPointer(w: Workload, key: string): string {
  const tpl = templateMetaPath(w);
  const tplAnn = get(w.obj.raw, ...tpl, 'annotations');
  if (isObject(tplAnn) && Object.prototype.hasOwnProperty.call(tplAnn, key)) return `/${tpl.join('/')}/annotations/${escapeSegment(key)}`;
  const own = get(w.obj.raw, 'metadata', 'annotations');
  if (isObject(own) && Object.prototype.hasOwnProperty.call(own, key)) return `/metadata/annotations/${escapeSegment(key)}`;
  return annotationsPointer(w);
}

/**
 * Every pointer where the annotation is written (pod template first, then workload metadata), or,
 * when it is in neither, the pod template's pointer for it: where a fix sets it. The pod template
 * is where injectors read it; the workload view overlays it on the workload's own metadata.
 */
export function annotationSetPointers(w: Workload, key: string): string[] {
  const tpl = templateMetaPath(w);
  const tplPointer = `/${tpl.join('/')}/annotations/${escapeSegment(key)}`;
  const out: string[] = [];
  const tplAnn = get(w.obj.raw, ...tpl, 'annotations');
  if (isObject(tplAnn) && Object.prototype.hasOwnProperty.call(tplAnn, key)) out.push(tplPointer);
  const own = get(w.obj.raw, 'metadata', 'annotations');
  if (w.templatePointer && isObject(own) && Object.prototype.hasOwnProperty.call(own, key)) out.push(`/metadata/annotations/${escapeSegment(key)}`);
  return out.length ? out : [tplPointer];
}

/** The index of the env entry `name` of a container, if it has one. */
export function envIndex(c: ContainerView, name: string): number | undefined {
  const env = c.raw.env;
  if (!Array.isArray(env)) return undefined;
  const i = env.findIndex((e) => isObject(e) && e.name === name);
  return i < 0 ? undefined : i;
}

/** The pod template's annotations map (or the deepest existing field on the way), where a new annotation goes. */
export function annotationsPointer(w: Workload): string {
  return existingPointer(w.obj.raw, ...templateMetaPath(w), 'annotations') || w.podSpecPointer;
}

/** The Namespace object of a workload, when it is in the linted set. */
export function namespaceOf(graph: ObjectGraph, w: Workload): KObject | undefined {
  return graph.namespace(w.obj.namespace ?? 'default');
}

/** Pointer and object for a mesh problem: the workload's annotation, or the Namespace's. */
export function problemTarget(graph: ObjectGraph, w: Workload, p: MeshProblem, proxy?: ContainerView): { object: KObject; pointer: string } {
  if (p.origin === 'namespace') {
    const ns = namespaceOf(graph, w);
    if (ns) return { object: ns, pointer: `/metadata/annotations/${escapeSegment(p.key)}` };
  }
  if (p.origin === 'container' && proxy) return { object: w.obj, pointer: `${proxy.pointer}/env` };
  return { object: w.obj, pointer: annotationPointer(w, p.key) };
}

/** One application container's shutdown need: preStop delay + drain (both known). */
export interface AppShutdown {
  container: ContainerView;
  preStop: PreStopDelay;
  /** Seconds of the preStop delay (0 without a hook). */
  preStopSeconds: number;
  drain: number;
  total: number;
}

/**
 * The main containers that are the application (mesh proxies excluded), with a known preStop delay.
 * Like TERM-001, a container without a hook is judged only when `kubegrace.dev/drain-seconds`
 * declares the drain time: the default 10 s is an assumption. httpGet and unknown exec hooks are skipped
 * (an httpGet that waits for another container's known hook counts with that hook's delay).
 */
export function appShutdowns(w: Workload, opts: { requireDeclaredDrainWithoutHook?: boolean } = {}): AppShutdown[] {
  const declared = w.annotations[HINT.drainSeconds] !== undefined;
  const out: AppShutdown[] = [];
  for (const c of w.containers) {
    if (MESH_PROXY_NAMES.includes(c.name)) continue;
    const preStop = podPreStopDelay(c, w.annotations, undefined, w.containers);
    if (preStop.kind === 'none' && opts.requireDeclaredDrainWithoutHook !== false && !declared) continue;
    const s = preStop.kind === 'none' ? 0 : preStop.seconds;
    if (s === undefined) continue;
    const drain = containerDrainSeconds(w, c);
    out.push({ container: c, preStop, preStopSeconds: s, drain, total: s + drain });
  }
  return out;
}

/** The app container whose shutdown takes longest (first in declaration order on ties). */
export function longestShutdown(apps: AppShutdown[]): AppShutdown | undefined {
  return apps.reduce<AppShutdown | undefined>((best, a) => (!best || a.total > best.total ? a : best), undefined);
}

/** The app container with the longest known preStop delay. */
export function longestPreStop(apps: AppShutdown[]): AppShutdown | undefined {
  return apps.filter((a) => a.preStop.kind !== 'none').reduce<AppShutdown | undefined>((best, a) => (!best || a.preStopSeconds > best.preStopSeconds ? a : best), undefined);
}

/** `"5"` or `"5.5"`, seconds for messages. */
export function secs(n: number): string {
  return Number.isInteger(n) ? `${n}s` : `${Math.round(n * 10) / 10}s`;
}

/** `kubegrace.dev/connection-pattern` is long-lived or fan-in. */
export function longLived(w: Workload): boolean {
  const v = (w.annotations[HINT.connectionPattern] ?? '').trim().toLowerCase();
  return v === 'long-lived' || v === 'fan-in';
}

// ---------------------------------------------------------------------------------------------
// Spreading (SPREAD-*)

export const HOSTNAME_KEY = 'kubernetes.io/hostname';
export const ZONE_KEYS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];
export const POD_TEMPLATE_HASH = 'pod-template-hash';

function stringList(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** One entry of `PT.topologySpreadConstraints`. */
export interface SpreadConstraint {
  index: number;
  raw: JsonObject;
  pointer: string;
  topologyKey?: string;
  /** As written, or `DoNotSchedule` (the API default) when absent. */
  whenUnsatisfiable: string;
  whenUnsatisfiableSet: boolean;
  maxSkew?: number;
  minDomains?: number;
  matchLabelKeys: string[];
  /** Its labelSelector matches the workload's own pod-template labels (so it counts its own pods). */
  selectsOwn: boolean;
}

export function spreadConstraints(w: Workload): SpreadConstraint[] {
  const list = w.podSpec.topologySpreadConstraints;
  if (!Array.isArray(list)) return [];
  const out: SpreadConstraint[] = [];
  list.forEach((c, index) => {
    if (!isObject(c)) return;
    out.push({
      index,
      raw: c,
      pointer: `${w.podSpecPointer}/topologySpreadConstraints/${index}`,
      topologyKey: typeof c.topologyKey === 'string' ? c.topologyKey : undefined,
      whenUnsatisfiable: typeof c.whenUnsatisfiable === 'string' ? c.whenUnsatisfiable : 'DoNotSchedule',
      whenUnsatisfiableSet: typeof c.whenUnsatisfiable === 'string',
      maxSkew: typeof c.maxSkew === 'number' ? c.maxSkew : undefined,
      minDomains: typeof c.minDomains === 'number' ? c.minDomains : undefined,
      matchLabelKeys: stringList(c.matchLabelKeys),
      selectsOwn: matches(parseLabelSelector(c.labelSelector), w.templateLabels),
    });
  });
  return out;
}

/** One pod anti-affinity term, required or preferred. */
export interface AntiAffinityTerm {
  required: boolean;
  index: number;
  /** Pointer of the PodAffinityTerm itself. */
  pointer: string;
  /** The PodAffinityTerm as written. */
  raw: JsonObject;
  topologyKey?: string;
  matchLabelKeys: string[];
  selectsOwn: boolean;
}

export function antiAffinityTerms(w: Workload): AntiAffinityTerm[] {
  const base = `${w.podSpecPointer}/affinity/podAntiAffinity`;
  const anti = get(w.podSpec, 'affinity', 'podAntiAffinity');
  const out: AntiAffinityTerm[] = [];
  const add = (t: Json | undefined, required: boolean, index: number, pointer: string) => {
    if (!isObject(t)) return;
    out.push({
      required,
      index,
      pointer,
      raw: t,
      topologyKey: typeof t.topologyKey === 'string' ? t.topologyKey : undefined,
      matchLabelKeys: stringList(t.matchLabelKeys),
      selectsOwn: matches(parseLabelSelector(t.labelSelector), w.templateLabels),
    });
  };
  const req = get(anti, 'requiredDuringSchedulingIgnoredDuringExecution');
  if (Array.isArray(req)) req.forEach((t, i) => add(t, true, i, `${base}/requiredDuringSchedulingIgnoredDuringExecution/${i}`));
  const pref = get(anti, 'preferredDuringSchedulingIgnoredDuringExecution');
  if (Array.isArray(pref)) pref.forEach((t, i) => add(get(t, 'podAffinityTerm'), false, i, `${base}/preferredDuringSchedulingIgnoredDuringExecution/${i}/podAffinityTerm`));
  return out;
}

/** `{app: web}`: the workload's selector matchLabels (else its template labels), for fix messages. */
export function ownLabels(w: Workload): string {
  const ml = get(w.obj.raw, 'spec', 'selector', 'matchLabels');
  const labels = isObject(ml) ? stringMap(ml) : w.templateLabels;
  const entries = Object.entries(labels);
  return entries.length ? `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}` : '{}';
}

/** A port a pod binds on its node: one old and one new pod of the same template cannot share a node. */
export interface HostPortBinding {
  container: string;
  /** The port on the node. */
  port: number;
  /** Pointer of the `hostPort` field, or of the port entry when host networking makes it a host port. */
  pointer: string;
  /** A declared port of a `hostNetwork: true` pod without a hostPort of its own. */
  viaHostNetwork: boolean;
}

/**
 * The host ports of the main containers and native sidecars: a `hostPort` > 0, or, with
 * `hostNetwork: true`, every declared containerPort (the API defaults hostPort to containerPort in
 * such a Pod: pkg/apis/core/v1/defaults.go defaultHostNetworkPorts). kube-scheduler's NodePorts
 * filter rejects a node where one is taken (restartable init containers' ports count from 1.34,
 * kubernetes/kubernetes#132040; before, two sidecars of host-network pods fail to bind instead).
 */
export function hostPortBindings(w: Workload): HostPortBinding[] {
  const hostNet = w.podSpec.hostNetwork === true;
  const out: HostPortBinding[] = [];
  for (const c of [...w.containers, ...w.sidecars]) {
    const ports = c.raw.ports;
    if (!Array.isArray(ports)) continue;
    ports.forEach((p, i) => {
      if (!isObject(p)) return;
      if (typeof p.hostPort === 'number' && p.hostPort > 0) out.push({ container: c.name, port: p.hostPort, pointer: `${c.pointer}/ports/${i}/hostPort`, viaHostNetwork: false });
      else if (hostNet && typeof p.containerPort === 'number') out.push({ container: c.name, port: p.containerPort, pointer: `${c.pointer}/ports/${i}`, viaHostNetwork: true });
    });
  }
  return out;
}

/** `container "envoy" hostPort 80, 443` / `container "op" ports 9234, 9963 (hostNetwork: true)`, for messages. */
export function hostPortsPhrase(bindings: HostPortBinding[]): string {
  const by = new Map<string, { ports: number[]; hostNet: boolean }>();
  for (const b of bindings) {
    const e = by.get(b.container) ?? { ports: [], hostNet: false };
    if (!e.ports.includes(b.port)) e.ports.push(b.port);
    e.hostNet ||= b.viaHostNetwork;
    by.set(b.container, e);
  }
  return [...by.entries()].map(([c, e]) => `container "${c}" ${e.hostNet ? 'port' : 'hostPort'}${e.ports.length === 1 ? '' : 's'} ${e.ports.join(', ')}${e.hostNet ? ' (hostNetwork: true makes every declared port a host port)' : ''}`).join('; ');
}

/**
 * Node labels Kubernetes sets or defines (the "Well-Known Labels, Annotations and Taints" reference,
 * and the labels a kubelet may set on its own Node: k8s.io/kubelet pkg/apis/well_known_labels.go).
 */
export const WELL_KNOWN_NODE_LABELS: ReadonlySet<string> = new Set([
  HOSTNAME_KEY,
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'node.kubernetes.io/windows-build',
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);

/**
 * Namespaces under kubernetes.io where node labels are named by admins or by Kubernetes projects,
 * not from a fixed list: a kubelet may set any `[*.]node.kubernetes.io/` or `[*.]kubelet.kubernetes.io/`
 * label on its Node (NodeRestriction), `node-restriction.kubernetes.io/` is the prefix the NodeRestriction
 * documentation gives admins, `node-role.kubernetes.io/` carries roles (kubeadm, OpenShift), and
 * `feature.node.kubernetes.io/` is node-feature-discovery's.
 */
export const OPEN_LABEL_NAMESPACES: { readonly withSubdomains: readonly string[]; readonly exact: readonly string[] } = {
  withSubdomains: ['node.kubernetes.io', 'kubelet.kubernetes.io'],
  exact: ['node-restriction.kubernetes.io', 'node-role.kubernetes.io'],
};

function openNamespace(domain: string): boolean {
  return OPEN_LABEL_NAMESPACES.withSubdomains.some((d) => domain === d || domain.endsWith(`.${d}`)) || OPEN_LABEL_NAMESPACES.exact.includes(domain);
}

/** The well-known label a reserved key most likely meant, by its name part (`kubernetes.io/zone` -> zone). */
const MEANT: Record<string, string> = {
  zone: 'topology.kubernetes.io/zone',
  region: 'topology.kubernetes.io/region',
  hostname: HOSTNAME_KEY,
  host: HOSTNAME_KEY,
  node: HOSTNAME_KEY,
  os: 'kubernetes.io/os',
  arch: 'kubernetes.io/arch',
  'instance-type': 'node.kubernetes.io/instance-type',
};

/**
 * A topology key under the prefixes Kubernetes reserves (`kubernetes.io/`, `k8s.io/`, and subdomains of
 * `kubernetes.io`) that is not a well-known node label, so no node carries it unless an admin labelled
 * nodes with it; with the label it most likely meant. Undefined for well-known labels, the open
 * namespaces above, subdomains of k8s.io (Kubernetes projects such as kops.k8s.io name their own
 * node labels) and every key outside the reserved prefixes (an admin's own, e.g. example.com/rack).
 */
export function unknownReservedKey(key: string): { meant?: string } | undefined {
  const slash = key.indexOf('/');
  if (slash <= 0 || WELL_KNOWN_NODE_LABELS.has(key)) return undefined;
  const domain = key.slice(0, slash);
  const reserved = domain === 'kubernetes.io' || domain === 'k8s.io' || domain.endsWith('.kubernetes.io');
  if (!reserved || openNamespace(domain)) return undefined;
  const meant = MEANT[key.slice(slash + 1).toLowerCase()];
  return { meant: meant && meant !== key ? meant : undefined };
}
