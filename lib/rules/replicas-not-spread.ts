import { Fix, Rule } from '../engine/types';
import { SERVED_STATUS_DOC } from '../model/traffic';
import { availabilityServed, availabilityServedNote } from './rollout-full-outage';
import { KubeVersion } from '../engine/version';
import { isObject, JsonObject } from '../model/types';
import { Workload } from '../model/workload';
import { antiAffinityTerms, hostPortBindings, hostPortsPhrase, HOSTNAME_KEY, ownLabels, spreadConstraints, unknownReservedKey, WELL_KNOWN_NODE_LABELS, ZONE_KEYS } from './mesh-util';
import { existingPointer, nearLabelValue, nodePinning, operatorResourcesFor, pdbAllowance, ReplicaBasis, replicaBasis } from './rollout-util';
import { matches, parseLabelSelector } from '../model/selector';
import { escapeSegment } from '../model/parse';
import { ObjectGraph } from '../model/graph';
import { sharedClaimDecision } from './surge-volume-deadlock';
import { customResourceWebhookBackend, customResourceWebhookPhrase } from './pdb-missing';

const KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);
/** When DoNotSchedule is meant (the message says it, so the advice is not read as "always hard"). */
const DONOTSCHEDULE_NOTE = ' (ScheduleAnyway spreads when it can and never leaves a pod Pending; use DoNotSchedule only where co-located replicas are worse than a pod that cannot schedule';

const SPREAD_KEYS = new Set([HOSTNAME_KEY, ...ZONE_KEYS]);

/**
 * The spreading keys written one level or more above the pod spec, where the API server drops them as
 * unknown fields (a warning on apply; a rejection with --validate=strict): `topologySpreadConstraints`,
 * or an `affinity` with `podAntiAffinity`, in a PodTemplateSpec (`spec.template.topologySpreadConstraints`)
 * or a workload spec. pgadmin4's chart (rowanruseler/helm-charts charts/pgadmin4
 * templates/deployment.yaml) writes its topologySpreadConstraints value at the template's level, so
 * the user's spread is silently lost (review round 33, report p45 item 2). Only the two keys this rule reads:
 * kubegrace is no schema validator.
 */
export function misplacedSpread(w: Workload): { key: string; pointer: string }[] {
  const segs = w.podSpecPointer.split('/').slice(1);
  const out: { key: string; pointer: string }[] = [];
  // Each ancestor object of the pod spec below the object's root, nearest first.
  for (let n = segs.length - 1; n >= 1; n--) {
    let cur: unknown = w.obj.raw;
    for (const seg of segs.slice(0, n)) cur = isObject(cur as JsonObject) ? (cur as JsonObject)[seg] : undefined;
    if (!isObject(cur as JsonObject)) continue;
    const o = cur as JsonObject;
    const at = `/${segs.slice(0, n).map(escapeSegment).join('/')}`;
    if (Array.isArray(o.topologySpreadConstraints) && o.topologySpreadConstraints.length) out.push({ key: 'topologySpreadConstraints', pointer: `${at}/topologySpreadConstraints` });
    if (isObject(o.affinity) && isObject(o.affinity.podAntiAffinity)) out.push({ key: 'affinity', pointer: `${at}/affinity` });
  }
  return out;
}

/**
 * A soft hostname spread over the pods' identifying labels (the selector's matchLabels when they
 * are plain labels of the template, else the template labels); matchLabelKeys keeps a Deployment's
 * rollout from counting old pods (>= 1.27). A proposal: it changes scheduling.
 */
