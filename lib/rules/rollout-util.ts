import { KubeVersion } from '../engine/version';
/** Helpers shared by the selector, ROLL-* and PDB-* rules. */
import { imageRepository } from '../catalog';
import { closest as closestName } from '../engine/suggest';
import { ClaimMount, HpaView, ObjectGraph, PdbView, scaleTargetKindIs } from '../model/graph';
import { IntOrPercent, scaled } from '../model/intstr';
import { escapeSegment } from '../model/parse';
import { Labels, matches, Selector, stringMap } from '../model/selector';
import { isObject, Json, KObject } from '../model/types';
import { DEFAULTS, DeploymentRollout, get, helmRendered, num, resolveDeploymentRollout, Workload } from '../model/workload';
import { isHelmTestHook } from './lb-util';
import { nameOf } from './util';

/**
 * The pointer of the deepest existing field along `path` (segments unescaped), so a finding
 * points at the most specific field that is really written.
 */
export function existingPointer(raw: Json | undefined, ...path: (string | number)[]): string {
  let cur: Json | undefined = raw;
  let out = '';
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === 'number' && seg >= 0 && seg < cur.length) cur = cur[seg];
    else if (isObject(cur) && typeof seg === 'string' && Object.prototype.hasOwnProperty.call(cur, seg)) cur = cur[seg];
    else break;
    out += `/${escapeSegment(String(seg))}`;
  }
  return out;
}

/** `1`, `"25%"` or the raw value, for messages. */
export function fmtIntOrPercent(v: IntOrPercent | undefined): string {
  if (!v) return 'unset';
  if (v.kind === 'int') return String(v.value);
  if (v.kind === 'percent') return `"${v.value}%"`;
  return JSON.stringify(v.raw);
}

/** The replicas a rule reasons with, and where they come from. */
export interface ReplicaBasis {
  replicas: number;
  hpa?: HpaView;
  /** "replicas 3", "the default replicas 1", "HPA minReplicas 2 (HorizontalPodAutoscaler/web)". */
  phrase: string;
  /**
   * Where the number comes from, without repeating it (for a line that prints the number itself):
   * "spec.replicas", "default", "the minimum of HorizontalPodAutoscaler/web".
   */
  source: string;
}

export function replicaBasis(graph: ObjectGraph, w: Workload): ReplicaBasis | undefined {
  const r = graph.effectiveReplicas(w);
  if (r === undefined) return undefined;
  const hpa = graph.hpaFor(w);
  if (hpa) {
    const min = hpa.minReplicasSet ? `minReplicas ${hpa.minReplicas}` : `minReplicas ${hpa.minReplicas} (default)`;
    const source = `the minimum of HorizontalPodAutoscaler/${hpa.obj.name}${hpa.minReplicasSet ? '' : ': minReplicas defaults to 1'}`;
    return { replicas: r, hpa, phrase: `HPA ${min} (HorizontalPodAutoscaler/${hpa.obj.name})`, source };
  }
  return { replicas: r, phrase: w.replicasSet ? `replicas ${r}` : `replicas ${r} (default)`, source: w.replicasSet ? 'spec.replicas' : 'default' };
}

/** w.deployment resolved for `replicas` (section 4), re-resolved when they differ from spec.replicas. */
export function rolloutFor(w: Workload, replicas: number): DeploymentRollout | undefined {
  if (!w.deployment) return undefined;
  if (replicas === w.replicas) return w.deployment;
  return resolveDeploymentRollout(w.obj.raw, replicas);
}

/**
 * How exclusive a claim is, from the PVC's accessModes:
 * - `pod`: ReadWriteOncePod;
 * - `node`: ReadWriteOnce without a multi-node mode (the attach/detach controller allows
 *   multi-attach when the volume also lists ReadWriteMany or ReadOnlyMany);
 * - `shared`: ReadWriteMany / ReadOnlyMany;
 * - `unknown`: the PVC is not in the linted set, or lists no access modes.
 */
export type Exclusivity = 'pod' | 'node' | 'shared' | 'unknown';

export function claimExclusivity(c: ClaimMount): Exclusivity {
  if (!c.pvc || c.accessModes.length === 0) return 'unknown';
  if (c.accessModes.includes('ReadWriteOncePod')) return 'pod';
  if (c.accessModes.includes('ReadWriteMany') || c.accessModes.includes('ReadOnlyMany')) return 'shared';
  if (c.accessModes.includes('ReadWriteOnce')) return 'node';
  return 'unknown';
}

export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/**
 * Whether the pod template is pinned to one node: `nodeName`, a `kubernetes.io/hostname`
 * nodeSelector, or required node affinity whose every term pins the hostname (or the node's
 * metadata.name) to a single value.
 */
