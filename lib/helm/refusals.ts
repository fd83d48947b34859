/**
 * What `chart generate` refuses before it writes a chart, so that every chart it writes renders with
 * its default values (`helm template RELEASE CHART --namespace NS`):
 *
 * - manifests whose values trip one of the chart's own guards (templates.ts `guard`), evaluated here
 *   on the default values exactly as the Go template evaluates them. A guard that mirrors a lint
 *   finding is accepted instead when the manifests suppress that rule on the object
 *   (`kubegrace.dev/ignore`, as the linter honours it): the chart then defaults the guard's
 *   `acknowledge` value to true. A guard that mirrors an API rejection has no override.
 * - objects that would be one object in every release: the same kind and name twice in one namespace.
 *
 * The same kind and name in two namespaces is not refused: the chart refuses, at render time, the
 * release namespaces where the two would become one object (releaseNamespaceCollisions), and renders
 * with its defaults in the manifests' main namespace.
 *
 * Version-dependent guards (a native sidecar's classicFallback `refuse` below Kubernetes 1.29) and the
 * install-time `lookup` of the namespace's labels are not judged here: they depend on the cluster,
 * not on the values.
 */
import { HINT } from '../model/graph';
import { isClusterScoped } from '../model/parse';
import { isObject, Json, JsonObject, KObject } from '../model/types';
import { get } from '../model/workload';
import { DEFAULT_DRAIN_SECONDS, GRACE_MARGIN_SECONDS } from '../timeline/budget';
import { ChartAnalysis, rolloutGuarded, whereOf, WorkloadPlan } from './analyze';
import { ACKNOWLEDGED_RULES } from './templates';
import { ValueNode } from './values';

/** One guard that the default values trip. */
export interface GuardTrip {
  plan: WorkloadPlan;
  /** The object the guard is about (the workload, or its PodDisruptionBudget). */
  object: KObject;
  /** The acknowledge key that overrides it, or undefined for an API rejection. */
  ack?: string;
  /** What is wrong, with the numbers. */
  problem: string;
  /** What to change in the manifests. */
  fix: string;
  /** The API server rejects the object (a sleep action longer than the grace period, on >= 1.30): no acknowledgement helps. */
  api?: boolean;
}

/** Sprig's `int`: numbers truncated, numeric strings parsed, anything else 0. */
function int(v: Json | undefined): number {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'string' && /^\s*-?\d+/.test(v)) return Number.parseInt(v, 10);
  return 0;
}

/** The guards' `has (toString v) (list "0" "0%")`. */
function zero(v: Json | undefined): boolean {
  return v === 0 || v === '0' || v === '0%';
}

/** An int-or-percent resolved against `r` replicas: percentages round up (`up`) or down. */
function resolve(v: Json | undefined, r: number, up: boolean): number {
  if (typeof v === 'string') {
    const p = int(v.replace(/%$/, ''));
    return up ? Math.floor((p * r + 99) / 100) : Math.floor((p * r) / 100);
  }
  return int(v);
}

function set(v: Json | undefined): boolean {
  return v !== undefined && v !== null;
}

/**
 * Every guard of templates.ts that the values trip, as rendered for Kubernetes >= 1.30 (the classic
 * fallback of native sidecars below 1.29 and the install-time namespace lookup are not judged).
 */
