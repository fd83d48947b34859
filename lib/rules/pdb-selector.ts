import { Rule } from '../engine/types';
import { isObject, KObject } from '../model/types';
import { matches, stringMap } from '../model/selector';
import { annotationsOf, helmAnnotationList, isHelmHook, lastingHelmHook, runHelmHookJob } from './lb-util';
import { existingPointer, labelsForPdb, nsPhrase, operatorResourcesFor, operatorWorkloads, memberGroup, nearMissBudgets, pdbAllowance, selectsOperatorPods } from './rollout-util';
import { ObjectGraph, PdbView } from '../model/graph';
import { get, Workload } from '../model/workload';
import { nameOf } from './util';

/**
 * Advice for a budget over the pods of several workloads. When its selector is one workload's own
 * spec.selector, which the others' pods also match (openmetadata's server Deployment and its
 * omjob-operator, review round 15), copying that selector changes nothing: the budget needs a label
 * only that workload's template carries, and the others' pods widen what it allows.
 */
function sharedBudgetAdvice(g: ObjectGraph, p: PdbView, lasting: Workload[]): string {
  const key = (sel: unknown) => JSON.stringify(canonicalSelector(sel));
  const own = lasting.filter((w) => key(get(w.obj.raw, 'spec', 'selector')) === key(p.selectorRaw));
  if (own.length !== 1) return 'one budget counts the pods of all of them, so the pods of one can use up or widen the disruptions the others are allowed; use one PodDisruptionBudget per workload, selecting only its pods (its spec.selector.matchLabels, with a label only its template carries where other workloads share those labels)';
  const w = own[0];
  const others = lasting.filter((x) => x !== w).map(nameOf).join(', ');
  const a = pdbAllowance(g, p);
  const r = g.effectiveReplicas(w);
  const widened = a && r !== undefined && a.of > r ? ` it counts ${a.of} pods, ${r} of them ${nameOf(w)}'s, and allows ${a.allowed} disruption${a.allowed === 1 ? '' : 's'}${a.allowed >= r ? `: a drain may evict every pod of ${nameOf(w)} at once` : ''};` : '';
  return `the selector is ${nameOf(w)}'s own spec.selector, which the pods of ${others} also match, so copying it changes nothing:${widened} add a label that only ${nameOf(w)}'s template carries (e.g. app.kubernetes.io/component) and select it in the budget (the workload's own selector can stay: it is immutable)`;
}

/**
 * How long the pods of a Job that shares a budget exist, when they do not stay: undefined for a Job
 * that stays after it ran (and for a CronJob, whose Jobs recur, or a DaemonSet). The disruption
 * controller lists every pod the selector matches, whatever its phase (getPodsForPdb), and
 * getExpectedScale fails on a Job's pod, Completed ones included ("jobs.batch does not implement the
 * scale subresource"), so failSafe sets disruptionsAllowed to 0 until the Job's last pod is deleted
 * (kubernetes/kubernetes @003e8629 pkg/controller/disruption/disruption.go). The TTL-after-finished
 * controller deletes a finished Job "cascadingly, that is to say it will delete its dependent objects
 * together with it" (https://kubernetes.io/docs/concepts/workloads/controllers/ttlafterfinished/);
 * Helm deletes a hook-succeeded hook once its phase succeeded (helm/helm @e9b85e4d
 * pkg/action/hooks.go deleteHookByPolicy, background propagation), Argo CD a HookSucceeded one
 * ("deleted after the hook succeeded", https://argo-cd.readthedocs.io/en/stable/user-guide/resource_hooks/).
 * LiteLLM's migrations Job, an Argo CD PreSync hook with ttlSecondsAfterFinished: 120, zeroes its
 * server's budget for its run plus 2 minutes at each deploy (review round 34, report p48 item 2).
 */