export function nodePinning(w: Workload): string | undefined {
  const ps = w.podSpec;
  if (typeof ps.nodeName === 'string' && ps.nodeName) return `nodeName ${ps.nodeName}`;
  if (isObject(ps.nodeSelector) && typeof ps.nodeSelector[HOSTNAME_LABEL] === 'string') return `nodeSelector ${HOSTNAME_LABEL}=${ps.nodeSelector[HOSTNAME_LABEL]}`;
  const req = isObject(ps.affinity) && isObject(ps.affinity.nodeAffinity) ? ps.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  const terms = isObject(req) ? req.nodeSelectorTerms : undefined;
  if (!Array.isArray(terms) || terms.length === 0) return undefined;
  const pinsOne = (reqs: Json | undefined, key: string): boolean =>
    Array.isArray(reqs) && reqs.some((r) => isObject(r) && r.key === key && r.operator === 'In' && Array.isArray(r.values) && r.values.length === 1);
  const allPinned = terms.every((t) => isObject(t) && (pinsOne(t.matchExpressions, HOSTNAME_LABEL) || pinsOne(t.matchFields, 'metadata.name')));
  return allPinned ? `required node affinity on ${HOSTNAME_LABEL}` : undefined;
}

/** `{app: web, tier: front}` from the workload's selector matchLabels, else its template labels. */
export function labelsForPdb(w: Workload): string {
  const ml = isObject(w.obj.raw.spec) && isObject(w.obj.raw.spec.selector) && isObject(w.obj.raw.spec.selector.matchLabels) ? w.obj.raw.spec.selector.matchLabels : undefined;
  const labels: Record<string, string> = {};
  if (ml) for (const [k, v] of Object.entries(ml)) labels[k] = String(v);
  else Object.assign(labels, w.templateLabels);
  const entries = Object.entries(labels);
  return entries.length ? `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}` : '{}';
}

/** Which workloads a PDB reasons over, and their total pods (section 6, PDB-005). */
export interface PdbPods {
  /** Scalable workloads and bare Pods the PDB matches. */
  counted: Workload[];
  /** Total of effective replicas (HPA minReplicas where an HPA targets the workload); bare Pods count 1. */
  replicas: number;
  /** Matched workloads whose pod count cannot be known from the manifests (DaemonSets, Jobs). */
  uncounted: Workload[];
  /** "Deployment/web replicas 1", "Deployment/api HPA minReplicas 1 (...)"; one per counted workload. */
  parts: string[];
  fromHpa: boolean;
  /** Helm test hooks the PDB matches, not counted: their pods exist only while `helm test` runs. */
  testHooks: Workload[];
}

export function pdbPods(graph: ObjectGraph, matched: Workload[]): PdbPods {
  const out: PdbPods = { counted: [], replicas: 0, uncounted: [], parts: [], fromHpa: false, testHooks: [] };
  for (const w of matched) {
    // (A chart's test Pod often carries the selector labels: LiveKit's test-connection; review round 24.)
    if (isHelmTestHook(w.obj)) {
      out.testHooks.push(w);
      continue;
    }
    if (w.kind === 'Pod') {
      out.counted.push(w);
      out.replicas += 1;
      out.parts.push(`${nameOf(w)} (1 pod)`);
      continue;
    }
    const b = replicaBasis(graph, w);
    if (!b) {
      out.uncounted.push(w);
      continue;
    }
    out.counted.push(w);
    out.replicas += b.replicas;
    out.parts.push(`${nameOf(w)} ${b.phrase}`);
    if (b.hpa) out.fromHpa = true;
  }
  return out;
}

/**
 * A budget that protects nothing: `both` minAvailable and maxUnavailable (mutually exclusive: the
 * API rejects the PDB, so it never exists), or `all`: minAvailable 0 or "0%", or maxUnavailable
 * "100%", which allow every eviction as written (argo-events renders minAvailable: 0 from a
 * maxUnavailable: 0 that Go templates read as false). Undefined for a working budget, and for one
 * that sets neither field, which protects too much (budgetless: it allows no eviction at all).
 */
export function budgetProblem(p: PdbView, version?: KubeVersion): 'removed' | 'both' | 'all' | undefined {
  // policy/v1beta1 is not served from 1.25 (deprecated-api-migration-guide): applying it fails, so the
  // budget never exists (cp-helm-charts' ZooKeeper budget; review round 18).
  // (Not in a Helm render: charts pick the version from the cluster's API versions, which helm template
  // does not know, so a chart that installs policy/v1 renders v1beta1 there: traefik's, teleport's.)
  if (version && version.atLeast(1, 25) && p.obj.apiVersion === 'policy/v1beta1' && !helmRendered(p.obj)) return 'removed';
  if (p.minAvailable !== undefined && p.maxUnavailable !== undefined) return 'both';
  if (p.minAvailable && p.minAvailable.kind !== 'invalid' && p.minAvailable.value === 0) return 'all';
  if (p.maxUnavailable && p.maxUnavailable.kind === 'percent' && p.maxUnavailable.value >= 100) return 'all';
  return undefined;
}