export function guardTrips(a: ChartAnalysis, values: JsonObject): GuardTrip[] {
  const trips: GuardTrip[] = [];
  const workloads = (values.workloads ?? {}) as JsonObject;
  for (const plan of a.workloads) {
    const w = workloads[plan.key];
    if (!isObject(w)) continue;
    const trip = (t: Omit<GuardTrip, 'plan' | 'object'> & { object?: KObject }) => trips.push({ plan, object: plan.obj, ...t });
    const ack = (k: string) => get(w, 'acknowledge', k) === true;
    const grace = int(w.terminationGracePeriodSeconds);
    const pre = Math.max(plan.preStop ? int(get(w, 'preStop', 'delaySeconds')) : 0, 0, ...plan.fixedPreStops.map((s) => Math.ceil(s)));
    const drain = plan.drain.knob ? int(w.drainSeconds) : Math.ceil(plan.drain.constant);
    const need = pre + drain + Math.trunc(plan.addend);
    const judged = plan.drain.declared || plan.fixedPreStops.length > 0 ? true : plan.drain.knob ? pre > 0 || drain !== DEFAULT_DRAIN_SECONDS : pre > 0;
    const addend = plan.addendParts.map((x) => ` + ${x}`).join('');
    const graceFix = `raise terminationGracePeriodSeconds to at least ${need + GRACE_MARGIN_SECONDS} (preStop + drain${addend} + ${GRACE_MARGIN_SECONDS}s margin), or shorten the preStop delay`;
    if (pre > 0 && pre >= grace) {
      if (!ack('gracePeriodBudget')) trip({ ack: 'gracePeriodBudget', problem: `preStop delay ${pre}s >= terminationGracePeriodSeconds ${grace}s`, fix: graceFix });
    } else if (judged && need > grace) {
      if (!ack('gracePeriodBudget')) trip({ ack: 'gracePeriodBudget', problem: `preStop ${pre}s + drain ${drain}s${addend} = ${need}s exceeds terminationGracePeriodSeconds ${grace}s`, fix: `${graceFix}${plan.drain.knob ? ` or the ${HINT.drainSeconds} annotation` : ''}` });
    }
    // The API rejects a sleep action longer than the grace period (validateSleepAction), acknowledged or not.
    // A templated hook renders preStop.delaySeconds, and the chart's guard refuses it on >= 1.30 (where it
    // writes the sleep action); another sleep hook stays as the manifests wrote it, unguarded.
    const sleepTarget = plan.preStop?.targets.some((t) => t.kind === 'sleep') ?? false;
    if (sleepTarget && int(get(w, 'preStop', 'delaySeconds')) > grace) {
      trip({ api: true, problem: `preStop sleep action of ${int(get(w, 'preStop', 'delaySeconds'))}s > terminationGracePeriodSeconds ${grace}`, fix: graceFix });
    }
    const targeted = new Set((plan.preStop?.targets ?? []).map((t) => t.index));
    for (const list of ['containers', 'initContainers']) {
      const cs = get(plan.obj.raw, 'spec', 'template', 'spec', list);
      if (!Array.isArray(cs)) continue;
      cs.forEach((c, i) => {
        if (list === 'containers' && targeted.has(i)) return;
        const seconds = get(c, 'lifecycle', 'preStop', 'sleep', 'seconds');
        if (typeof seconds === 'number' && seconds > grace) {
          trip({ api: true, problem: `container ${JSON.stringify(String(get(c, 'name')))}: preStop sleep.seconds ${seconds} > terminationGracePeriodSeconds ${grace}`, fix: graceFix });
        }
      });
    }
    if (plan.mesh.linkerdWait) {
      const stay = pre + Math.max(drain, 1);
      if (stay >= grace && !ack('meshDrain')) trip({ ack: 'meshDrain', problem: `the Linkerd proxy waits preStop + drain = ${stay}s before it exits, at or above terminationGracePeriodSeconds ${grace}s`, fix: `raise terminationGracePeriodSeconds to at least ${stay + GRACE_MARGIN_SECONDS}` });
    }
    if (plan.kind === 'Deployment' || plan.kind === 'DaemonSet') {
      const s = (plan.kind === 'Deployment' ? w.strategy : w.updateStrategy) as JsonObject | undefined;
      if (isObject(s) && s.type === 'RollingUpdate' && zero(s.maxSurge) && zero(s.maxUnavailable)) {
        trip({ problem: 'rollingUpdate maxSurge and maxUnavailable are both 0 (the API rejects it)', fix: 'set maxSurge to 1' });
      }
    }
    if (plan.kind === 'Deployment' && int(w.minReadySeconds) >= int(w.progressDeadlineSeconds)) {
      trip({ problem: `minReadySeconds ${int(w.minReadySeconds)} >= progressDeadlineSeconds ${int(w.progressDeadlineSeconds)} (the API rejects it)`, fix: `raise progressDeadlineSeconds above minReadySeconds` });
    }
    if (plan.hpa && int(get(w, 'autoscaling', 'minReplicas')) > int(get(w, 'autoscaling', 'maxReplicas'))) {
      trip({ object: plan.hpa.obj, problem: `HorizontalPodAutoscaler minReplicas ${int(get(w, 'autoscaling', 'minReplicas'))} > maxReplicas ${int(get(w, 'autoscaling', 'maxReplicas'))} (the API rejects it)`, fix: 'raise maxReplicas or lower minReplicas' });
    }
    const replicas = plan.hpa ? int(get(w, 'autoscaling', 'minReplicas')) : plan.replicas ? int(w.replicas) : 1;
    const pdb = w.pdb;
    if (plan.pdb && isObject(pdb) && pdb.enabled === true) {
      const object = plan.pdb.obj ?? plan.obj;
      if (set(pdb.minAvailable) && set(pdb.maxUnavailable)) trip({ object, problem: 'the PodDisruptionBudget sets both minAvailable and maxUnavailable (the API rejects it)', fix: 'keep one of them' });
      else if (!set(pdb.minAvailable) && !set(pdb.maxUnavailable)) trip({ object, problem: 'the PodDisruptionBudget sets neither minAvailable nor maxUnavailable', fix: 'set maxUnavailable (e.g. 1)' });
      if (replicas > 0 && !ack('pdbBlocksEviction')) {
        if (set(pdb.maxUnavailable)) {
          if (zero(pdb.maxUnavailable)) trip({ object, ack: 'pdbBlocksEviction', problem: `PodDisruptionBudget maxUnavailable ${String(pdb.maxUnavailable)} allows no voluntary eviction (kubectl drain would never finish)`, fix: 'use maxUnavailable 1 or more' });
        } else if (set(pdb.minAvailable)) {
          const needed = resolve(pdb.minAvailable, replicas, true);
          if (needed >= replicas) trip({ object, ack: 'pdbBlocksEviction', problem: `PodDisruptionBudget minAvailable ${String(pdb.minAvailable)} with ${plan.hpa ? 'HPA minReplicas' : 'replicas'} ${replicas} keeps ${needed} pods available, so no pod may ever be evicted`, fix: 'lower minAvailable below the replicas, or use maxUnavailable 1' });
        }
      }
    }
    if (plan.preStop && plan.served && int(get(w, 'preStop', 'delaySeconds')) === 0 && !ack('preStopMissing')) {
      trip({ ack: 'preStopMissing', problem: 'preStop delay 0 on a served workload', fix: 'keep a preStop delay' });
    }
    if (rolloutGuarded(plan) && !ack('rolloutOutage')) {
      const st = (w.strategy ?? {}) as JsonObject;
      const surge = resolve(st.maxSurge, replicas, true);
      let unav = resolve(st.maxUnavailable, replicas, false);
      if (surge === 0 && unav === 0) unav = 1;
      if (st.type === 'Recreate') {
        if (replicas >= 2) trip({ ack: 'rolloutOutage', problem: `strategy Recreate with ${replicas} replicas on a served workload stops every pod before a new one starts`, fix: 'use RollingUpdate with maxSurge 1 and maxUnavailable 0' });
      } else if (replicas > 0 && unav >= replicas && !(zero(st.maxSurge) && zero(st.maxUnavailable))) {
        trip({ ack: 'rolloutOutage', problem: `maxSurge ${String(st.maxSurge)} and maxUnavailable ${String(st.maxUnavailable)} with ${replicas} replicas let a rollout remove every pod before a replacement is ready`, fix: 'set maxSurge 1 and maxUnavailable 0' });
      }
    }
  }
  return trips;
}

