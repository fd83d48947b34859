import { Rule, RuleContext } from '../engine/types';
import { passingHelmHook } from './lb-util';
import { ObjectGraph, ServiceView } from '../model/graph';
import { Labels, matches, parseLabelSelector, stringMap } from '../model/selector';
import { isObject, Json, JsonObject, KObject } from '../model/types';
import { get, Workload } from '../model/workload';
import { fmtIntOrPercent, pdbAllowance, replicaBasis, rolloutFor } from './rollout-util';
import { nameOf } from './util';
import { imageName } from './headless-publish-not-ready';
import { crdConversionWebhook, customResourcesOnly, patchedFailurePolicy, webhookServiceRef } from '../model/webhook-calls';
import { noLeaderElectionLock } from './rollout-util';
import { runtimeWebhooks } from '../catalog';

/** Services by namespace/name; a Service written without a namespace is also found by name alone (applied with -n). */
class ServiceIndex {
  private byKey = new Map<string, ServiceView>();
  private unnamespaced = new Map<string, ServiceView[]>();
  constructor(services: readonly ServiceView[]) {
    for (const s of services) {
      const key = `${s.obj.namespace ?? ''}/${s.obj.name}`;
      if (!this.byKey.has(key)) this.byKey.set(key, s);
      const ns = get(s.obj.raw, 'metadata', 'namespace');
      if (typeof ns !== 'string' || ns === '') {
        const l = this.unnamespaced.get(s.obj.name) ?? [];
        l.push(s);
        this.unnamespaced.set(s.obj.name, l);
      }
    }
  }
  find(namespace: string, name: string): ServiceView | undefined {
    const exact = this.byKey.get(`${namespace}/${name}`);
    if (exact) return exact;
    const loose = this.unnamespaced.get(name);
    return loose && loose.length === 1 ? loose[0] : undefined;
  }
}

/** Why the backing pods can all be gone at once; empty when the backend is highly available. */
interface Backend {
  workloads: Workload[];
  /** "Deployment/x replicas 1", one per backing workload. */
  who: string;
  reasons: string[];
  /** What to change, one item per reason (the parts of a highly available backend that are missing). */
  fixes: string[];
}

function judgeBackend(graph: ObjectGraph, svc: ServiceView): Backend | undefined {
  // (Helm hooks, such as the test Pods a chart labels like its Deployment, exist only while the hook runs: passingHelmHook.)
  const ws = graph.workloadsFor(svc).filter((w) => !w.isBatch && !passingHelmHook(w.obj));
  if (ws.length === 0) return undefined;
  // DaemonSet pods are skipped by `kubectl drain` and roll node by node: their count is the node count,
  // which the manifests do not show. Such a backend is not judged.
  if (ws.some((w) => w.kind === 'DaemonSet')) return undefined;
  const reasons: string[] = [];
  let total = 0;
  const parts: string[] = [];
  /** The HPAs that set the replica count (their minReplicas is what to raise). */
  const hpas: string[] = [];
  for (const w of ws) {
    if (w.kind === 'Pod') {
      total += 1;
      parts.push(`${nameOf(w)} (a bare Pod: a drain deletes it and nothing recreates it)`);
      continue;
    }
    const b = replicaBasis(graph, w);
    if (!b) return undefined;
    total += b.replicas;
    parts.push(`${nameOf(w)} ${b.phrase}`);
    if (b.hpa) hpas.push(`HorizontalPodAutoscaler/${b.hpa.obj.name}`);
  }
  if (total <= 0) return undefined; // scaled to zero: nothing to keep available
  const who = parts.join(', ');
  const fixes: string[] = [];
  if (total === 1) {
    // A budget that allows no eviction of the one pod (minAvailable: 1) makes the eviction API refuse it, so a
    // drain stalls instead of emptying the backend (pdb-blocks-eviction reports that); the backend is then lost
    // on a node failure, a drain forced past the budget (a managed node upgrade's timeout) or a direct delete
    // (review round 33, report p40, item 2).
    const blocking = ws.flatMap((w) => (w.kind === 'Pod' ? [] : graph.pdbsFor(w))).find((p) => pdbAllowance(graph, p)?.allowed === 0);
    reasons.push(
      blocking
        ? `a single replica, so a node failure, a forced drain or a direct pod deletion leaves no backend until a replacement is scheduled and Ready (voluntary evictions are refused by PodDisruptionBudget/${blocking.obj.name}, which stalls drains instead: see pdb-blocks-eviction)`
        : `a single replica, so a node drain, an eviction or a node failure leaves no backend until a replacement is scheduled and Ready`,
    );
    fixes.push(`${hpas.length ? `set minReplicas: 2 on ${hpas.join(', ')}, spread the replicas over nodes,` : 'run >= 2 replicas spread over nodes,'} with a PodDisruptionBudget (maxUnavailable: 1)`);
  } else {
    const unprotected = ws.filter((w) => {
      const pdbs = graph.pdbsFor(w);
      if (pdbs.length === 0) return true;
      return pdbs.every((p) => {
        const a = pdbAllowance(graph, p);
        return a !== undefined && a.allowed >= a.of;
      });
    });
    if (unprotected.length) {
      const names = unprotected.map(nameOf).join(', ');
      const anyPdb = unprotected.some((w) => graph.pdbsFor(w).length > 0);
      reasons.push(
        `${anyPdb ? `the PodDisruptionBudget of ${names} allows every replica to be evicted` : `no PodDisruptionBudget selects ${names}`}, so a drain, a node-pool upgrade or autoscaler consolidation can evict all replicas at once`,
      );
      fixes.push(anyPdb ? `set the PodDisruptionBudget of ${names} to maxUnavailable: 1` : `add a PodDisruptionBudget (maxUnavailable: 1) selecting ${names}`);
    }
  }
  if (ws.length === 1 && ws[0].kind === 'Deployment' && ws[0].deployment) {
    const w = ws[0];
    const b = replicaBasis(graph, w)!;
    const d = rolloutFor(w, b.replicas)!;
    if (d.type === 'Recreate') {
      reasons.push(`its strategy is Recreate, so every rollout removes all replicas before a new one starts`);
      fixes.push('roll out with RollingUpdate keeping one available (maxSurge: 1, maxUnavailable: 0)');
    } else if (d.type === 'RollingUpdate' && d.unavailable >= b.replicas) {
      const how = d.maxUnavailableSet ? `maxUnavailable ${fmtIntOrPercent(d.maxUnavailable)}` : `maxSurge ${fmtIntOrPercent(d.maxSurge)} with the default maxUnavailable`;
      reasons.push(`its rollout (${how}, resolved ${d.unavailable} unavailable of ${b.replicas}) removes every replica before a replacement is Ready`);
      fixes.push('a rollout that keeps one available (maxUnavailable: 0)');
    }
  }
  // One replica rolled out with Recreate is how a program that must not run twice at once says so
  // (antrea-controller: "supports only a single replica"; the Flink operator without leader election):
  // the usual fix would break it, so it is offered only if the program can run twice, with the
  // singleton's own remedy beside it (review round 10).
  const once = ws.length === 1 && ws[0].deployment ? rolloutFor(ws[0], 1) : undefined;
  // (Or a rolling update with maxSurge written as 0: grafana/rollout-operator, review round 11.)
  // (Or RBAC in the input that binds the pods' ServiceAccount to roles granting no lock for leader
  // election: kanister's operator, which the chart runs as one replica; review round 16.)
  const noLock = total === 1 && once ? noLeaderElectionLock(graph, ws[0]) : undefined;
  if (total === 1 && once && (once.type === 'Recreate' || (once.type === 'RollingUpdate' && once.maxSurgeSet && once.surge === 0) || noLock)) {
    const says = noLock && once.type !== 'Recreate' && !(once.maxSurgeSet && once.surge === 0) ? `the roles bound to its ServiceAccount, ${noLock}, grant no leases for leader election` : 'one replica with Recreate or maxSurge 0 says so';
    return {
      workloads: ws,
      who,
      reasons,
      fixes: [
        `if the program can run twice at once (leader election, or no shared state), ${fixes.join('; and ')}; if it must run as one instance (${says}), keep it, give it a high priorityClassName so that its replacement is scheduled first (preempting others), and accept the window`,
      ],
    };
  }
  return { workloads: ws, who, reasons, fixes };
}