/**
 * A budget that sets neither minAvailable nor maxUnavailable (a chart value left empty: the API
 * accepts it). The disruption controller then counts no expected pods (getExpectedPodCount sets
 * expectedCount and desiredHealthy only in its maxUnavailable and minAvailable branches) and
 * updatePdbStatus allows no disruption while expectedCount <= 0: every eviction of its pods is
 * refused (kubernetes/kubernetes pkg/controller/disruption/disruption.go).
 */
export function budgetless(p: PdbView): boolean {
  return p.minAvailable === undefined && p.maxUnavailable === undefined;
}

/** Voluntary disruptions the PDB allows with all its pods healthy (PDB-002 arithmetic); undefined when unknown. */
export function pdbAllowance(graph: ObjectGraph, p: PdbView): { allowed: number; of: number } | undefined {
  // (A budget the API rejects never exists: nothing to allow.)
  if (budgetProblem(p) === 'both') return undefined;
  const pods = pdbPods(graph, graph.workloadsForPdb(p));
  if (pods.uncounted.length || pods.replicas <= 0) return undefined;
  const r = pods.replicas;
  if (budgetless(p)) return { allowed: 0, of: r };
  if (p.maxUnavailable && p.maxUnavailable.kind !== 'invalid') return { allowed: Math.min(r, scaled(p.maxUnavailable, r, true)!), of: r };
  if (p.minAvailable && p.minAvailable.kind !== 'invalid') return { allowed: Math.max(0, r - scaled(p.minAvailable, r, true)!), of: r };
  return undefined;
}

/** " in namespace monitoring" when the manifest names it, else " in its namespace" (applied with -n). */
export function nsPhrase(o: KObject): string {
  const ns = get(o.raw, 'metadata', 'namespace');
  return typeof ns === 'string' && ns ? ` in namespace ${ns}` : ' in its namespace';
}

/** A custom resource: an API group with a dot that is not a Kubernetes built-in (*.k8s.io). */
export function isCustomResource(o: KObject): boolean {
  const slash = o.apiVersion.indexOf('/');
  if (slash < 0) return false;
  const group = o.apiVersion.slice(0, slash);
  return group.includes('.') && !group.endsWith('.k8s.io');
}

/** Every string map stored under a `labels` key in the value (bounded depth). */
function labelMaps(v: Json | undefined, depth: number, out: Labels[]): void {
  if (depth <= 0) return;
  if (Array.isArray(v)) {
    for (const x of v) labelMaps(x, depth - 1, out);
    return;
  }
  if (!isObject(v)) return;
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (k === 'labels' && isObject(x)) out.push(stringMap(x));
    else labelMaps(x, depth - 1, out);
  }
}

/**
 * Custom resources per namespace, built once per graph; their label maps are read the first time
 * their namespace is asked about (most namespaces never are).
 */
const operatorIndex = new WeakMap<ObjectGraph, Map<string | undefined, { list: Array<{ obj: KObject; maps: Labels[]; groups?: OperatorPodGroup[] }>; read: boolean }>>();

/** How many shards (one StatefulSet each) are modelled at most: a bound for hostile input. */
export const MAX_MODELLED_SHARDS = 256;

/** The pods of one StatefulSet (or DaemonSet) prometheus-operator makes from a resource. */
export interface OperatorPodGroup {
  /** The StatefulSet's name: prometheus-NAME, prometheus-NAME-shard-1, alertmanager-NAME, ... */
  name: string;
  /** The shard index (Prometheus and PrometheusAgent in StatefulSet mode). */
  shard?: number;
  /** The labels of its pods that the linter can know: spec.podMetadata.labels, overridden by the operator's selector labels. */
  labels: Labels;
  /**
   * Labels each pod gets whose value the manifests do not fix, with the values they can take:
   * app.kubernetes.io/version (the operator's idea of the version, unless spec.podMetadata sets it
   * where that wins), and what the StatefulSet controller adds (statefulset.kubernetes.io/pod-name
   * NAME-ordinal, apps.kubernetes.io/pod-index, controller-revision-hash).
   */
  added: Record<string, (v: string) => boolean>;
}

const ANY_VALUE = () => true;