/** The rule IDs a `kubegrace.dev/ignore` value names (the linter's reading: comma-separated, trimmed). */
function ignoredRules(v: string | undefined): Set<string> {
  return new Set((v ?? '').split(',').map((s) => s.trim()).filter(Boolean));
}

/** Whether the manifests suppress the rule behind an acknowledge key on the object (or, for a PDB, on its workload). */
function suppressedInManifests(t: GuardTrip): boolean {
  if (!t.ack) return false;
  const rules = ACKNOWLEDGED_RULES[t.ack] ?? [];
  const own = get(t.object.raw, 'metadata', 'annotations', HINT.ignore);
  const sets = [ignoredRules(t.plan.w.annotations[HINT.ignore]), ignoredRules(typeof own === 'string' ? own : undefined)];
  return sets.some((s) => s.has('all') || rules.some((r) => s.has(r)));
}

function setAckDefault(plan: WorkloadPlan, key: string): void {
  const group = plan.values.children.find((n): n is Extract<ValueNode, { kind: 'group' }> => n.kind === 'group' && n.key === 'acknowledge');
  const leaf = group?.children.find((n) => n.kind === 'leaf' && n.key === key);
  if (!leaf || leaf.kind !== 'leaf') throw new Error(`internal: no acknowledge.${key} value for ${plan.what}`);
  leaf.default = true;
  leaf.description = `${leaf.description.replace(/ \(default true: .*\)$/, '')} (default true: the manifests suppress ${(ACKNOWLEDGED_RULES[key] ?? []).join(', ')} on this object with ${HINT.ignore})`;
}