/**
 * "CREATE, UPDATE of ingresses (networking.k8s.io)", rules with the same operations and groups
 * merged; undefined when the rules match nothing.
 */
export function scopeOf(rules: Json | undefined): { text: string; createsPods: boolean } | undefined {
  if (!Array.isArray(rules)) return undefined;
  const merged = new Map<string, { head: string; groupText: string; res: string[] }>();
  let createsPods = false;
  for (const r of rules) {
    if (!isObject(r)) continue;
    const ops = Array.isArray(r.operations) ? r.operations.filter((x): x is string => typeof x === 'string') : [];
    const res = Array.isArray(r.resources) ? r.resources.filter((x): x is string => typeof x === 'string') : [];
    const groups = Array.isArray(r.apiGroups) ? r.apiGroups.filter((x): x is string => typeof x === 'string') : [];
    if (!ops.length || !res.length || !groups.length) continue;
    const head = ops.includes('*') ? 'every operation' : ops.join(', ');
    const groupText = groups.includes('*') ? ' (any API group)' : groups.some((g) => g !== '') ? ` (${groups.map((g) => (g === '' ? 'core' : g)).join(', ')})` : '';
    const key = `${head}|${groupText}`;
    const m = merged.get(key) ?? { head, groupText, res: [] };
    for (const x of res) {
      const t = x === '*' || x === '*/*' ? 'every resource' : x;
      if (!m.res.includes(t)) m.res.push(t);
    }
    merged.set(key, m);
    const podRes = res.some((x) => x === 'pods' || x === '*' || x === '*/*');
    const coreGroup = groups.includes('') || groups.includes('*');
    if (podRes && coreGroup && (ops.includes('CREATE') || ops.includes('*'))) createsPods = true;
  }
  if (!merged.size) return undefined;
  const text = [...merged.values()].map((m) => `${m.head} of ${m.res.includes('every resource') ? 'every resource' : m.res.join(', ')}${m.groupText}`).join('; ');
  return { text, createsPods };
}

/** A label selector that selects everything (absent, null, `{}`, or with no requirements). */
function selectsAll(sel: Json | undefined): boolean {
  if (sel === undefined || sel === null) return true;
  if (!isObject(sel)) return false;
  const labels = sel.matchLabels;
  const exprs = sel.matchExpressions;
  return (!isObject(labels) || Object.keys(labels).length === 0) && (!Array.isArray(exprs) || exprs.length === 0);
}

/**
 * What a selector opts out, when it is only an opt-out (every requirement is NotIn or DoesNotExist:
 * it matches everything without those labels), as text; undefined for any other selector. `of` is
 * what it selects: namespaces (the kubernetes.io/metadata.name label names a namespace) or objects.
 */
function optOutLabels(sel: Json | undefined, of: 'namespaces' | 'objects' = 'namespaces'): string | undefined {
  if (!isObject(sel) || (isObject(sel.matchLabels) && Object.keys(sel.matchLabels).length > 0) || !Array.isArray(sel.matchExpressions) || !sel.matchExpressions.length) return undefined;
  const out: string[] = [];
  for (const e of sel.matchExpressions) {
    if (!isObject(e) || typeof e.key !== 'string') return undefined;
    const values = Array.isArray(e.values) ? e.values.filter((v): v is string => typeof v === 'string') : [];
    if (e.operator === 'NotIn' && values.length) out.push(of === 'namespaces' && e.key === 'kubernetes.io/metadata.name' ? `namespace ${values.join(' or ')}` : `${of} labelled ${values.map((v) => `${e.key}=${v}`).join(' or ')}`);
    else if (e.operator === 'DoesNotExist') out.push(`${of} labelled ${e.key}`);
    else return undefined;
  }
  return out.join(' or ');
}