/** The labels a StatefulSet's controller adds to each of its pods (lb-util's controllerAdded, for a StatefulSet by name). */
function statefulSetAdded(name: string): Record<string, (v: string) => boolean> {
  const re = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+$`);
  return { 'statefulset.kubernetes.io/pod-name': (v) => re.test(v), 'apps.kubernetes.io/pod-index': (v) => /^\d+$/.test(v), 'controller-revision-hash': ANY_VALUE };
}

/**
 * Whether a selector matches the pods of one StatefulSet of a prometheus-operator resource, counting
 * the labels whose values are not in the manifests (OperatorPodGroup.added) as selectsPodsOf does.
 */
export function selectsOperatorPods(sel: Selector, g: OperatorPodGroup): boolean {
  if (matches(sel, g.labels)) return true;
  if (sel.kind !== 'selector') return false;
  let used = false;
  const rest = sel.requirements.filter((r) => {
    const check = g.added[r.key];
    if (!check || r.operator !== 'In' || r.values.length !== 1 || !check(r.values[0])) return true;
    used = true;
    return false;
  });
  return used && matches(rest.length ? { kind: 'selector', requirements: rest } : { kind: 'empty' }, g.labels);
}

/** A prometheus-operator resource and the pods the operator makes from it. */
export interface OperatorWorkload {
  obj: KObject;
  kind: 'Prometheus' | 'PrometheusAgent' | 'Alertmanager' | 'ThanosRuler';
  /** Replicas of each StatefulSet; undefined for a PrometheusAgent in DaemonSet mode (a pod per node). */
  replicas?: number;
  replicasSet: boolean;
  /** Number of shards (StatefulSets); 1 for the kinds without shards. */
  shards: number;
  /** One group per StatefulSet (at most MAX_MODELLED_SHARDS). */
  groups: OperatorPodGroup[];
  /** The labels that select every pod of the resource (for a proposed budget): app.kubernetes.io/name and the name label. */
  selectLabels: Labels;
}

/**
 * The pods prometheus-operator makes from one of its resources, with the labels it puts on them
 * (v0.90 source): the selector labels of makeSelectorLabels, which override `spec.podMetadata.labels`:
 * - Prometheus (pkg/prometheus/server/operator.go): app.kubernetes.io/name: prometheus,
 *   app.kubernetes.io/managed-by: prometheus-operator, app.kubernetes.io/instance: NAME,
 *   operator.prometheus.io/name: NAME, prometheus: NAME; statefulset.go adds operator.prometheus.io/shard:
 *   the shard index, one StatefulSet per shard (prometheus-NAME, prometheus-NAME-shard-N; spec.shards,
 *   at least 1, pkg/prometheus/common.go shardsNumber), spec.replicas pods each (default 1; below 0 is 1);
 * - PrometheusAgent (pkg/prometheus/agent): the same without `prometheus: NAME`, app.kubernetes.io/name:
 *   prometheus-agent, StatefulSets prom-agent-NAME...; in DaemonSet mode (spec.mode) no shard label;
 * - Alertmanager (pkg/alertmanager/operator.go): app.kubernetes.io/name: alertmanager, managed-by,
 *   instance: NAME, alertmanager: NAME; StatefulSet alertmanager-NAME, spec.replicas (default 1, below 0 is 0);
 * - ThanosRuler (pkg/thanos/operator.go): app.kubernetes.io/name: thanos-ruler, managed-by, instance: NAME,
 *   thanos-ruler: NAME; StatefulSet thanos-ruler-NAME, spec.replicas (default 1).
 * app.kubernetes.io/version (the operator's idea of the version, unless podMetadata sets it) and the
 * StatefulSet controller's labels take values the manifests do not fix (OperatorPodGroup.added). Not
 * modelled: the operator-wide --labels. The resource's own metadata.labels go on the StatefulSet, not on
 * its pods. Undefined for anything else.
 */
export function operatorWorkload(o: KObject): OperatorWorkload | undefined {
  if (!o.name) return undefined;
  const slash = o.apiVersion.indexOf('/');
  if (slash < 0 || o.apiVersion.slice(0, slash) !== 'monitoring.coreos.com') return undefined;
  const kind = o.kind;
  if (kind !== 'Prometheus' && kind !== 'PrometheusAgent' && kind !== 'Alertmanager' && kind !== 'ThanosRuler') return undefined;
  const name = o.name;
  const spec = isObject(o.raw.spec) ? o.raw.spec : {};
  const podLabels = stringMap(get(spec, 'podMetadata', 'labels'));
  const managed = { 'app.kubernetes.io/managed-by': 'prometheus-operator', 'app.kubernetes.io/instance': name };
  const set = num(spec.replicas);
  const replicasSet = set !== undefined;
  // (ThanosRuler sets the version after spec.podMetadata; the others before, so podMetadata's wins.)
  const VERSION = 'app.kubernetes.io/version';
  if (kind === 'ThanosRuler') delete podLabels[VERSION];
  const version: Record<string, (v: string) => boolean> = podLabels[VERSION] === undefined ? { [VERSION]: ANY_VALUE } : {};
  if (kind === 'Alertmanager' || kind === 'ThanosRuler') {
    const app = kind === 'Alertmanager' ? 'alertmanager' : 'thanos-ruler';
    const replicas = set === undefined ? 1 : kind === 'Alertmanager' && set < 0 ? 0 : set;
    const selectLabels = { 'app.kubernetes.io/name': app, [app]: name };
    const sts = `${app}-${name}`;
    return { obj: o, kind, replicas, replicasSet, shards: 1, groups: [{ name: sts, labels: { ...podLabels, ...managed, ...selectLabels }, added: { ...version, ...statefulSetAdded(sts) } }], selectLabels };
  }
  const app = kind === 'Prometheus' ? 'prometheus' : 'prometheus-agent';
  const selectLabels = { 'app.kubernetes.io/name': app, 'operator.prometheus.io/name': name };
  const base: Labels = { ...podLabels, ...managed, ...selectLabels };
  if (kind === 'Prometheus') base.prometheus = name;
  const prefix = `${kind === 'Prometheus' ? 'prometheus' : 'prom-agent'}-${name}`;
  if (kind === 'PrometheusAgent' && spec.mode === 'DaemonSet') return { obj: o, kind, replicasSet: false, shards: 1, groups: [{ name: prefix, labels: base, added: { ...version, 'controller-revision-hash': ANY_VALUE } }], selectLabels };
  const sh = num(spec.shards);
  const shards = sh === undefined || sh <= 1 ? 1 : Math.floor(sh);
  const groups: OperatorPodGroup[] = [];
  for (let i = 0; i < Math.min(shards, MAX_MODELLED_SHARDS); i++) {
    const sts = i === 0 ? prefix : `${prefix}-shard-${i}`;
    groups.push({ name: sts, shard: i, labels: { ...base, 'operator.prometheus.io/shard': String(i) }, added: { ...version, ...statefulSetAdded(sts) } });
  }
  return { obj: o, kind, replicas: set === undefined || set < 0 ? 1 : set, replicasSet, shards, groups, selectLabels };
}

/** The prometheus-operator resources of the graph (operatorWorkload), read once per graph. */
export function operatorWorkloads(graph: ObjectGraph): OperatorWorkload[] {
  return graph.memo(operatorWorkloads, graph, () => {
    const out: OperatorWorkload[] = [];
    for (const o of graph.objects) {
      if (!isCustomResource(o)) continue;
      const ow = operatorWorkload(o);
      if (ow) out.push(ow);
    }
    return out;
  });
}

/**
 * The replicas of each StatefulSet of a prometheus-operator resource, as replicaBasis gives a
 * workload's: an HPA's minReplicas for an Alertmanager (its scale subresource is spec.replicas; a
 * Prometheus's is spec.shards, so an HPA there does not change a shard's replicas), else
 * spec.replicas. Undefined for a PrometheusAgent in DaemonSet mode (a pod per node).
 */
export function operatorReplicas(graph: ObjectGraph, ow: OperatorWorkload): { replicas: number; phrase: string; hpa?: HpaView } | undefined {
  if (ow.replicas === undefined) return undefined;
  const ns = ow.obj.namespace ?? '';
  const hpa = ow.kind === 'Alertmanager' ? graph.hpas.find((h) => (h.obj.namespace ?? '') === ns && scaleTargetKindIs(h.targetKind, ow.kind) && h.targetName === ow.obj.name) : undefined;
  if (hpa) return { replicas: hpa.minReplicas, phrase: `HPA minReplicas ${hpa.minReplicas}${hpa.minReplicasSet ? '' : ' (default)'} (HorizontalPodAutoscaler/${hpa.obj.name})`, hpa };
  return { replicas: ow.replicas, phrase: `replicas ${ow.replicas}${ow.replicasSet ? '' : ' (default)'}` };
}

/**
 * The pods of prometheus-operator's StatefulSets that a budget selects, counted as pdbPods counts a
 * workload's (an HPA's minReplicas for an Alertmanager, whose scale subresource is spec.replicas;
 * a shard's spec.replicas for a Prometheus): undefined when it selects none, or the pods of a
 * PrometheusAgent in DaemonSet mode (a pod per node: not counted).
 */
export function operatorPdbPods(graph: ObjectGraph, p: PdbView): PdbPods | undefined {
  const ns = p.obj.namespace ?? '';
  const out: PdbPods = { counted: [], replicas: 0, uncounted: [], parts: [], fromHpa: false, testHooks: [] };
  for (const ow of operatorWorkloads(graph)) {
    if ((ow.obj.namespace ?? '') !== ns) continue;
    const groups = ow.groups.filter((g) => selectsOperatorPods(p.selector, g));
    if (!groups.length) continue;
    const r = operatorReplicas(graph, ow);
    if (!r) return undefined;
    if (r.hpa) out.fromHpa = true;
    for (const g of groups) {
      out.replicas += r.replicas;
      out.parts.push(`StatefulSet/${g.name} of ${ow.kind}/${ow.obj.name} ${r.phrase}`);
    }
  }
  return out.parts.length ? out : undefined;
}

/**
 * Custom resources in the namespace whose pods the selector matches, so the selector is not stale:
 * for prometheus-operator's resources the labels it puts on their pods (operatorWorkload: a selector
 * on one shard matches that shard's pods); for any other custom resource its own labels or pod
 * labels written anywhere in it (`spec.podMetadata.labels`, `spec.template.metadata.labels`, ...),
 * since its operator creates those pods.
 */
export function operatorResourcesFor(graph: ObjectGraph, namespace: string | undefined, sel: Selector): KObject[] {
  let index = operatorIndex.get(graph);
  if (!index) {
    index = new Map();
    for (const o of graph.objects) {
      if (!isCustomResource(o)) continue;
      let e = index.get(o.namespace);
      if (!e) index.set(o.namespace, (e = { list: [], read: false }));
      e.list.push({ obj: o, maps: [] });
    }
    operatorIndex.set(graph, index);
  }
  const e = index.get(namespace);
  if (!e) return [];
  if (!e.read) {
    e.read = true;
    for (const x of e.list) {
      // A resource of prometheus-operator: the labels of its pods exactly; any other custom
      // resource: every label map in it.
      const known = operatorWorkload(x.obj);
      if (known) {
        x.groups = known.groups;
        continue;
      }
      const maps: Labels[] = [];
      labelMaps(x.obj.raw, 8, maps);
      x.maps = maps.filter((m) => Object.keys(m).length > 0);
    }
  }
  return e.list.filter((x) => (x.groups ? x.groups.some((g) => selectsOperatorPods(sel, g)) : x.maps.some((m) => matches(sel, m)))).map((x) => x.obj);
}

/**
 * The StatefulSets prometheus-operator makes from resources in the input whose pods the budget
 * selects, for messages (`StatefulSet/alertmanager-main (of Alertmanager/main)`, or the shards of
 * a Prometheus together): StatefulSets like those of the input, for the rules that treat a
 * StatefulSet's budget apart.
 */
export function operatorStatefulSetsFor(graph: ObjectGraph, p: PdbView): string[] {
  if (p.selector.kind !== 'selector') return [];
  const out: string[] = [];
  for (const o of operatorResourcesFor(graph, p.obj.namespace, p.selector)) {
    const ow = operatorWorkload(o);
    if (!ow || ow.replicas === undefined) continue;
    const gs = ow.groups.filter((g) => selectsOperatorPods(p.selector, g));
    if (gs.length === 1) out.push(`StatefulSet/${gs[0].name} (of ${ow.kind}/${o.name})`);
    else if (gs.length > 1) out.push(`the ${gs.length} StatefulSets of ${ow.kind}/${o.name} (one per shard)`);
  }
  return out;
}

/**
 * What makes the workloads the members of one group that one budget and one Service cover by design,
 * or undefined: StatefulSets that run the same images (below), or the `rollout-group` they share,
 * when all of them carry it on their pod templates with the same value: grafana/rollout-operator's zone-aware StatefulSets (Loki, Mimir, Tempo ingesters
 * in zones a, b and c). One budget and one Service over the group are the design (Loki's
 * ingester-rollout PDB allows one ingester down across all zones; following "one budget per
 * workload" would allow one per zone, every replica of a stream at once), not a mistake.
 */
export function memberGroup(ws: readonly Workload[]): string | undefined {
  if (ws.length < 2) return undefined;
  const v = ws[0].templateLabels['rollout-group'];
  if (v && ws.every((w) => w.kind === 'StatefulSet' && w.templateLabels['rollout-group'] === v)) return `rollout-group ${v}`;
  // StatefulSets that run the same programs (the same image repositories, whatever the tags): the
  // members of one clustered app, one StatefulSet each (the neo4j chart, one release per cluster
  // member; ECK's node sets, which ECK itself covers with one budget). Review round 10.
  if (!ws.every((w) => w.kind === 'StatefulSet')) return undefined;
  const images = (w: Workload) => [...new Set(w.containers.map((c) => imageRepository(c.image).full))].sort().join(' ');
  const first = images(ws[0]);
  return first && ws.every((w) => images(w) === first) ? `StatefulSets of the image ${first}` : undefined;
}

function intOf(v: Json | undefined, dflt: number): number {
  const n = num(v);
  return n === undefined ? dflt : n;
}

/**
 * Seconds from start to Ready, from the probes: startupProbe and readinessProbe delays (explain's
 * rollout plan, progress-deadline's realistic step, and what recreate-strategy says a Recreate
 * rollout costs). The kubelet counts every probe's initialDelaySeconds from the container's start and
 * only holds the readiness probe until the startup probe has passed, then triggers it at once, so the
 * two delays overlap: Ready at max(startup delay, readiness delay) plus the readiness probe's further
 * successes (kubernetes pkg/kubelet/prober/worker.go doProbe: "Probe disabled for InitialDelaySeconds"
 * from c.State.Running.StartedAt, "Disable other probes until container has started"; prober_manager.go
 * UpdatePodStatus: "Trigger an immediate run of the readinessProbe"). Review round 30: the sum said 25 s
 * for keycloakx (startup 15, readiness 10), Ready at about 15 s.
 */
export function startupEstimate(w: Workload): { seconds: number; basis: string } {
  let best: { seconds: number; basis: string } | undefined;
  for (const c of w.containers) {
    const delays: { d: number; words: string }[] = [];
    const sp = c.raw.startupProbe;
    if (isObject(sp)) {
      // (A startupProbe's successThreshold must be 1: API validation.)
      const d = intOf(sp.initialDelaySeconds, DEFAULTS.probe.initialDelaySeconds);
      delays.push({ d, words: `startupProbe initialDelaySeconds ${d}` });
    }
    const rp = c.raw.readinessProbe;
    let extra = 0;
    let extraWords = '';
    if (isObject(rp)) {
      const d = intOf(rp.initialDelaySeconds, DEFAULTS.probe.initialDelaySeconds);
      const period = intOf(rp.periodSeconds, DEFAULTS.probe.periodSeconds);
      const success = intOf(rp.successThreshold, DEFAULTS.probe.successThreshold);
      delays.push({ d, words: `readinessProbe initialDelaySeconds ${d}` });
      extra = Math.max(0, success - 1) * period;
      if (success > 1) extraWords = ` + (successThreshold ${success} - 1) x periodSeconds ${period}`;
    }
    if (!delays.length) continue;
    const s = Math.max(...delays.map((x) => x.d)) + extra;
    const words = delays.length > 1 ? `max(${delays.map((x) => x.words).join(', ')}; the kubelet counts both from the container's start)` : delays[0].words;
    if (!best || s > best.seconds) best = { seconds: s, basis: `"${c.name}": ${words}${extraWords}` };
  }
  if (!best) return { seconds: 0, basis: 'no readiness or startup probe: Ready as soon as the containers start; image pull and process start not counted' };
  return { seconds: best.seconds, basis: `${best.basis} (probes pass at the first try; image pull and process start not counted)` };
}