/** The message of a trip the manifests do not accept, naming where, the guard, what to change and the override. */
function tripMessage(t: GuardTrip): string {
  const p = `workloads.${t.plan.key}`;
  const head = `${whereOf(t.object)}: ${t.plan.what}${t.object !== t.plan.obj ? ` (${t.object.kind} ${JSON.stringify(t.object.name)})` : ''}: ${t.problem}`;
  if (t.api) return `${head}: the API server rejects a sleep action longer than the grace period (validateSleepAction), so the chart refuses it on Kubernetes >= 1.30, where it writes the sleep action, acknowledged or not; ${t.fix}`;
  if (!t.ack) return `${head}; the chart's guard refuses it with no override: ${t.fix}`;
  const rules = ACKNOWLEDGED_RULES[t.ack] ?? [];
  return `${head} (guard ${p}.acknowledge.${t.ack}); ${t.fix}, or, to accept the risk, add ${rules.join(' or ')} to the ${HINT.ignore} annotation of ${t.object.kind} ${JSON.stringify(t.object.name)} (with a ${HINT.ignoreReason}): the chart then defaults ${p}.acknowledge.${t.ack} to true`;
}

/**
 * Refuses manifests whose values trip the chart's own guards, unless the manifests suppress the rule
 * behind a guard that can be acknowledged: that `acknowledge` value then defaults to true. Mutates the
 * values tree of `a` for those; throws an Error listing every other trip.
 */
export function acceptGuards(a: ChartAnalysis, defaults: (a: ChartAnalysis) => JsonObject): void {
  const trips = guardTrips(a, defaults(a));
  const refused: GuardTrip[] = [];
  for (const t of trips) {
    if (suppressedInManifests(t)) setAckDefault(t.plan, t.ack!);
    else refused.push(t);
  }
  if (!refused.length) return;
  throw new Error(
    `the manifests hold values that the chart's own guards (or the API server) refuse, so the chart would not render (or install) with its default values; fix the manifests:\n${refused.map((t) => `  - ${tripMessage(t)}`).join('\n')}`,
  );
}

/** The namespace an object names: metadata.namespace of a namespaced object, the name of a Namespace. */
export function namespaceOf(o: KObject): string | undefined {
  if (o.kind === 'Namespace') return o.name;
  if (isClusterScoped(o.kind)) return undefined;
  const ns = get(o.raw, 'metadata', 'namespace');
  return typeof ns === 'string' && ns !== '' ? ns : undefined;
}

/**
 * Keeps the objects of one namespace (`chart generate --namespace`): its namespaced objects, those that
 * name no namespace, its Namespace object and the cluster-scoped objects.
 */
export function selectNamespace(objects: KObject[], ns: string): KObject[] {
  const kept = objects.filter((o) => {
    const n = namespaceOf(o);
    return n === undefined || n === ns;
  });
  if (!kept.some((o) => namespaceOf(o) === ns)) {
    const used = [...new Set(objects.map(namespaceOf).filter((n): n is string => n !== undefined))];
    throw new Error(`no object of the manifests is in namespace ${JSON.stringify(ns)}${used.length ? ` (they use ${used.map((n) => JSON.stringify(n)).join(', ')})` : ' (they name no namespace)'}: choose one of those, or leave out --namespace`);
  }
  return kept;
}

/** Where an object goes in a release, for the collision checks. */
interface Placement {
  kind: string;
  short: string;
  /** '' cluster-scoped; RELEASE for the release namespace (main namespace, or none named); else the namespace kept. */
  ns: string;
  where: string;
  what: string;
  /** The object's uid; for a PDB the chart adds, its workload's. */
  uid: string;
  generated: boolean;
  obj?: KObject;
}

/** The placement of objects that go to the release namespace (no namespace name can be empty). */
const RELEASE = '';

function placements(a: ChartAnalysis): Placement[] {
  const q = (n: string) => JSON.stringify(n);
  const released = (n: string | undefined) => n === undefined || n === a.primaryNamespace;
  const out: Placement[] = [];
  for (const o of a.objects) {
    if (o.kind === 'Namespace') continue;
    const n = namespaceOf(o);
    const ns = isClusterScoped(o.kind) ? '\u0000cluster' : released(n) ? RELEASE : n!;
    out.push({ kind: o.kind, short: a.shortNames.get(o.uid) ?? o.name, ns, where: whereOf(o), what: `${o.kind} ${q(o.name)}${n !== undefined ? ` in namespace ${q(n)}` : ''}`, uid: o.uid, generated: false, obj: o });
  }
  for (const plan of a.workloads) {
    if (plan.pdb && !plan.pdb.obj && plan.pdb.generatedName) {
      const n = namespaceOf(plan.obj);
      out.push({ kind: 'PodDisruptionBudget', short: plan.pdb.generatedName, ns: released(n) ? RELEASE : n!, where: whereOf(plan.obj), what: `the PodDisruptionBudget the chart adds for ${plan.what}`, uid: plan.obj.uid, generated: true });
    }
  }
  return out;
}