export function boundedJobWindow(o: KObject): string | undefined {
  if (o.kind !== 'Job') return undefined;
  const ttl = get(o.raw, 'spec', 'ttlSecondsAfterFinished');
  if (typeof ttl === 'number') return `its run plus ttlSecondsAfterFinished, ${ttl}s, after it finishes: the TTL controller then deletes it with its pods`;
  if (isHelmHook(o) && helmAnnotationList(o, 'helm.sh/hook-delete-policy').includes('hook-succeeded')) return 'its run: Helm deletes it when its hook phase succeeds (hook-succeeded; a failed run stays)';
  const argo = String(annotationsOf(o)['argocd.argoproj.io/hook-delete-policy'] ?? '').split(',').map((x) => x.trim());
  if (annotationsOf(o)['argocd.argoproj.io/hook'] !== undefined && argo.includes('HookSucceeded')) return 'its run: Argo CD deletes it when it succeeds (HookSucceeded; a failed run stays)';
  return undefined;
}

/** Why the pods of a workload without a scale subresource stay under the budget (the error's reason). */
function lastingWhy(w: Workload): string {
  if (w.kind === 'DaemonSet') return `the pods of ${nameOf(w)} run for good`;
  if (w.kind === 'CronJob') return `${nameOf(w)} creates Jobs on its schedule and keeps the last ones with their pods (successfulJobsHistoryLimit, default 3)`;
  if (isHelmHook(w.obj)) return `${nameOf(w)}, a Helm hook without hook-succeeded or ttlSecondsAfterFinished, stays after it ran with its Completed pod (Helm deletes it only before the hook runs again)`;
  return `${nameOf(w)} sets no ttlSecondsAfterFinished and stays after it ran, with its Completed pod`;
}

/**
 * The repair for pods matched by two or more budgets, computed from the selectors and the pods'
 * labels. When exactly one budget selects only these pods and each other one also selects the pods
 * of other workloads, the other ones can be narrowed: a label of those other workloads' own
 * spec.selector (their pods carry it for as long as the workload exists) that these pods do not
 * carry, added to the budget's matchLabels, keeps it over them and takes these pods out. bitnami postgresql-ha's data budget selects {instance, name, component:
 * postgresql} without role: data, so it also matches the witness pods, which have their own budget
 * (review round 35, report p53 item 4). When every budget selects only these pods, all but one
 * are redundant. Otherwise the generic advice.
 */
function doubleBudgetAdvice(g: ObjectGraph, w: Workload, pdbs: PdbView[]): string {
  const generic = `keep a single PodDisruptionBudget selecting ${labelsForPdb(w)}`;
  // The other workloads each budget also selects (a Helm hook that does not stay does not count).
  const sharers = new Map(pdbs.map((p) => [p, g.workloadsForPdb(p).filter((x) => x !== w && (!isHelmHook(x.obj) || (lastingHelmHook(x.obj) && x.kind !== 'Pod')))]));
  const shared = pdbs.filter((p) => sharers.get(p)!.length || operatorResourcesFor(g, p.obj.namespace, p.selector).length);
  const own = pdbs.filter((p) => !shared.includes(p));
  if (!shared.length) return own.length === 2 ? `${own[0].obj.name} and ${own[1].obj.name} both select only these pods: delete one of them` : `${own.map((p) => p.obj.name).join(', ')} all select only these pods: delete all but one of them`;
  if (own.length !== 1) return generic;
  const narrowings: string[] = [];
  for (const p of shared) {
    const others = sharers.get(p)!;
    if (!others.length || p.selector.kind !== 'selector') return generic;
    const required = new Set(p.selector.requirements.map((r) => r.key));
    const selectorLabels = (x: Workload) => stringMap(get(x.obj.raw, 'spec', 'selector', 'matchLabels'));
    const carried = (k: string, v: string) => others.every((x) => x.templateLabels[k] === v) && w.templateLabels[k] !== v && !required.has(k);
    // Only a label of their own spec.selector (immutable, on every pod they make), not one such as
    // a chart version that the next release changes.
    const best = Object.entries(selectorLabels(others[0])).find(([k, v]) => carried(k, v) && others.every((x) => selectorLabels(x)[k] === v));
    if (!best) return generic;
    narrowings.push(`add ${best[0]}: ${best[1]} to PodDisruptionBudget/${p.obj.name}'s spec.selector.matchLabels (the pods of ${others.map(nameOf).join(', ')} carry it, these do not)`);
  }
  // Deleting the budget of these pods instead leaves them to the shared one, which is the design
  // only for the members of one group (the shared-budget warning above holds otherwise).
  const group = shared.length === 1 ? memberGroup([w, ...sharers.get(shared[0])!]) : undefined;
  const orDelete = group ? `; or delete ${own[0].obj.name} and let ${shared[0].obj.name} count these pods with those of ${sharers.get(shared[0])!.map(nameOf).join(', ')} (${group}: the members of one app, which one budget may cover)` : '';
  return `${narrowings.join(', and ')}, so that ${own[0].obj.name} alone selects these pods${orDelete}`;
}