/**
 * The roles bound to the workload's ServiceAccount, when the input holds its bindings and every role
 * they name, and none grants what client-go's leader election locks on (leases of
 * coordination.k8s.io; configmaps or endpoints for the older locks) while some grants a write, so the
 * program acts on the cluster as a controller: `Role/x, ClusterRole/y`. Undefined when a lock is granted,
 * nothing is written (a reader such as Prometheus runs twice without a leader), or the input lacks the
 * bindings or a role (nothing then says it).
 */
/** The pod's ServiceAccount: serviceAccountName, else the deprecated serviceAccount the API server still reads, else default. */
export function serviceAccountOf(w: Workload): string {
  const n = w.podSpec.serviceAccountName || w.podSpec.serviceAccount;
  return typeof n === 'string' && n !== '' ? n : 'default';
}

/**
 * The Roles and ClusterRoles the input binds to ServiceAccount `sa` of namespace `ns`, and whether
 * every binding names a role of the input (`complete`: false when a binding's roleRef is malformed or
 * names a role the input lacks).
 */
export function rolesBoundTo(graph: ObjectGraph, ns: string, sa: string): { roles: KObject[]; complete: boolean } {
  const roles: KObject[] = [];
  let complete = true;
  for (const kind of ['RoleBinding', 'ClusterRoleBinding']) {
    for (const b of graph.ofKind(kind)) {
      if (kind === 'RoleBinding' && (b.namespace ?? 'default') !== ns) continue;
      const subjects = b.raw.subjects;
      const bound = Array.isArray(subjects) && subjects.some((x) => isObject(x) && x.kind === 'ServiceAccount' && x.name === sa && (x.namespace ?? (kind === 'RoleBinding' ? b.namespace ?? 'default' : undefined)) === ns);
      if (!bound) continue;
      const ref = b.raw.roleRef;
      const role = isObject(ref) && typeof ref.name === 'string' && (ref.kind === 'Role' || ref.kind === 'ClusterRole') ? graph.ofKind(ref.kind).find((r) => r.name === ref.name && (ref.kind === 'ClusterRole' || (r.namespace ?? 'default') === (b.namespace ?? 'default'))) : undefined;
      if (role) roles.push(role);
      else complete = false;
    }
  }
  return { roles, complete };
}