/**
 * Where the webhooks reject requests while no backend is Ready, for messages. A namespaceSelector
 * filters only namespaced objects (and Namespaces by their own labels); the API server never skips
 * a webhook on it for other cluster-scoped objects (ValidatingWebhook.namespaceSelector, API
 * reference). An opt-out selector (NotIn, DoesNotExist) matches every namespace, or every object,
 * without the label: such selectors, on namespaces or on objects (consul's connect injector opts out
 * pods labelled app=consul: review p36), still reject cluster-wide but for what they name.
 * In two parts: the reach, and the note on cluster-scoped objects that it may carry, so that webhooks
 * which differ only in the note share one clause (Kuma's pod injectors, one with a namespaceSelector
 * only, one with an objectSelector too: review p29). A base with a parenthesis is left open, for the
 * note and the closing parenthesis (closeReach).
 */
function reachParts(hooks: JsonObject[]): { base: string; note?: string } {
  // One webhook of the group without selectors already rejects its resources everywhere.
  if (hooks.some((h) => selectsAll(h.objectSelector) && selectsAll(h.namespaceSelector))) return { base: 'cluster-wide' };
  const objSelectors = hooks.map((h) => h.objectSelector).filter((x) => !selectsAll(x));
  const nsSelectors = hooks.map((h) => h.namespaceSelector).filter((x) => !selectsAll(x));
  const nsOuts = nsSelectors.map((x) => optOutLabels(x));
  const objOuts = objSelectors.map((x) => optOutLabels(x, 'objects'));
  if (nsOuts.every((x) => x !== undefined) && objOuts.every((x) => x !== undefined)) {
    const ns = [...new Set(nsOuts as string[])].join(', ');
    const objs = [...new Set(objOuts as string[])].join(', ');
    const what = [ns ? `namespaced objects in ${ns}` : '', objs].filter(Boolean).join(' and for ');
    const by = ns && objs ? 'its selectors only opt those out' : ns ? 'its namespaceSelector only opts those out' : 'its objectSelector only opts those out';
    return { base: `cluster-wide except for ${what} (${by}` };
  }
  const objectSelective = objSelectors.length > 0;
  const note = nsSelectors.length && !objectSelective ? 'a namespaceSelector never exempts cluster-scoped objects' : undefined;
  return { base: 'in the namespaces and for the objects its namespaceSelector/objectSelector match (not cluster-wide', note };
}

/** A reach from reachParts as text, with its note when it has one. */
function closeReach(base: string, note: string | undefined): string {
  return base === 'cluster-wide' ? base : note ? `${base}; ${note})` : `${base})`;
}

/**
 * Whether the webhook's selectors match the backend's own pods, so that with no backend running
 * its replacement pods cannot be admitted either. Undefined when the namespace labels it depends
 * on are not in the set.
 */
function admitsOwnPods(graph: ObjectGraph, hook: JsonObject, w: Workload, ns: string): boolean | undefined {
  const objSel = hook.objectSelector === undefined || hook.objectSelector === null ? { kind: 'empty' as const } : parseLabelSelector(hook.objectSelector);
  if (!matches(objSel, w.templateLabels)) return false;
  const nsSel = hook.namespaceSelector === undefined || hook.namespaceSelector === null ? { kind: 'empty' as const } : parseLabelSelector(hook.namespaceSelector);
  const nsObj = graph.namespace(ns);
  const labels: Labels = { ...stringMap(get(nsObj?.raw, 'metadata', 'labels')), 'kubernetes.io/metadata.name': ns };
  if (!nsObj && nsSel.kind === 'selector' && nsSel.requirements.some((r) => r.key !== 'kubernetes.io/metadata.name')) return undefined;
  return matches(nsSel, labels);
}

/** Recommended label keys that name the program that manages or created an object (Kubernetes' recommended labels). */
const OWNER_KEYS = ['app.kubernetes.io/managed-by', 'app.kubernetes.io/created-by'];

/**
 * The names the program behind the webhook goes by: the \`app.kubernetes.io/name\` label of the
 * webhook configuration, of the backend Service, and of the backend workloads and their pods, and
 * the image name of the workloads' main containers (tidb-operator: its chart labels the webhook
 * objects app.kubernetes.io/name: tidb-operator, and the backend runs pingcap/tidb-operator).
 */
function operatorNames(config: KObject, svc: ServiceView, backend: Backend): Set<string> {
  const out = new Set<string>();
  const add = (v: Json | undefined) => {
    if (typeof v === 'string' && v !== '') out.add(v.toLowerCase());
  };
  add(get(config.raw, 'metadata', 'labels', 'app.kubernetes.io/name'));
  add(get(svc.obj.raw, 'metadata', 'labels', 'app.kubernetes.io/name'));
  for (const w of backend.workloads) {
    add(get(w.obj.raw, 'metadata', 'labels', 'app.kubernetes.io/name'));
    add(w.templateLabels['app.kubernetes.io/name']);
    for (const c of w.containers) if (c.image) add(imageName(c.image));
  }
  return out;
}

/**
 * When the webhook's objectSelector requires app.kubernetes.io/managed-by (or created-by) to name
 * the program behind the webhook (operatorNames), so that it matches only the objects that operator
 * labels as its own and writes (tidb-operator's StatefulSet webhook: objectSelector matchLabels
 * app.kubernetes.io/managed-by: tidb-operator, the label its member managers put on the StatefulSets
 * they create; review round 34, report p50 item 7): that requirement, as text. Not for a webhook on pod
 * CREATE: the pods of those objects are created by the workload controllers, and their replacements
 * after a drain or a node failure would be refused.
 */
function operatorObjectsOnly(hook: JsonObject, names: Set<string>): string | undefined {
  if (scopeOf(hook.rules)?.createsPods) return undefined;
  const sel = parseLabelSelector(hook.objectSelector);
  if (sel.kind !== 'selector') return undefined;
  const r = sel.requirements.find((x) => OWNER_KEYS.includes(x.key) && x.operator === 'In' && x.values.length > 0 && x.values.every((v) => names.has(v.toLowerCase())));
  return r ? `${r.key}=${r.values.join(' or ')}` : undefined;
}

interface Group {
  svcNs: string;
  svcName: string;
  hooks: { name: string; index: number; hook: JsonObject; policyWritten: boolean; url: boolean }[];
  /** The APIService the calls go through, when they reach the Service through the aggregator. */
  via?: string;
}