function spreadFix(w: Workload, version: KubeVersion): Fix | undefined {
  const sel = isObject(w.obj.raw.spec) && isObject(w.obj.raw.spec.selector) ? w.obj.raw.spec.selector : undefined;
  const ml = sel && isObject(sel.matchLabels) ? sel.matchLabels : undefined;
  const fromSelector =
    ml && Object.keys(ml).length > 0 && Object.entries(ml).every(([k, v]) => w.templateLabels[k] === String(v)) ? Object.fromEntries(Object.keys(ml).map((k) => [k, w.templateLabels[k]])) : undefined;
  const labels: Record<string, string> = fromSelector ?? { ...w.templateLabels };
  if (!Object.keys(labels).length) return undefined;
  const constraint: JsonObject = { maxSkew: 1, topologyKey: HOSTNAME_KEY, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } };
  if (w.kind === 'Deployment' && version.atLeast(1, 27)) constraint.matchLabelKeys = ['pod-template-hash'];
  return {
    description: `add a topologySpreadConstraint spreading ${w.kind}/${w.obj.name} over ${HOSTNAME_KEY} (ScheduleAnyway)`,
    safety: 'proposal',
    edits: [{ op: 'append', pointer: `${w.podSpecPointer}/topologySpreadConstraints`, value: constraint }],
  };
}

/**
 * A spreading rule's selector that matches no pod of the input but misses the workload's own pod
 * labels by one value under the same key (a value that contains the pods' one, or a near spelling:
 * the style of nearMissBudgets). bitnami/dremio's executor builds its hard anti-affinity with
 * `component: executor-default` while the pods carry `component: executor` (and `engine: default`),
 * so the term selects no pod and keeps nothing apart (review round 25). Not for terms over other
 * namespaces (namespaces, namespaceSelector: pods the input may not hold), nor when a workload, pods
 * of a controller not in the set or an operator's pods in the input carry the labels.
 */
export interface DeadSelector {
  key: string;
  want: string;
  has: string;
  /** The pointer of the wrong value, when it is written in matchLabels (what a proposal corrects). */
  valuePointer?: string;
}

function deadSelector(graph: ObjectGraph, w: Workload, rule: JsonObject, pointer: string): DeadSelector | undefined {
  const nsList = rule.namespaces;
  if ((Array.isArray(nsList) && nsList.length > 0) || (rule.namespaceSelector !== undefined && rule.namespaceSelector !== null)) return undefined;
  const sel = parseLabelSelector(rule.labelSelector);
  if (sel.kind !== 'selector' || sel.requirements.some((r) => r.operator !== 'In' || r.values.length !== 1)) return undefined;
  const miss = sel.requirements.filter((r) => w.templateLabels[r.key] !== r.values[0]);
  if (miss.length !== 1) return undefined;
  const r = miss[0];
  const has = w.templateLabels[r.key];
  if (has === undefined || !nearLabelValue(r.values[0], has)) return undefined;
  const ns = w.obj.namespace;
  if (graph.workloads.some((x) => matches(sel, x.templateLabels)) || graph.ownedSelected(ns, sel).length || operatorResourcesFor(graph, ns, sel).length) return undefined;
  const ml = isObject(rule.labelSelector) && isObject(rule.labelSelector.matchLabels) ? rule.labelSelector.matchLabels : undefined;
  const inMatchLabels = ml !== undefined && ml[r.key] !== undefined && String(ml[r.key]) === r.values[0];
  return { key: r.key, want: r.values[0], has, valuePointer: inMatchLabels ? `${pointer}/labelSelector/matchLabels/${escapeSegment(r.key)}` : undefined };
}

/** What spreads the pods across nodes or zones, in words, as the rule counts it; undefined when nothing does. */
function spreadBy(w: Workload): string | undefined {
  const c = spreadConstraints(w).find((x) => x.selectsOwn && x.topologyKey !== undefined && SPREAD_KEYS.has(x.topologyKey));
  if (c) return `topologySpreadConstraints on ${c.topologyKey}`;
  const t = antiAffinityTerms(w).find((x) => x.selectsOwn && x.topologyKey !== undefined && SPREAD_KEYS.has(x.topologyKey));
  if (t) return `pod anti-affinity on ${t.topologyKey}`;
  // Host ports: two of these pods never share a node (kube-scheduler's NodePorts filter), like a
  // required hostname anti-affinity (the upstream minio example's hostPort 9000).
  const ports = hostPortBindings(w);
  return ports.length ? `host ports (${hostPortsPhrase(ports)}): at most one pod per node` : undefined;
}

/**
 * The rule's decision for one workload, shared with explain: its replicas, whether a node pin or
 * the spreading the rule counts applies, and whether it is reported (`fires`: a served Deployment,
 * StatefulSet or ReplicaSet with at least 2 replicas, not pinned to a node, and not spread).
 */