export function noLeaderElectionLock(graph: ObjectGraph, w: Workload): string | undefined {
  const { roles, complete } = rolesBoundTo(graph, w.obj.namespace ?? 'default', serviceAccountOf(w));
  if (!complete) return undefined;
  if (!roles.length) return undefined;
  const has = (list: unknown, x: string) => Array.isArray(list) && (list.includes(x) || list.includes('*'));
  for (const r of roles) {
    // (An aggregated ClusterRole's rules are filled in by the controller: unknown.)
    if (isObject(r.raw.aggregationRule)) return undefined;
    const rules = Array.isArray(r.raw.rules) ? r.raw.rules : [];
    for (const rule of rules) {
      if (!isObject(rule)) continue;
      if (has(rule.apiGroups, 'coordination.k8s.io') && has(rule.resources, 'leases')) return undefined;
      if (has(rule.apiGroups, '') && (has(rule.resources, 'configmaps') || has(rule.resources, 'endpoints')) && (has(rule.verbs, 'update') || has(rule.verbs, 'create'))) return undefined;
    }
  }
  // Only a program that writes to the cluster acts as a controller that two instances would do twice:
  // a reader (Prometheus' get, list and watch for discovery) can run twice without a leader.
  const writes = roles.some((r) => (Array.isArray(r.raw.rules) ? r.raw.rules : []).some((rule) => isObject(rule) && Array.isArray(rule.verbs) && rule.verbs.some((v) => ['create', 'update', 'patch', 'delete', 'deletecollection', '*'].includes(String(v)))));
  if (!writes) return undefined;
  return [...new Set(roles.map((r) => `${r.kind}/${r.name}`))].join(', ');
}