/**
 * For a webhook whose clientConfig.service is the API server's own Service (default/kubernetes) and
 * whose path is /apis/GROUP/VERSION/...: the Service of the APIService in the input that serves
 * GROUP/VERSION, which the aggregator forwards the call to.
 */
function aggregatedBackend(graph: ObjectGraph, ref: JsonObject, services: ServiceIndex): { namespace: string; name: string; apiService: string } | undefined {
  if (ref.name !== 'kubernetes' || ref.namespace !== 'default' || typeof ref.path !== 'string') return undefined;
  const m = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(ref.path);
  if (!m || services.find('default', 'kubernetes')) return undefined;
  for (const a of graph.ofKind('APIService')) {
    if (get(a.raw, 'spec', 'group') !== m[1] || get(a.raw, 'spec', 'version') !== m[2]) continue;
    const svc = get(a.raw, 'spec', 'service');
    if (isObject(svc) && typeof svc.name === 'string' && typeof svc.namespace === 'string') return { namespace: svc.namespace, name: svc.name, apiService: a.name };
  }
  return undefined;
}

/**
 * Webhooks that ship with no \`rules\` (absent or empty) calling the Service of a program that writes
 * them at run time (catalog writesWebhookRules: knative.dev/pkg's webhook reconcilers, knative/pkg
 * webhook/resourcesemantics/validation/reconcile_config.go "cur.Rules = rules", the registered kinds,
 * and webhook/configmaps/configmaps.go, its ConfigMaps): their scope is written at run time, as for a
 * program that registers its webhooks itself (Kyverno), so the backend is judged; an info, since the
 * scope is the program's own resources (review round 35, report p54 item 4: Tekton Triggers' webhook,
 * one replica, failurePolicy Fail, rules empty in config/500-webhooks.yaml).
 */
function runtimeRules(ctx: RuleContext, services: ServiceIndex, o: KObject, g: Group): void {
  const empty = g.hooks.filter((x) => x.hook.rules === undefined || x.hook.rules === null || (Array.isArray(x.hook.rules) && x.hook.rules.length === 0));
  if (!empty.length || g.via) return;
  const svc = services.find(g.svcNs, g.svcName);
  if (!svc) return;
  const backend = judgeBackend(ctx.graph, svc);
  if (!backend || backend.reasons.length === 0) return;
  const entry = backend.workloads.flatMap((w) => w.containers.filter((c) => c.role === 'main')).map((c) => ctx.catalog.matchContainer(c).find((e) => e.writesWebhookRules)).find((e) => e !== undefined);
  if (!entry) return;
  const many = empty.length > 1;
  const names = empty.map((x) => `"${x.name}"`).join(', ');
  const first = empty[0];
  const policy = empty.every((x) => x.policyWritten) ? 'failurePolicy: Fail' : 'failurePolicy Fail (the v1 default when unset)';
  ctx.report({
    object: o,
    pointer: first.policyWritten ? `/webhooks/${first.index}/failurePolicy` : `/webhooks/${first.index}/clientConfig/${first.url ? 'url' : 'service'}`,
    severity: 'info',
    message: `webhook${many ? 's' : ''} ${names} (${policy}) call${many ? '' : 's'} Service ${g.svcNs}/${g.svcName}, backed by ${backend.who}: ${backend.reasons.join('; and ')}. ${many ? 'Their' : 'Its'} rules are not in the manifest: ${entry.title.endsWith(')') ? entry.title.replace(/\)$/, `; catalog entry ${entry.id})`) : `${entry.title} (catalog entry ${entry.id})`} writes them at run time, so while no backend is Ready the API server rejects ${entry.writesWebhookRules!.rejects}. Fix: ${backend.fixes.join('; and ')}; or failurePolicy: Ignore where admitting ${o.kind === 'MutatingWebhookConfiguration' ? 'unmutated' : 'unchecked'} objects is acceptable; the scope written at run time is the program's own resources, so this is an info: only writes of those fail while no backend is Ready: GitOps controllers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again`,
  });
}