export interface SpreadDecision {
  basis?: ReplicaBasis;
  /** How the pods are pinned to one node (nodeName, a hostname nodeSelector or node affinity). */
  pinned?: string;
  /** What spreads them ("topologySpreadConstraints on kubernetes.io/hostname"). */
  spreadBy?: string;
  /**
   * The exclusive claim every replica mounts (surge-volume-deadlock): `PVC "data" (ReadWriteOnce)`.
   * Replicas on other nodes cannot attach it, so spreading them is not advised.
   */
  sharedClaim?: string;
  fires: boolean;
}

export function spreadDecision(graph: ObjectGraph, w: Workload): SpreadDecision {
  const basis = replicaBasis(graph, w);
  const pinned = nodePinning(w);
  const by = spreadBy(w);
  const inScope = KINDS.has(w.kind) && availabilityServed(graph, w) && basis !== undefined && basis.replicas >= 2;
  const shared = sharedClaimDecision(graph, w)?.claims[0];
  const sharedClaim = shared && `PVC "${shared.claim.claimName}" (${shared.exclusivity === 'pod' ? 'ReadWriteOncePod' : 'ReadWriteOnce'})`;
  return { basis, pinned, spreadBy: by, sharedClaim, fires: inScope && !pinned && !by && !sharedClaim };
}