/**
 * A label value that looks meant for another: one contains the other (3 characters at least), or it
 * is a near spelling of it. `component: worker` for `ci-concourse-worker`; `executor-default` for
 * `executor`.
 */
export function nearLabelValue(want: string, has: string): boolean {
  return (Math.min(has.length, want.length) >= 3 && (has.includes(want) || want.includes(has))) || closestName(want, [has]) !== undefined;
}

/** How a budget's selector misses a workload's pods by one label: the value it wants under a key whose template value differs. */
export interface NearMiss {
  pdb: PdbView;
  w: Workload;
  key: string;
  want: string;
  has: string;
}

/**
 * Budgets that select no workload but miss exactly one workload of their namespace, one no budget
 * protects, by one label value: a template label under the same key whose value contains the
 * wanted one or is a near spelling of it. A stale or mistyped selector meant for that
 * workload (bitnami/concourse's worker budget selects `component: worker`; the StatefulSet's pods
 * carry `component: ci-concourse-worker`): the fix is that budget's selector, not a second budget,
 * which the pods would have as well once it is corrected (two budgets: every eviction refused).
 * By budget and by workload, once per graph.
 */
export function nearMissBudgets(graph: ObjectGraph): { byPdb: Map<PdbView, NearMiss>; byWorkload: Map<Workload, NearMiss> } {
  return graph.memo(nearMissBudgets, graph, () => {
    const byPdb = new Map<PdbView, NearMiss>();
    const byWorkload = new Map<Workload, NearMiss>();
    for (const pdb of graph.pdbs) {
      if (pdb.selector.kind !== 'selector' || graph.workloadsForPdb(pdb).length) continue;
      // Pods an operator makes, or pods of a controller not in the set, are what it selects.
      if (operatorResourcesFor(graph, pdb.obj.namespace, pdb.selector).length || graph.ownedSelected(pdb.obj.namespace, pdb.selector).length) continue;
      const reqs = pdb.selector.requirements;
      if (!reqs.length || reqs.some((r) => r.operator !== 'In' || r.values.length !== 1)) continue;
      const ns = pdb.obj.namespace ?? '';
      const near: NearMiss[] = [];
      for (const w of graph.workloadsIn(pdb.obj.namespace)) {
        if ((w.obj.namespace ?? '') !== ns) continue;
        const miss = reqs.filter((r) => w.templateLabels[r.key] !== r.values[0]);
        if (miss.length !== 1) continue;
        const r = miss[0];
        const has = w.templateLabels[r.key];
        if (has === undefined) continue;
        // A value that contains the wanted one or is a near spelling of it; and a workload that no
        // budget protects yet (bitnami/kafka's broker budget, left for a broker pool of 0 replicas
        // the chart does not render, is not meant for the controller-eligible StatefulSet, which has its own).
        if (!nearLabelValue(r.values[0], has) || graph.pdbsFor(w).length) continue;
        near.push({ pdb, w, key: r.key, want: r.values[0], has });
      }
      // Several so near: the one the budget is named after.
      const base = pdb.obj.name.replace(/-(?:pdb|budget)$/, '');
      const pick = [near, near.filter((m) => m.w.obj.name === base)].find((l) => l.length === 1)?.[0];
      if (!pick || byWorkload.has(pick.w)) continue;
      byPdb.set(pdb, pick);
      byWorkload.set(pick.w, pick);
    }
    return { byPdb, byWorkload };
  });
}

/**
 * A StatefulSet treated as a data store (graceful-termination.md section 12: its budget keeps
 * IfHealthyBudget, so a drain does not evict a recovering member while the budget is short): one
 * that keeps data, in volumeClaimTemplates, a PersistentVolumeClaim or a hostPath volume. A
 * StatefulSet with none (emptyDir caches only, as Quickwit's searchers: review round 22) is a
 * stateless one, whose crash-looping pods should not block drains.
 */
export function isDataStore(w: Workload): boolean {
  if (w.kind !== 'StatefulSet') return false;
  const vct = get(w.obj.raw, 'spec', 'volumeClaimTemplates');
  if (Array.isArray(vct) && vct.length > 0) return true;
  const vols = w.podSpec.volumes;
  return Array.isArray(vols) && vols.some((v) => isObject(v) && (isObject(v.persistentVolumeClaim) || isObject(v.hostPath)));
}