/** A label selector as matchLabels and matchExpressions in a fixed order, for comparison. */
function canonicalSelector(sel: unknown): unknown {
  if (!isObject(sel)) return sel;
  const ml = isObject(sel.matchLabels) ? Object.fromEntries(Object.entries(sel.matchLabels).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : {};
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.map((e) => JSON.stringify(e)).sort() : [];
  return { ml, me };
}

/**
 * A budget whose label selector (neither null, invalid nor {}) matches no workload the linted set
 * could hold: there are workloads to judge it against, yet none of them, no pod in the set and no
 * custom resource an operator makes pods from carries the labels it selects, so it protects nothing
 * (pdb-selector's warning). False for a budget linted alone (no workload of its namespace in the
 * set, none elsewhere that it matches): nothing to judge it against, as for a Service
 * (service-selector-ports); a workload of another namespace that it matches suggests the wrong
 * namespace.
 */
export function matchesNoWorkload(g: ObjectGraph, p: PdbView): boolean {
  if (p.selector.kind !== 'selector' || g.workloadsForPdb(p).length) return false;
  if (!g.hasWorkloadsIn(p.obj.namespace) && !g.workloads.some((w) => matches(p.selector, w.templateLabels))) return false;
  // Pods an operator creates from a custom resource in the set (Prometheus, Alertmanager...).
  if (operatorResourcesFor(g, p.obj.namespace, p.selector).length) return false;
  // Pods of a controller not in the set (`kubectl get pods,pdb -o yaml`).
  if (g.ownedSelected(p.obj.namespace, p.selector).length) return false;
  return true;
}

export const pdbSelector: Rule = {
  meta: {
    id: 'pdb-selector',
    spec: 'PDB-003',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'PDB selector null/empty, matches nothing, matches several workloads, or pods matched by two PDBs',
    doc: `A PodDisruptionBudget protects exactly the pods its label selector matches.

Conditions:
- **error:** \`spec.selector\` is absent or \`null\`: in policy/v1 it matches no pods, so the budget protects nothing
  (an invalid selector is reported the same way).
- **warning:** \`spec.selector: {}\`: it matches every pod in the namespace.
- **warning:** the selector matches no workload in the linted set (a stale or mistyped label). Not reported when the
  set holds no workload of the namespace and none elsewhere that it matches (the budget linted alone: nothing to
  judge it against; a workload of another namespace that it matches suggests the wrong namespace), when pods in the set
  match it (a \`kubectl get pods,pdb\` dump: their controller is not in the set), or when a custom resource in the
  namespace carries labels the selector matches (its own, or pod labels in its spec such as
  \`spec.podMetadata.labels\`): an operator creates those pods. For prometheus-operator's \`Prometheus\`,
  \`PrometheusAgent\`, \`Alertmanager\` and \`ThanosRuler\` the labels are those the operator puts on their pods
  (\`app.kubernetes.io/name\`, \`operator.prometheus.io/name\`, \`operator.prometheus.io/shard\` per shard, \`alertmanager: NAME\`,
  ... over \`spec.podMetadata.labels\`), not the resource's own. When the selector misses the pods of one workload that no budget protects
  by one label value (the same key, with a value that contains the wanted one or is a near spelling of it; among
  several, the one the budget is named after), the message names that workload and the label to correct.
- **error:** a pod template is matched by **two or more** PDBs: the eviction API then refuses every eviction of those
  pods with HTTP 500 ("This pod has more than one PodDisruptionBudget, which the eviction subresource does not
  support"), whatever the budgets allow, so drains stall. Reported once per workload, at its template labels, and
  once per StatefulSet that prometheus-operator makes for a Prometheus, PrometheusAgent, Alertmanager or ThanosRuler
  (at the resource's \`spec.podMetadata.labels\`). The message names the repair it can compute from the selectors and
  the pods' labels: when one budget selects only these pods and each other one also selects the pods of other
  workloads, the label to add to the other one's \`matchLabels\` (one of those other workloads' own \`spec.selector\` that
  these pods do not carry: bitnami postgresql-ha's data budget lacks \`role: data\`, so it
  also selects the witness pods, which have their own budget), and, when these pods and the others are the members of
  one group (see the shared-budget warning below), deleting these pods' own budget instead; when every budget selects
  only these pods, deleting all but one.
- **warning:** the selector matches pods of several workloads: the docs advise one budget per controller; a shared
  budget lets one workload's disruptions use up the other's allowance. Not reported when every matched workload is a
  StatefulSet of one \`rollout-group\` (grafana/rollout-operator's zone-aware StatefulSets, Loki's and Mimir's
  ingesters per zone): one budget over the group, allowing one pod down across all zones, is the design; nor when
  they are StatefulSets that run the same images (the members of one clustered app, one StatefulSet each, as the
  neo4j chart makes them; ECK's node sets, which ECK covers with one budget): one budget over the members keeps the
  quorum, and one per member would not. Helm hooks (\`helm.sh/hook\`, such as the test
  Pod \`helm create\` labels like the Deployment) do not count, except an install, upgrade or rollback hook Job that stays after it ran (no
  \`hook-succeeded\` in its \`helm.sh/hook-delete-policy\`, no \`ttlSecondsAfterFinished\`): Helm deletes it only before
  the hook runs again, and its Completed pod stays under the budget.
- **error** instead, when among those workloads is a Job, CronJob or DaemonSet and the budget is sized from its
  controllers' scale (\`maxUnavailable\`, or a percentage \`minAvailable\`), and their pods stay: the disruption
  controller lists every pod the selector matches, whatever its phase, cannot size the budget over a pod of such a
  controller, Completed ones included ("does not implement the scale subresource"), and allows no disruption, so every
  eviction of a Ready pod it selects is refused (HTTP 429; Completed and Pending pods are evicted without a budget
  check). Their pods stay for a Job without \`ttlSecondsAfterFinished\` (openfga's migration Job carries the server's
  labels), a Helm hook Job that stays after it ran, a CronJob (its Jobs recur and the last ones are kept) and a
  DaemonSet.
- **warning** instead of that error, naming the window, when those are Jobs whose pods go after their run: a
  \`ttlSecondsAfterFinished\` (the TTL controller deletes the finished Job with its pods), or a hook deleted when it
  succeeds (Helm's \`hook-succeeded\`, Argo CD's \`HookSucceeded\`), Helm hook Jobs of the install, upgrade and
  rollback phases included: drains wait for the Job's run (plus the TTL) each time it runs (LiteLLM's migrations Job,
  an Argo CD PreSync hook with \`ttlSecondsAfterFinished: 120\`).

Fix: copy the workload's \`spec.selector.matchLabels\` into the PDB (one PDB per workload):
\`\`\`yaml
spec:
  selector:
    matchLabels: {app: web}   # = the Deployment's spec.selector.matchLabels
\`\`\``,
    fixable: false,
    references: [
      'kubernetes/kubernetes pkg/registry/core/pod/storage/eviction.go',
      'kubernetes/website content/en/docs/tasks/run-application/configure-pdb.md',
      'kubernetes/kubernetes staging/src/k8s.io/api/policy/v1/types.go (null selector selects no pods; {} selects all)',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    for (const p of g.pdbs) {
      const spec = p.obj.raw.spec;
      const ns = nsPhrase(p.obj);
      if (p.selector.kind === 'null') {
        ctx.report({
          object: p.obj,
          pointer: isObject(spec) && 'selector' in spec ? '/spec/selector' : existingPointer(p.obj.raw, 'spec'),
          severity: 'error',
          message: `no spec.selector: in policy/v1 a null selector matches no pods, so the budget protects nothing; copy the workload's spec.selector.matchLabels into it`,
        });
        continue;
      }
      if (p.selector.kind === 'invalid') {
        ctx.report({
          object: p.obj,
          pointer: '/spec/selector',
          severity: 'error',
          message: `spec.selector is invalid (${p.selector.reason}), so it matches no pods and the API rejects it; copy the workload's spec.selector.matchLabels into it`,
        });
        continue;
      }
      const matched = g.workloadsForPdb(p);
      if (p.selector.kind === 'empty') {
        ctx.report({
          object: p.obj,
          pointer: '/spec/selector',
          severity: 'warning',
          message: `spec.selector is {} and matches every pod${ns} (${matched.length} workload${matched.length === 1 ? '' : 's'} in the set): one budget then governs unrelated pods; select one workload's pods with its spec.selector.matchLabels`,
        });
        continue;
      }
      if (matched.length === 0) {
        if (!matchesNoWorkload(g, p)) continue;
        const near = nearMissBudgets(g).byPdb.get(p);
        ctx.report({
          object: p.obj,
          pointer: '/spec/selector',
          severity: 'warning',
          message: near
            ? `spec.selector matches no workload${ns} in the linted set, so the budget protects nothing; it comes closest to ${nameOf(near.w)}, whose pods carry ${near.key}: ${near.has} where the budget selects ${near.key}: ${near.want}: correct that label in the budget`
            : `spec.selector matches no workload${ns} in the linted set, so the budget protects nothing; check the labels against the workload's spec.selector.matchLabels`,
          absence: true,
        });
        continue;
      }
      // A Helm hook (the test Pod `helm create` writes with the chart's labels) does not share the
      // budget with the workload, unless it is a Job that stays after it ran (lastingHelmHook).
      const lasting = matched.filter((w) => !isHelmHook(w.obj) || (lastingHelmHook(w.obj) && w.kind !== 'Pod'));
      // A budget sized from its controllers' scale (maxUnavailable, or a percentage minAvailable)
      // over the pods of a controller without a scale subresource (a Job, CronJob or DaemonSet):
      // the disruption controller fails to size it ("does not implement the scale subresource") and
      // allows no disruption while one of their pods exists, Completed ones included, so every
      // eviction of a Ready pod it selects is refused (eviction.go checkAndDecrement: 429 while
      // disruptionsAllowed is 0; canIgnorePDB lets Succeeded, Failed and Pending pods go). An error
      // when those pods stay (openfga's migration Job, review round 23); a warning naming the window
      // when they are Jobs that go after their run: a TTL, or a hook deleted when it succeeds,
      // Helm hook Jobs included (review round 34, report p48 item 2).
      const scaled = p.maxUnavailable !== undefined || (p.minAvailable !== undefined && p.minAvailable.kind === 'percent');
      const passing = scaled ? matched.filter((w) => runHelmHookJob(w.obj)) : [];
      const sharing = [...lasting, ...passing];
      const noScale = scaled ? sharing.filter((w) => w.kind === 'Job' || w.kind === 'CronJob' || w.kind === 'DaemonSet') : [];
      const staying = noScale.filter((w) => boundedJobWindow(w.obj) === undefined);
      const budgetKind = p.maxUnavailable !== undefined ? 'maxUnavailable' : 'percentage minAvailable';
      const refusal = (when: string) => `${when}, the disruption controller cannot size a ${budgetKind} budget over them ("does not implement the scale subresource") and allows no disruption, so every eviction of a Ready pod it selects is refused (429) and node drains ${staying.length ? 'stall' : 'wait'}`;
      const completed = 'its Completed pod blocks as much as a Running one: the controller lists every pod the selector matches, whatever its phase';
      if (sharing.length >= 2 && staying.length) {
        ctx.report({
          object: p.obj,
          pointer: '/spec/selector',
          severity: 'error',
          message: `spec.selector matches the pods of ${sharing.length} workloads (${sharing.map(nameOf).join(', ')}), among them those of ${noScale.map(nameOf).join(', ')}, whose controller has no scale subresource: ${refusal('while any of their pods exists, Completed ones included')}; ${staying.map(lastingWhy).join(', and ')}, so the refusals do not end; ${sharedBudgetAdvice(g, p, sharing)}`,
        });
      } else if (sharing.length >= 2 && noScale.length) {
        const windows = noScale.map((w) => `${nameOf(w)} (${boundedJobWindow(w.obj)})`).join(' or ');
        ctx.report({
          object: p.obj,
          pointer: '/spec/selector',
          severity: 'warning',
          message: `spec.selector matches the pods of ${sharing.length} workloads (${sharing.map(nameOf).join(', ')}), among them those of ${noScale.map(nameOf).join(', ')}, whose controller has no scale subresource: ${refusal(`while a pod of ${windows} exists, each time it runs`)}; ${completed}; ${sharedBudgetAdvice(g, p, sharing)}`,
        });
      } else if (lasting.length >= 2 && !memberGroup(lasting)) {
        ctx.report({
          object: p.obj,
          pointer: '/spec/selector',
          severity: 'warning',
          message: `spec.selector matches the pods of ${lasting.length} workloads (${lasting.map(nameOf).join(', ')}): ${sharedBudgetAdvice(g, p, lasting)}`,
        });
      }
    }
    for (const w of g.workloads) {
      const pdbs = g.pdbsFor(w);
      if (pdbs.length < 2) continue;
      const labelsPtr = w.templatePointer ? existingPointer(w.obj.raw, ...w.templatePointer.slice(1).split('/'), 'metadata', 'labels') : existingPointer(w.obj.raw, 'metadata', 'labels');
      ctx.report({
        object: w.obj,
        pointer: labelsPtr,
        severity: 'error',
        message: `its pods are matched by ${pdbs.length} PodDisruptionBudgets (${pdbs.map((p) => p.obj.name).join(', ')}): the eviction API refuses to evict a pod with more than one budget (HTTP 500), so drains stall; ${doubleBudgetAdvice(g, w, pdbs)}`,
      });
    }
    // The pods prometheus-operator makes (no pod template in the input): the same refusal.
    for (const ow of operatorWorkloads(g)) {
      const inNs = g.pdbs.filter((p) => (p.obj.namespace ?? '') === (ow.obj.namespace ?? ''));
      for (const grp of ow.groups) {
        const pdbs = inNs.filter((p) => selectsOperatorPods(p.selector, grp));
        if (pdbs.length < 2) continue;
        ctx.report({
          object: ow.obj,
          pointer: existingPointer(ow.obj.raw, 'spec', 'podMetadata', 'labels'),
          severity: 'error',
          message: `the pods of StatefulSet/${grp.name}, which prometheus-operator makes for ${ow.kind}/${ow.obj.name}, are matched by ${pdbs.length} PodDisruptionBudgets (${pdbs.map((p) => p.obj.name).join(', ')}): the eviction API refuses to evict a pod with more than one budget (HTTP 500), so drains stall; keep a single PodDisruptionBudget over them`,
        });
      }
    }
  },
};