function checkWebhookConfig(ctx: RuleContext, services: ServiceIndex, o: KObject): void {
  const hooks = o.raw.webhooks;
  if (!Array.isArray(hooks)) return;
  // admissionregistration.k8s.io/v1 defaults failurePolicy to Fail; v1beta1 (removed in 1.22) defaulted to Ignore.
  const defaultPolicy = o.apiVersion === 'admissionregistration.k8s.io/v1beta1' ? 'Ignore' : 'Fail';
  const groups = new Map<string, Group>();
  // A Job of the input that patches the configuration's failurePolicy after install decides it.
  const patched = patchedFailurePolicy(ctx.graph, o.kind, o.name);
  hooks.forEach((h, index) => {
    if (!isObject(h)) return;
    const policy = patched?.policy ?? (typeof h.failurePolicy === 'string' ? h.failurePolicy : defaultPolicy);
    if (policy !== 'Fail') return;
    // (A url naming an in-cluster Service by its DNS name counts as that Service; any other url is outside the cluster.)
    const ref = webhookServiceRef(h);
    if (!ref || typeof ref.name !== 'string' || typeof ref.namespace !== 'string') return;
    // A webhook served by an aggregated API calls the API server itself (Service default/kubernetes) at
    // /apis/GROUP/VERSION/...: the aggregator forwards it to that APIService's Service (tidb-operator's
    // admission webhook, openshift/generic-admission-server; review round 11).
    const via = aggregatedBackend(ctx.graph, ref, services);
    const svc = via ? { namespace: via.namespace, name: via.name } : { namespace: ref.namespace, name: ref.name };
    const key = `${svc.namespace}/${svc.name}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { svcNs: svc.namespace, svcName: svc.name, hooks: [], via: via?.apiService }));
    g.hooks.push({ name: typeof h.name === 'string' ? h.name : `#${index}`, index, hook: h, policyWritten: typeof h.failurePolicy === 'string', url: ref.url === true });
  });
  for (const g of groups.values()) {
    const scoped = g.hooks.map((x) => ({ ...x, scope: scopeOf(x.hook.rules) })).filter((x) => x.scope !== undefined);
    if (!scoped.length) {
      runtimeRules(ctx, services, o, g);
      continue;
    }
    const svc = services.find(g.svcNs, g.svcName);
    if (!svc) continue;
    const backend = judgeBackend(ctx.graph, svc);
    if (!backend) continue;
    const first = scoped[0];
    const names = scoped.map((x) => `"${x.name}"`).join(', ');
    // A webhook on pod CREATE whose selectors match its own backend's pods: once every backend pod is
    // gone at once, none can be admitted again, however many replicas and budgets there are (a zone
    // or node failure, a cluster restart: the Kubernetes docs' "avoiding deadlocks in self-hosted webhooks";
    // the kruise chart with createNamespace=false, review round 21).
    const selfHosted = scoped.some((x) => x.scope!.createsPods && backend.workloads.some((w) => admitsOwnPods(ctx.graph, x.hook, w, g.svcNs) === true));
    const pointerOf = () => (first.policyWritten ? `/webhooks/${first.index}/failurePolicy` : `/webhooks/${first.index}/clientConfig/${first.url ? 'url' : 'service'}`);
    if (backend.reasons.length === 0) {
      if (selfHosted)
        ctx.report({
          object: o,
          pointer: pointerOf(),
          severity: 'info',
          message: `webhook${scoped.length > 1 ? 's' : ''} ${names} (failurePolicy Fail) intercept${scoped.length > 1 ? '' : 's'} pod creation, and ${scoped.length > 1 ? 'their' : 'its'} selectors match the pods of ${scoped.length > 1 ? 'their' : 'its'} own backend, ${backend.who}: if every backend pod is gone at once (a zone or node failure, a cluster restart), no replacement can be admitted, a deadlock broken only by deleting the ${o.kind} or exempting the namespace; exclude the backend's namespace or pods with a namespaceSelector or objectSelector (the Kubernetes docs: avoiding deadlocks in self-hosted webhooks)`,
        });
      continue;
    }
    // (The patch is named only where it changes what the manifest says: ingress-nginx writes Fail and patches Fail.)
    const changed = patched && scoped.some((x) => x.hook.failurePolicy === 'Ignore');
    const policy = changed
      ? `failurePolicy Fail, which ${patched.by} writes after install over the Ignore of the manifest`
      : scoped.every((x) => x.policyWritten)
        ? 'failurePolicy: Fail'
        : 'failurePolicy Fail (the v1 default when unset)';
    // What is rejected where: the webhooks grouped by their reach (one webhook without selectors
    // rejects its resources everywhere, another with an opt-in namespaceSelector only there).
    // Webhooks whose reaches differ only in the note on cluster-scoped objects share one clause, with
    // the note when any of them carries it (otherwise the same "CREATE of pods in the namespaces ..."
    // is repeated once per webhook: Kuma's pod injectors, review p29).
    const byReach = new Map<string, { hooks: JsonObject[]; note?: string }>();
    for (const x of scoped) {
      const r = reachParts([x.hook]);
      const l = byReach.get(r.base);
      if (l) {
        l.hooks.push(x.hook);
        l.note ??= r.note;
      } else byReach.set(r.base, { hooks: [x.hook], note: r.note });
    }
    const rejected = [...byReach].map(([base, { hooks, note }]) => `${scopeOf(hooks.flatMap((h) => (Array.isArray(h.rules) ? h.rules : [])))!.text} ${closeReach(base, note)}`).join(', and ');
    const self = selfHosted
      ? `; its selectors also match the backend's own pods, so once no backend runs its replacement cannot be created either (a deadlock broken only by deleting the ${o.kind} or exempting its namespace)`
      : '';
    const pointer = pointerOf();
    // Webhooks that match only custom resources (API groups of no built-in API): while no backend is
    // Ready, only writes of those are rejected, which their clients retry, and the program that acts on
    // them is the one that is down (volcano, cluster-api-operator, kanister, approver-policy; review
    // rounds 13-17). Built-in kinds and pods are blocked cluster-wide: a warning.
    const custom = customResourcesOnly(scoped.map((x) => x.hook));
    // Webhooks whose objectSelector matches only the objects their own operator labels as its own: while
    // no backend is Ready only that operator's writes of them (which its reconciler retries) and manual
    // edits of them fail, the reach of the custom-resource case.
    const opNames = custom ? undefined : operatorNames(o, svc, backend);
    const owned = opNames ? scoped.map((x) => (customResourcesOnly([x.hook]) !== undefined ? '' : operatorObjectsOnly(x.hook, opNames))) : [];
    const operatorOnly = !custom && owned.every((x) => x !== undefined) && owned.some((x) => x) ? [...new Set(owned.filter((x) => x))].join(', ') : undefined;
    const mild = custom
      ? `; they match only custom resources (${custom}), so this is an info: only writes of those fail while no backend is Ready: GitOps controllers and the operator's own reconcilers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again`
      : operatorOnly
        ? `; ${scoped.length > 1 ? 'their objectSelectors match' : 'its objectSelector matches'} only objects labelled ${operatorOnly}, which names the program behind this webhook: the objects it manages and writes itself, so this is an info: while no backend is Ready only writes of those fail: its reconciler retries them, while a manual kubectl edit or apply of them fails and must be run again`
        : '';
    ctx.report({
      object: o,
      pointer,
      severity: mild ? 'info' : 'warning',
      message: `webhook${scoped.length > 1 ? 's' : ''} ${names} (${policy}) call${scoped.length > 1 ? '' : 's'} ${g.via ? `the API server, whose aggregator forwards the call${scoped.length > 1 ? 's' : ''} (APIService ${g.via}) to ` : ''}Service ${g.svcNs}/${g.svcName}, backed by ${backend.who}: ${backend.reasons.join('; and ')}. While no backend is Ready the API server rejects ${rejected}${self}. Fix: ${backend.fixes.join('; and ')}; or ${patched ? `failurePolicy: Ignore and --patch-failure-policy=Ignore in ${patched.by.slice(0, patched.by.indexOf(' ('))}` : 'failurePolicy: Ignore'} where admitting ${o.kind === 'MutatingWebhookConfiguration' ? 'unmutated' : 'unchecked'} objects is acceptable${mild}`,
    });
  }
}