export const replicasNotSpread: Rule = {
  meta: {
    id: 'replicas-not-spread',
    spec: 'SPREAD-001',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'replicas >= 2 with neither hostname/zone anti-affinity nor topology spread',
    doc: `Replicas protect availability only if they do not share a failure domain. Without a spreading rule the
scheduler's default, soft spreading is all there is: several replicas can land on one node, and a single node failure
then takes them together. A drain of that node evicts them together too, unless a PodDisruptionBudget holds it to a
few evictions at a time; then the drain waits for each replacement to become Ready on another node (and stalls when
none fits), while the service runs on what is left. The message says which of the two the linted set shows.

**Condition (warning):** a served Deployment, StatefulSet or ReplicaSet with \`replicas >= 2\` (HPA \`minReplicas\`
when an HPA targets it) that has neither
- a pod anti-affinity term (required or preferred) on \`kubernetes.io/hostname\` or a zone key whose
  \`labelSelector\` selects its own pod labels, nor
- a \`topologySpreadConstraints\` entry with \`topologyKey\` \`kubernetes.io/hostname\` or
  \`topology.kubernetes.io/zone\` whose \`labelSelector\` selects its own pod labels.

**Info** instead when the workload's only client is the API server calling admission webhooks that match only custom
resources (or CRD conversion webhooks): every Service that routes client traffic to it is called by the API server alone, on
each of its client ports, and its webhooks fail closed and name only API groups of
no built-in API (External Secrets' webhook; cert-manager's, on cert-manager.io and acme.cert-manager.io). Losing every replica then fails only writes of those resources, which their
clients retry, the outage \`webhook-backend-availability\` and \`prestop-missing\` rate info; \`pdb-missing\` says the same.
A webhook on built-in kinds or pods (Kyverno, Gatekeeper: \`*\` groups) keeps the warning.

Anti-affinity on the zone key is accepted too (it separates nodes as well), and so are host ports (a \`hostPort\`, or
declared ports with \`hostNetwork: true\`): kube-scheduler's NodePorts filter never puts two such pods on one node.
Templates pinned to one node
(\`nodeName\`, a hostname nodeSelector) cannot spread and are skipped. So are Deployments and ReplicaSets whose
replicas all mount one \`ReadWriteOnce\` or \`ReadWriteOncePod\` PersistentVolumeClaim (its PVC in the linted set):
a replica on another node cannot attach the volume, so spreading them makes them fail; \`surge-volume-deadlock\`
reports the shared claim instead.

When the template has spreading rules that do not count, the message names each one and why: a selector that
does not select the own pods; a hostname or zone rule whose selector matches no pod in the input and misses the
pods' own labels by one value under the same key (bitnami/dremio's executor anti-affinity wants
\`component: executor-default\`, its pods carry \`component: executor\` and \`engine: default\`): the message names the
label to correct and advises only that, since a soft constraint beside it would quietly replace a hard spread the
chart asked for; a key under the prefixes Kubernetes reserves that is not a well-known node label, so
no node carries it unless an admin labelled nodes with it (\`kubernetes.io/zone\` for \`topology.kubernetes.io/zone\`:
the message names the well-known key it likely meant); a region key (one domain in a one-region cluster); another
well-known node label (OS, architecture, instance type); or a custom label, which may or may not keep replicas
apart. A required anti-affinity term on a key a node lacks does not keep pods off that node (kube-scheduler's
InterPodAffinity filter treats the node as satisfying the term), so it separates nothing there either.
A \`topologySpreadConstraints\` (or an \`affinity\` with \`podAntiAffinity\`) written above the pod spec, in the pod
template (\`spec.template.topologySpreadConstraints\`) or the workload's spec, is dropped by the API server as an
unknown field: the message says where it is and that it belongs under the pod spec, and points at it (pgadmin4's
chart indents its \`topologySpreadConstraints\` value one level too high).

**Moleculer nodes:** a workload that no Service routes clients to counts as served here when a main container sets
\`TRANSPORTER\` to a Moleculer transporter URL (\`nats://\`, \`redis://\`, \`amqp://\`, \`mqtt://\`, \`kafka://\`, \`tcp://\`, ...):
its callers reach it through the message broker, and a call that finds no instance fails at once (Moleculer's
\`ServiceNotAvailableError\`), it is not queued (Rocket.Chat's account, authorization and presence services, whose only
Service carries metrics). \`pdb-missing\` warns on such workers already; \`prestop-missing\` and
\`readiness-probe-missing\`, which are about Service endpoints, do not count them. The served hint wins.

${SERVED_STATUS_DOC}

**Fix** (prefer spread constraints; \`matchLabelKeys\` only for Deployments, beta and on since 1.27):
\`\`\`yaml
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: ScheduleAnyway
  labelSelector: {matchLabels: {app: web}}
  matchLabelKeys: [pod-template-hash]     # Deployment only; beta (on) since 1.27
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: ScheduleAnyway
  labelSelector: {matchLabels: {app: web}}
  matchLabelKeys: [pod-template-hash]
\`\`\`

**\`--fix-proposals\`:** for such a one-value-off selector, sets that label of its \`matchLabels\` to the pods'
value (none for a hard rule of a Deployment, which once corrected holds the surge pod off every node with a replica:
see \`spread-blocks-surge\`; nor when the value is in \`matchExpressions\`); none when a spreading key is misplaced above the pod spec (the repair is in what wrote it); otherwise appends a \`kubernetes.io/hostname\` constraint with \`maxSkew: 1\`, \`whenUnsatisfiable: ScheduleAnyway\`, the selector's labels, and \`matchLabelKeys: [pod-template-hash]\` for Deployments on >= 1.27.`,
    fixable: true,
    versionGate: 'matchLabelKeys in the suggested fix (MatchLabelKeysInPodTopologySpread): alpha 1.25, beta (on) 1.27',
    paramsSchema: { type: 'object', properties: {}, additionalProperties: false },
    defaults: {},
    references: ['kubernetes/website content/en/docs/concepts/scheduling-eviction/topology-spread-constraints.md', 'kubernetes/website content/en/docs/concepts/scheduling-eviction/assign-pod-node.md (inter-pod affinity and anti-affinity)'],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      const d = spreadDecision(ctx.graph, w);
      if (!d.fires || !d.basis) continue;
      const basis = d.basis;
      const mlk = w.kind === 'Deployment' && ctx.version.atLeast(1, 27) ? ', matchLabelKeys: [pod-template-hash]' : '';
      // A budget in the set that allows fewer evictions than there are replicas holds a drain back:
      // then only a node failure takes every replica at once.
      const holding = ctx.graph
        .pdbsFor(w)
        .map((p) => ({ p, allowed: pdbAllowance(ctx.graph, p)?.allowed }))
        .find((h): h is { p: typeof h.p; allowed: number } => h.allowed !== undefined && h.allowed < basis.replicas);
      const risk = holding
        ? `one node failure can take every replica at once (a drain of that node is held back by PodDisruptionBudget/${holding.p.obj.name}: ${holding.allowed === 0 ? 'it allows no eviction, so the drain stalls' : `${holding.allowed} eviction${holding.allowed === 1 ? '' : 's'} at a time, each waiting for a replacement to become Ready elsewhere`})`
        : 'one node drain or failure can take every replica at once';
      const ps = w.podSpecPointer.slice(1).split('/');
      // The spreading that is there (but does not count), else where to add it.
      const tsc = existingPointer(w.obj.raw, ...ps, 'topologySpreadConstraints');
      const pointer = tsc.endsWith('/topologySpreadConstraints') ? tsc : existingPointer(w.obj.raw, ...ps, 'affinity', 'podAntiAffinity');
      const present = notCounted(w);
      const misplaced = misplacedSpread(w);
      const podSpecPath = w.podSpecPointer.slice(1).split('/').join('.');
      const dropped = misplaced.map((m) => `${m.key} is written at ${m.pointer}, outside the pod spec (${w.podSpecPointer}): the API server drops it as an unknown field, so it spreads nothing`);
      const why = [...(present.length ? present.map((e) => e.why) : [`no hostname/zone topologySpreadConstraint or pod anti-affinity selecting its own pods${misplaced.length ? ' in its pod spec' : ''}`]), ...dropped].join('; ');
      const retype = present.filter((e) => e.meant).map((e) => `set the topologyKey of ${e.what} to ${e.meant}, or `).join('');
      // A hostname or zone rule whose selector is one label value off the pods' own: the repair is that
      // value, not a second, soft constraint beside it (which would quietly weaken a hard spread the
      // chart asked for). A proposal corrects the value where it is in matchLabels, except for a hard
      // rule of a Deployment: corrected, it holds the surge pod off every node with a replica
      // (spread-blocks-surge), so the advice says what to change and no fix is offered.
      const dead = present.filter((e): e is (typeof present)[number] & { dead: DeadSelector } => e.dead !== undefined);
      const surgeBlocked = dead.some((e) => e.strict && w.kind === 'Deployment');
      const correctable = dead.length > 0 && !surgeBlocked && dead.every((e) => e.dead.valuePointer !== undefined);
      const correction: Fix | undefined = correctable
        ? {
            description: dead.map((e) => `set ${e.dead.key} to ${e.dead.has} in the labelSelector of ${e.what}`).join('; '),
            safety: 'proposal',
            edits: dead.map((e) => ({ op: 'set' as const, pointer: e.dead.valuePointer!, value: e.dead.has })),
          }
        : undefined;
      const move = misplaced.length
        ? `move ${misplaced.map((m) => `${m.key} from ${m.pointer}`).join(' and ')} under ${podSpecPath}, where the API server keeps ${misplaced.length === 1 ? 'it' : 'them'} (a chart template indented one level too high puts ${misplaced.length === 1 ? 'it' : 'them'} there: fix the template, or patch the render with a post-renderer)${dead.length || present.length ? '; and ' : ''}`
        : '';
      const advice = misplaced.length && !present.length
        ? move.replace(/; and $/, '')
        : move + (dead.length
        ? `correct the selector: ${dead.map((e) => `set ${e.dead.key} to ${e.dead.has} in the labelSelector of ${e.what}`).join('; ')}, so that it selects the pods' own labels and keeps them apart as written${dead.some((e) => e.strict) ? ' (a hard rule: replicas beyond the number of nodes or zones then stay Pending)' : ''}${surgeBlocked ? `; on a Deployment a corrected hard rule also holds the surge pod off every node with a replica, so pair it with matchLabelKeys: [pod-template-hash] or maxSurge: 0 (see spread-blocks-surge)` : ''}`
        : `${retype}add topologySpreadConstraints with topologyKey kubernetes.io/hostname (and topology.kubernetes.io/zone), maxSkew: 1, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: ${ownLabels(w)}}${mlk}${DONOTSCHEDULE_NOTE}${mlk ? ', with matchLabelKeys: [pod-template-hash] so a surge pod does not stall the rollout' : ''})`);
      // (Only writes of custom resources fail while no replica runs: the level of
      // webhook-backend-availability for that outage; review round 33, report p40, External Secrets' webhook.)
      const cr = customResourceWebhookBackend(ctx.graph, w);
      ctx.report({
        object: w.obj,
        // (A misplaced key is what to change: point at it.)
        pointer: misplaced.length && !present.length ? misplaced[0].pointer : pointer,
        severity: cr ? 'info' : undefined,
        // (The repair of a misplaced key is in what wrote it: no proposal that adds a second spread.)
        fix: misplaced.length ? undefined : dead.length ? correction : spreadFix(w, ctx.version),
        message: `${basis.phrase} but nothing spreads them across nodes or zones (${why}; the scheduler's default spreading is only a soft preference): ${risk}${cr ? `; that costs little here: ${customResourceWebhookPhrase(cr)}` : ''}; ${advice}${availabilityServedNote(ctx.graph, w)}`,
      });
    }

    /** The spreading rules the template has, each with why it does not count (all of them, when this rule reports). */
    function notCounted(w: Workload): { what: string; why: string; meant?: string; dead?: DeadSelector; strict: boolean }[] {
      const own = ownLabels(w);
      const entries = [
        ...spreadConstraints(w).map((c) => ({ what: `topologySpreadConstraints[${c.index}]`, key: c.topologyKey, selectsOwn: c.selectsOwn, hard: c.whenUnsatisfiable === 'DoNotSchedule', strict: c.whenUnsatisfiable === 'DoNotSchedule', raw: c.raw, at: c.pointer })),
        ...antiAffinityTerms(w).map((t) => ({ what: `${t.required ? 'required' : 'preferred'} pod anti-affinity term ${t.index}`, key: t.topologyKey, selectsOwn: t.selectsOwn, hard: false, strict: t.required, raw: t.raw, at: t.pointer })),
      ];
      return entries.map((e) => {
        const dead = e.key !== undefined && SPREAD_KEYS.has(e.key) && !e.selectsOwn ? deadSelector(ctx.graph, w, e.raw, e.at) : undefined;
        const why = dead
          ? `${e.what} (topologyKey ${e.key}) matches no pod in the input: its labelSelector wants ${dead.key}: ${dead.want}, and the pods carry ${dead.key}: ${dead.has}, so it keeps nothing apart`
          : `${e.what} ${whyNot(e.key, e.selectsOwn, own, e.hard)}`;
        return { what: e.what, why, meant: e.key === undefined ? undefined : unknownReservedKey(e.key)?.meant, dead, strict: e.strict };
      });
    }

    /** `hard`: a DoNotSchedule constraint, which on a key no node carries leaves every pod Pending (spread-blocks-surge says so). */
    function whyNot(key: string | undefined, selectsOwn: boolean, own: string, hard: boolean): string {
      if (key === undefined) return 'has no topologyKey';
      if (SPREAD_KEYS.has(key)) return selectsOwn ? 'counts' : `(topologyKey ${key}) selects other pods than its own ${own}`;
      const reserved = unknownReservedKey(key);
      if (reserved) return `uses topologyKey ${key}, which is not a label Kubernetes puts on nodes${reserved.meant ? ` (the well-known one is ${reserved.meant})` : ''}: unless nodes were labelled with it, it spreads nothing${hard ? ' (and with DoNotSchedule no node without it fits: see spread-blocks-surge)' : ''}`;
      if (key === 'topology.kubernetes.io/region' || key === 'failure-domain.beta.kubernetes.io/region') return `uses topologyKey ${key}: a cluster in one region is one domain, so it keeps no replica off a shared node`;
      if (WELL_KNOWN_NODE_LABELS.has(key)) return `uses topologyKey ${key}, which groups nodes by kind, not by node or zone`;
      return `uses topologyKey ${key}, a node label kubegrace does not know: whether nodes carry it and it keeps replicas apart is not in the manifests`;
    }
  },
};