/**
 * Objects that would be one object in every release: the same kind and (short) name twice where the
 * chart puts both into one namespace (both in one namespace of the manifests, one in the main namespace
 * and one naming none, or twice cluster-scoped). No manifest set can hold that, so it is refused.
 * (One kind and name in two namespaces is not: see releaseNamespaceCollisions.)
 */
export function duplicateObjects(a: ChartAnalysis): string | undefined {
  const groups = new Map<string, Placement[]>();
  for (const p of placements(a)) {
    const k = `${p.kind}\u0000${p.short}\u0000${p.ns}`;
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  const clashing = [...groups.values()].filter((g) => g.length > 1);
  const reported = new Set(clashing.flatMap((g) => g.filter((e) => !e.generated).map((e) => e.uid)));
  const problems: string[] = [];
  for (const g of clashing) {
    // The optional PDBs of workloads that clash themselves say nothing new.
    if (g.every((e) => e.generated && reported.has(e.uid))) continue;
    const list = g.map((e) => `${e.what} (${e.where})`).join(', ');
    problems.push(`${list}: in one namespace, so a release would hold two ${g[0].kind} <release>-<chart>-${g[0].short} (helm install fails on the second: "already exists")`);
  }
  if (!problems.length) return undefined;
  return `the manifests hold objects that would collide in a release:\n${problems.map((p) => `  - ${p}`).join('\n')}\nGive them different metadata.name values, or remove the duplicate.`;
}

/** One kind and short name that a release installed into `namespace` would hold twice. */
export interface CollidingObject {
  kind: string;
  /** The name after the release's fullname (for a Namespace object, its own name). */
  short: string;
  /** The object the chart keeps in the namespace. */
  kept: KObject;
  /** The objects of that kind and short name the chart puts into the release namespace. */
  released: KObject[];
  /** Namespace objects: they are rendered only with `namespace.create`. */
  onlyWithCreate: boolean;
}

/** A namespace the manifests use besides the main one, which a release must not be installed into. */
export interface NamespaceCollision {
  namespace: string;
  objects: CollidingObject[];
}

/**
 * The namespaces a release must not be installed into. The objects of the main namespace (and those
 * naming none) go to the release namespace, objects of other namespaces keep theirs, and all are named
 * `<fullname>-<name>`: an object kept in namespace N whose kind and name also go to the release
 * namespace is the same object as that one when the release is installed into N (kube-prometheus's
 * RoleBinding prometheus-k8s in monitoring, default and kube-system). The chart refuses those release
 * namespaces at render time (templates.ts `guards.release-namespace`); everywhere else it installs.
 * A Namespace object of N collides with the one the chart creates for the release namespace
 * (`namespace.create`). Sorted by namespace, then kind and name; pure.
 */
export function releaseNamespaceCollisions(a: ChartAnalysis): NamespaceCollision[] {
  const main = a.primaryNamespace;
  if (main === undefined) return [];
  const byKey = new Map<string, Placement[]>();
  for (const p of placements(a)) {
    if (p.generated || !p.obj) continue;
    const k = `${p.kind}\u0000${p.short}`;
    byKey.set(k, [...(byKey.get(k) ?? []), p]);
  }
  const perNs = new Map<string, CollidingObject[]>();
  const add = (ns: string, c: CollidingObject) => perNs.set(ns, [...(perNs.get(ns) ?? []), c]);
  for (const g of byKey.values()) {
    const released = g.filter((p) => p.ns === RELEASE).map((p) => p.obj!);
    if (!released.length) continue;
    for (const p of g) if (p.ns !== RELEASE && !p.ns.startsWith('\u0000')) add(p.ns, { kind: p.kind, short: p.short, kept: p.obj!, released, onlyWithCreate: false });
  }
  const mainNs = a.objects.filter((o) => o.kind === 'Namespace' && o.name === main);
  if (mainNs.length) {
    for (const o of a.objects) if (o.kind === 'Namespace' && o.name !== main) add(o.name, { kind: 'Namespace', short: o.name, kept: o, released: mainNs, onlyWithCreate: true });
  }
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...perNs.entries()]
    .sort(([x], [y]) => cmp(x, y))
    .map(([namespace, objects]) => ({ namespace, objects: objects.sort((x, y) => cmp(`${x.kind}/${x.short}`, `${y.kind}/${y.short}`)) }));
}