/**
 * The conversion webhook of a CustomResourceDefinition (webhook-calls.ts crdConversionWebhook): it has
 * no failure policy, so while no backend is Ready every read and write of the resource that needs a
 * conversion fails. It converts only that custom resource, so it is judged as a fail-closed admission
 * webhook that matches only custom resources: an info (review round 30: kserve's llmisvc CRDs, whose
 * one-replica controller serves the conversion of v1alpha1 and v1alpha2).
 */
function checkCrdConversion(ctx: RuleContext, services: ServiceIndex, o: KObject): void {
  const conv = crdConversionWebhook(o.raw);
  if (!conv) return;
  const ref = webhookServiceRef({ clientConfig: conv.clientConfig });
  if (!ref || typeof ref.name !== 'string' || typeof ref.namespace !== 'string') return;
  const svc = services.find(ref.namespace, ref.name);
  if (!svc) return;
  const backend = judgeBackend(ctx.graph, svc);
  if (!backend || backend.reasons.length === 0) return;
  const plural = get(o.raw, 'spec', 'names', 'plural');
  const group = get(o.raw, 'spec', 'group');
  const resource = typeof plural === 'string' && typeof group === 'string' ? `${plural} (${group})` : o.name;
  const versions = (get(o.raw, 'spec', 'versions') as Json[]).filter(isObject);
  const served = versions.filter((v) => v.served === true && typeof v.name === 'string').map((v) => v.name as string);
  const storage = versions.find((v) => v.storage === true && typeof v.name === 'string')?.name;
  const stored = typeof storage === 'string' ? `, stored as ${storage}` : '';
  ctx.report({
    object: o,
    pointer: `${conv.pointer}/${ref.url ? 'url' : 'service'}`,
    severity: 'info',
    message: `the conversion webhook of CustomResourceDefinition ${o.name} (no failurePolicy: a conversion webhook always fails closed) calls Service ${ref.namespace}/${ref.name}, backed by ${backend.who}: ${backend.reasons.join('; and ')}. While no backend is Ready the API server fails every read and write of ${resource} that needs a conversion: requests in a served version other than the stored one (served ${served.length ? served.join(', ') : 'none'}${stored}), and any request for objects still stored in an older version (written before the storage version changed), lists and watches included. Fix: ${backend.fixes.join('; and ')}; it converts only custom resources (${typeof group === 'string' ? group : o.name}), so this is an info: only requests for those fail while no backend is Ready: GitOps controllers and the operator's own reconcilers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again`,
  });
}

function checkApiService(ctx: RuleContext, services: ServiceIndex, o: KObject): void {
  const svcRef = get(o.raw, 'spec', 'service');
  if (!isObject(svcRef) || typeof svcRef.name !== 'string' || typeof svcRef.namespace !== 'string') return; // local (built-in) API
  const svc = services.find(svcRef.namespace, svcRef.name);
  if (!svc) return;
  const backend = judgeBackend(ctx.graph, svc);
  if (!backend || backend.reasons.length === 0) return;
  const group = get(o.raw, 'spec', 'group');
  const version = get(o.raw, 'spec', 'version');
  const gv = typeof group === 'string' && typeof version === 'string' ? `${group}/${version}` : o.name;
  const consumers: Record<string, string> = {
    'metrics.k8s.io': '; HorizontalPodAutoscalers on CPU/memory stop scaling and kubectl top fails',
    'custom.metrics.k8s.io': '; HorizontalPodAutoscalers on custom metrics stop scaling',
    'external.metrics.k8s.io': '; HorizontalPodAutoscalers on external metrics stop scaling',
  };
  const extra = typeof group === 'string' ? (consumers[group] ?? '') : '';
  ctx.report({
    object: o,
    pointer: `/spec/service`,
    message: `APIService ${o.name} is served by Service ${svcRef.namespace}/${svcRef.name}, backed by ${backend.who}: ${backend.reasons.join('; and ')}. While no backend is Ready the aggregated API ${gv} is Unavailable: API discovery for the group fails (kubectl prints discovery errors, namespace deletion stalls with NamespaceDeletionDiscoveryFailure)${extra}. Fix: ${backend.fixes.join('; and ')}`,
  });
}

/**
 * A program that registers its fail-closed webhooks itself at run time (a registers-webhooks entry
 * of the catalog: Kyverno's admission controller), so that no webhook configuration is in a render:
 * the Service its webhooks call is judged as the backend of a written failurePolicy: Fail webhook,
 * and the finding is on the workload. Not when the input holds a webhook configuration calling
 * that Service (a dump of the cluster): that configuration is judged as written.
 */
function checkRuntimeWebhooks(ctx: RuleContext, services: ServiceIndex, called: Set<string>): void {
  const done = new Set<string>();
  for (const w of ctx.graph.workloads) {
    if (w.isBatch || passingHelmHook(w.obj)) continue;
    const r = runtimeWebhooks(w);
    if (!r || r.service === undefined) continue;
    const svc = services.find(w.obj.namespace ?? '', r.service);
    if (!svc) continue;
    const key = `${svc.obj.namespace ?? ''}/${svc.obj.name}`;
    if (called.has(key) || done.has(key) || !ctx.graph.workloadsFor(svc).includes(w)) continue;
    done.add(key);
    const backend = judgeBackend(ctx.graph, svc);
    if (!backend || backend.reasons.length === 0) continue;
    const spec = r.entry.registersWebhooks!;
    const open = spec.failOpen?.setting;
    ctx.report({
      object: w.obj,
      pointer: `${r.container.pointer}/image`,
      message: `container "${r.container.name}" runs ${r.entry.title.endsWith(')') ? r.entry.title.replace(/\)$/, `; catalog entry ${r.entry.id})`) : `${r.entry.title} (catalog entry ${r.entry.id})`}, which creates its admission webhook configurations itself at run time (so none is in the input), failing closed (failurePolicy Fail${r.enabledBy.length ? `, as its env sets ${r.enabledBy.join(' and ')}` : ''}) and calling Service ${key} (named by ${r.serviceFrom}), backed by ${backend.who}: ${backend.reasons.join('; and ')}. While no backend is Ready the API server rejects ${spec.rejects}. Fix: ${backend.fixes.join('; and ')}${open ? `; or make the webhooks fail open (${open}) where admitting unchecked objects is acceptable` : ''}`,
    });
  }
}

export const webhookBackendAvailability: Rule = {
  meta: {
    id: 'webhook-backend-availability',
    spec: 'new (PDB-001 and ROLL-001 applied to admission backends)',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'a failurePolicy: Fail admission webhook (also one a known program registers at run time), a CRD conversion webhook or an APIService whose backing workload has 1 replica, no PDB, or a rollout that can take every replica down',
    doc: `An admission webhook with \`failurePolicy: Fail\` makes the API server reject every request it matches while the
webhook cannot be reached; an aggregated APIService that has no Ready backend makes its API group \`Unavailable\`,
which breaks discovery for everyone. When the backend is a single pod, or several pods that a drain may evict
together, routine operations (a node drain, a node-pool upgrade, autoscaler consolidation, the backend's own
rollout) turn into a cluster-wide admission or discovery outage, and a webhook that intercepts pod creation can
even block the pods that would replace the ones the drain evicted.

**Judged objects.**
- \`ValidatingWebhookConfiguration\` / \`MutatingWebhookConfiguration\`: each webhook whose \`failurePolicy\` is \`Fail\` (as written,
  the v1 default when unset, or as a Job of the input patches it after install: kube-webhook-certgen's \`patch
  --webhook-name=NAME --patch-failure-policy=Fail\`, which the ingress-nginx and kubevela charts run as a hook over
  webhooks rendered with \`Ignore\`),
  written or defaulted (\`admissionregistration.k8s.io/v1\` defaults to \`Fail\`; the removed \`v1beta1\` defaulted to
  \`Ignore\`), that calls an in-cluster \`clientConfig.service\` (or a \`clientConfig.url\` that names one by its DNS name,
  \`https://NAME.NAMESPACE.svc[.cluster.local][:PORT]/...\`, as karmada's webhooks do), and whose \`rules\` match something.
  Webhooks of one configuration calling the same Service are reported together. Other \`clientConfig.url\` backends are
  outside the set. A
  webhook that calls the API server itself (\`service: {namespace: default, name: kubernetes}\`) at
  \`/apis/GROUP/VERSION/...\` is served by the APIService of that group and version, whose aggregator forwards the
  call (openshift/generic-admission-server, as tidb-operator's admission webhook uses): it is judged by that
  APIService's backend.
- \`APIService\` with \`spec.service\` (an aggregated API; \`service: null\` is a built-in group and is skipped). There
  is no failure policy: an unavailable aggregated API always fails discovery for its group (kubectl errors,
  namespace deletion stuck with \`NamespaceDeletionDiscoveryFailure\`; for \`metrics.k8s.io\`, HPAs on CPU/memory and
  \`kubectl top\`).
- \`CustomResourceDefinition\` with \`spec.conversion.strategy: Webhook\` and two or more versions, whose
  \`spec.conversion.webhook.clientConfig\` (\`spec.conversion.webhookClientConfig\` in the removed \`v1beta1\`) calls an
  in-cluster Service (or a \`url\` that names one). The API server calls it for every read and write of the resource
  that needs a conversion: requests in a served version other than the stored one, and objects still stored in an
  older version after the storage version changed, lists and watches included. There is no failure policy: such a
  request fails while the webhook cannot be reached. Always an **info** (see below): it converts only custom resources.
- A workload running a program that creates its fail-closed webhook configurations itself at run time, so that a
  chart render holds none (the catalog's \`registers-webhooks\` entries: Kyverno's admission controller, whose webhooks
  call the Service named by \`KYVERNO_SVC\`, default \`kyverno-svc\`, and fail closed for every policy with the default
  \`failurePolicy: Fail\`; the Datadog Cluster Agent, whose pod-mutating webhooks call the Service named by
  \`DD_ADMISSION_CONTROLLER_SERVICE_NAME\` and fail closed only when its env sets \`DD_ADMISSION_CONTROLLER_ENABLED=true\`
  and \`DD_ADMISSION_CONTROLLER_FAILURE_POLICY=Fail\`, its default being \`Ignore\`). The Service its webhooks call, in the workload's namespace, is judged as the backend of a
  written \`failurePolicy: Fail\` webhook, and the finding is on the workload's container. Not when the program's
  arguments or env make the webhooks fail open or call a URL (Kyverno's \`--forceFailurePolicyIgnore=true\`, \`--serverIP\`;
  the Cluster Agent's controller off or its failure policy \`Ignore\`),
  when the Service name is set from elsewhere (\`valueFrom\`), or when the input holds a webhook configuration calling
  that Service (a \`kubectl get\` dump of the cluster): that configuration is then judged as written.
- A webhook with \`failurePolicy: Fail\` that ships with no \`rules\` (absent or empty) because its program writes them
  at run time (the catalog's \`writesWebhookRules\`: the knative.dev/pkg webhooks of Tekton Pipelines and Triggers,
  whose reconcilers write the kinds they registered into the configuration of that name): its backend is judged as
  above, always at **info** (the scope written at run time is the program's own resources), which the message names.
  Any other webhook whose rules match nothing is not judged.

**The backend** is the Service named by namespace and name (a Service written without a namespace also matches by
name) and the workloads its selector matches. Not judged when the Service or its pods are not in the set, or when a
DaemonSet backs it (\`kubectl drain\` skips DaemonSet pods, and their count is the node count). Replicas are
\`spec.replicas\`, or \`minReplicas\` when an HPA targets the workload. Reported when any of:
- **1 replica** in total (a bare Pod counts 1 and is never recreated after a drain);
- **2 or more replicas and no PodDisruptionBudget** selects a backing workload, or its PDB allows evicting all of
  them (\`maxUnavailable\` >= replicas, \`minAvailable: 0\`);
- **a rollout that removes every replica**: \`strategy.type: Recreate\`, or a RollingUpdate whose resolved
  \`maxUnavailable\` (section 4) reaches the replicas (e.g. \`replicas: 1, maxUnavailable: 1\`).

The message also says when the webhook intercepts pod \`CREATE\` and its \`objectSelector\` and
\`namespaceSelector\` match the backend's own pods (judged only when the namespace labels are known: the
\`kubernetes.io/metadata.name\` label, or the Namespace in the set): the webhook's own replacement can then not be
admitted, a deadlock broken only by deleting the configuration. With none of the conditions above (several replicas
and a budget), that self-admission alone is an **info**: every backend pod can still go at once, involuntarily (a
zone or node failure, a cluster restart), and nothing could then be admitted again.

**Not exemptions.** A \`namespaceSelector\`/\`objectSelector\` that excludes the webhook's own namespace avoids that
self-deadlock but still blocks every other namespace it selects; the message then says "in the namespaces and for
the objects its namespaceSelector/objectSelector match" instead of "cluster-wide", or, for selectors that only opt
out (\`NotIn\`, \`DoesNotExist\`: namespaces, as cert-manager's \`cert-manager.io/disable-validation\`, or objects, as
consul's connect injector opts out its own pods by \`app NotIn [consul]\`), "cluster-wide except for namespaced objects in
namespaces labelled ..." (or "in namespace ..." for \`kubernetes.io/metadata.name\`) "and for objects labelled ...": a
namespaceSelector never exempts cluster-scoped objects. \`sideEffects\`, \`timeoutSeconds\`, \`matchPolicy\` and \`matchConditions\` do
not change availability. Whether the backend is "served" in the sense of other rules does not matter: the API server is
its client.

Fix (not automatic: replicas, PDB and spreading are chart values):
\`\`\`yaml
# the webhook's Deployment
spec:
  replicas: 2            # or HPA minReplicas: 2
  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: my-webhook}}
\`\`\`
Plus hostname anti-affinity or topology spread so that one node does not hold every replica. \`failurePolicy: Ignore\`
removes the outage where admitting an unchecked (or unmutated) object is acceptable; for policy enforcement it
is not. A program that must run as one instance (one replica rolled out with \`Recreate\`, or with \`maxSurge: 0\`, says
so: antrea-controller, the Flink operator without leader election, grafana's rollout-operator; so does RBAC in the input
that binds its ServiceAccount only to roles that write to the cluster but grant no leader-election lock, leases of
\`coordination.k8s.io\` or the older configmaps and endpoints locks: kanister's operator) cannot take more replicas: the advice then offers them only if the
program can run twice at once, and otherwise a high \`priorityClassName\` so that its replacement is scheduled first,
accepting the window.

**info** instead of warning when every webhook of the finding matches only custom resources (each rule names only API
groups of no built-in API: not a group kube-apiserver serves, such as \`apps\` or \`networking.k8s.io\`, nor the metrics APIs or the
shared CRD groups of Gateway API, volume snapshots and AdminNetworkPolicy; a \`*.k8s.io\` group of one project, as the Spark
operator's \`sparkoperator.k8s.io\`, is custom; no \`*\` group), such as an operator's webhook on its
own CRDs: while no backend is Ready only writes of those resources fail (GitOps controllers and the operator's own
reconcilers retry; a one-shot \`kubectl apply\` or \`helm upgrade\` fails: client-go retries only a 429 or 5xx with
Retry-After), and nothing else in the cluster is blocked (volcano, cluster-api-operator,
kanister, cert-manager's approver-policy; cert-manager's own webhook, whose resources its controller writes). So is the
conversion webhook of a CustomResourceDefinition (kserve's llmisvc CRDs), which fails the requests for its resource
that need a conversion, reads included. Built-in kinds, pods and \`*\` stay a warning, as do APIServices (discovery).

**info** as well when every webhook of the finding that names a built-in API has an \`objectSelector\` requiring
\`app.kubernetes.io/managed-by\` (or \`app.kubernetes.io/created-by\`) to name the program behind the webhook: the
\`app.kubernetes.io/name\` label of the webhook configuration, of the backend Service or of the backend workload and its
pods, or the image name of the backend's containers. It then matches only the objects that program labels as its own
and writes itself, whose writes its reconciler retries; a manual \`kubectl edit\` of them fails. tidb-operator's
StatefulSet webhook (\`objectSelector: {matchLabels: {app.kubernetes.io/managed-by: tidb-operator}}\`, backend image
\`pingcap/tidb-operator\`) matches only the StatefulSets its member managers create with that label. Not for a webhook
on pod \`CREATE\` (the workload controllers create those pods, and replacements after a drain would be refused), nor
for any other \`objectSelector\` (a label users set, \`managed-by: Helm\`, an opt-out), which stay a warning.`,
    fixable: false,
    references: [
      'https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#avoiding-deadlocks-in-self-hosted-webhooks (and #failure-policy, #matching-requests-namespaceselector)',
      'kubernetes/website tasks/extend-kubernetes/configure-aggregation-layer.md; concepts/extend-kubernetes/api-extension/apiserver-aggregation.md',
      'kubernetes/kubernetes pkg/controller/namespace/deletion (NamespaceDeletionDiscoveryFailure)',
      'https://cert-manager.io/docs/installation/best-practice/#high-availability (webhook: at least 3 replicas, a PodDisruptionBudget)',
      'kubernetes-sigs/metrics-server README (high availability: replicas 2 and a PodDisruptionBudget)',
    ],
  },
  check(ctx) {
    const configs = [...ctx.graph.ofKind('ValidatingWebhookConfiguration'), ...ctx.graph.ofKind('MutatingWebhookConfiguration')];
    const apis = ctx.graph.ofKind('APIService');
    const crds = ctx.graph.ofKind('CustomResourceDefinition');
    const services = new ServiceIndex(ctx.graph.services);
    // The Services that the webhook configurations of the input call (any failure policy).
    const called = new Set<string>();
    for (const o of configs) {
      for (const h of Array.isArray(o.raw.webhooks) ? o.raw.webhooks : []) {
        const ref = isObject(h) ? webhookServiceRef(h) : undefined;
        if (ref && typeof ref.name === 'string' && typeof ref.namespace === 'string') called.add(`${ref.namespace}/${ref.name}`);
      }
    }
    checkRuntimeWebhooks(ctx, services, called);
    for (const o of configs) checkWebhookConfig(ctx, services, o);
    for (const o of apis) checkApiService(ctx, services, o);
    for (const o of crds) checkCrdConversion(ctx, services, o);
  },
};
