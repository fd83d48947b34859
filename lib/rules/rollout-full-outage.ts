import { Catalog, singleVersionFact, singleVersionProgram, WorkloadMatch } from '../catalog';
import { Fix, Rule, RuleContext } from '../engine/types';
import { scarceRequests } from './surge-resource-deadlock';
import { replicasOfSingleInstance } from './recreate-strategy';
import { assumedServedNote, likelyServed, SERVED_STATUS_DOC, trafficPortsOf } from '../model/traffic';
import { IntOrPercent, isLiteralZero, parseIntOrPercent, scaled } from '../model/intstr';
import { claimExclusivity, existingPointer, fmtIntOrPercent, ReplicaBasis, replicaBasis, rolloutFor, startupEstimate } from './rollout-util';
import { hostPortBindings, hostPortsPhrase } from './mesh-util';
import { annotationPointer, helmAnnotationList, recreatedHelmHook } from './lb-util';
import { ObjectGraph, ServiceView } from '../model/graph';
import { DeploymentRollout, enumOr, get, Workload } from '../model/workload';
import { isObject } from '../model/types';

/**
 * Surge first: maxUnavailable 0, and maxSurge 1 only when the written (or default) maxSurge does not
 * already resolve to at least one pod; a larger surge the user chose is kept, so rollouts stay as fast.
 * A strategy change, so a proposal (section 12). Exclusive volumes never get here: the rule skips them,
 * because surge-first would deadlock (ROLL-002).
 */
function surgeFirstFix(surge: number, maxSurge: IntOrPercent, maxSurgeSet: boolean, chosen = false): Fix {
  const unavailable = { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxUnavailable', value: 0 } as const;
  if (surge >= 1) {
    return {
      description: `set strategy.rollingUpdate.maxUnavailable to 0 (maxSurge ${fmtIntOrPercent(maxSurge)}${maxSurgeSet ? '' : ' (default)'} already surges)`,
      safety: 'proposal',
      edits: [unavailable],
    };
  }
  return {
    description: `set strategy.rollingUpdate to maxSurge 1, maxUnavailable 0 (surge first)${chosen ? ': only if the program can run two at once (maxSurge 0 was written)' : ''}`,
    safety: 'proposal',
    edits: [{ op: 'set', pointer: '/spec/strategy/rollingUpdate/maxSurge', value: 1 }, unavailable],
  };
}

/** One replica with maxSurge written as 0: no overlap was asked for (how a singleton without leader election says so). */
export function noOverlapChosen(d: DeploymentRollout, replicas: number): boolean {
  return replicas === 1 && d.maxSurgeSet && d.surge === 0;
}

/**
 * The URL schemes by which Moleculer picks its transporter (moleculerjs/moleculer @503273f3
 * src/transporters/index.js resolve: nats://, mqtt(s)://, redis(s)://, amqp(s)://, amqp10://, kafka://, tcp://).
 */
const MOLECULER_TRANSPORTER = /^(?:nats|mqtts?|rediss?|amqps?|amqp10|kafka|tcp):\/\//;

/**
 * A Moleculer node that no Service routes clients to but that its callers reach through the message
 * broker: a main container sets the environment variable `TRANSPORTER` to a transporter URL
 * (Moleculer's runner reads broker options from the environment, src/runner.js overwriteFromEnv; Rocket.Chat's
 * microservices read TRANSPORTER themselves: RocketChat/Rocket.Chat @56c1664c
 * ee/packages/network-broker/src/moleculer.ts, `transporter: TRANSPORTER`, beside a metrics-only port 9458).
 * A call finds an instance through the broker's registry, and with none it fails at once: Moleculer
 * rejects it with ServiceNotAvailableError ("Service '...' is not available", @503273f3
 * src/service-broker.js findNextActionEndpoint), and Rocket.Chat's broker returns
 * `new Error('method-not-available')` first (@12a1420f ee/packages/network-broker/src/MoleculerBroker.ts call,
 * `$node.services` with onlyAvailable); nothing queues the call (retries are off by default there:
 * `retryPolicy.enabled: RETRY_ENABLED === 'true'`). So losing every instance fails its callers as a
 * Service without endpoints does, which is what rollout-full-outage and replicas-not-spread are about
 * (review round 35, report p55 item 2: Rocket.Chat's account, authorization and presence services).
 * A literal value only (a secretKeyRef is not read); none when the served hint is written (it wins) or
 * when the workload is already likely served. The evidence: `TRANSPORTER nats://rc-nats:4222 in container "x"`.
 */
export function brokerNode(graph: ObjectGraph, w: Workload): string | undefined {
  if (graph.servedHint(w) !== undefined || likelyServed(graph, w)) return undefined;
  for (const c of w.containers) {
    const env = Array.isArray(c.raw.env) ? c.raw.env : [];
    const e = env.find((x) => isObject(x) && x.name === 'TRANSPORTER' && typeof x.value === 'string' && MOLECULER_TRANSPORTER.test(x.value.trim()));
    if (isObject(e)) return `TRANSPORTER ${String(e.value).trim()} in container "${c.name}"`;
  }
  return undefined;
}

/** Served for the availability rules: likelyServed, or a Moleculer node reached through its transporter (brokerNode). */
export function availabilityServed(graph: ObjectGraph, w: Workload): boolean {
  return likelyServed(graph, w) || brokerNode(graph, w) !== undefined;
}

/** assumedServedNote, or for a Moleculer node served through its transporter (brokerNode) the clause that says so. */
export function availabilityServedNote(graph: ObjectGraph, w: Workload): string {
  const b = brokerNode(graph, w);
  if (!b) return assumedServedNote(graph, w);
  return ` (no Service routes clients to it, but it is a Moleculer node (${b}): its callers reach it through the message broker, and a call that finds no instance fails at once (ServiceNotAvailableError), it is not queued)`;
}

/**
 * The rule's decision for one workload, shared with explain: defined (reported) for a served
 * RollingUpdate Deployment whose resolved unavailable reaches its replicas, unless its pods cannot
 * overlap anyway (an exclusive claim, an accelerator) or the API rejects the strategy (both 0).
 */
export function fullOutageDecision(graph: ObjectGraph, w: Workload, catalog?: Catalog): { basis: ReplicaBasis; rollout: DeploymentRollout } | undefined {
  if (w.kind !== 'Deployment' || !w.deployment || w.deployment.type !== 'RollingUpdate') return undefined;
  if (!availabilityServed(graph, w)) return undefined;
  const basis = replicaBasis(graph, w);
  if (!basis || basis.replicas <= 0) return undefined;
  const r = basis.replicas;
  const d = rolloutFor(w, r)!;
  // Both literally 0: the API rejects the spec (section 4); there is no rollout to judge.
  if (isLiteralZero(d.maxSurge) && isLiteralZero(d.maxUnavailable)) return undefined;
  if (d.unavailable < r) return undefined;
  // An exclusive claim (RWO/RWOP, or a PVC whose mode is unknown) forbids overlapping pods:
  // the outage is inherent, and surge-first would deadlock (surge-volume-deadlock).
  if (graph.claimsOf(w).some((c) => claimExclusivity(c) !== 'shared')) return undefined;
  // Accelerators likewise: a pool sized for the running pods has no spare GPU for a surge pod, so
  // maxSurge 0 / maxUnavailable >= 1 is the deliberate trade-off surge-resource-deadlock recommends.
  if (scarceRequests(w).some((x) => x.scarcity === 'accelerator')) return undefined;
  // A program whose new pod is not Ready while an old one runs (catalog single-version with
  // overlapStalls: Flux's source-controller, whose readiness waits for the leader's lease): surge
  // first would stall for good, so removing the old pods first is the program's own price.
  if (singleVersionProgram(w, catalog)?.entry.overlapStalls) return undefined;
  return { basis, rollout: d };
}

/**
 * A served RollingUpdate DaemonSet whose maxUnavailable takes the pod of every node down at once
 * (review report p35 item 2: Longhorn's manager, maxUnavailable "100%", behind its ClusterIP
 * Services). The number of pods is the number of nodes, which the manifest does not give, so only
 * a percentage that reaches every pod whatever the node count counts: the DaemonSet controller
 * rounds the percentage up (kubernetes pkg/controller/daemon/util/daemonset_util.go UnavailableCount:
 * GetScaledValueFromIntOrPercent(maxUnavailable, numberToSchedule, true)), and the API rejects more
 * than 100% (ValidateRollingUpdateDaemonSet), so that is "100%" alone; an absolute number is not
 * judged. maxSurge must be 0 or absent: the API accepts a non-zero maxSurge only with maxUnavailable 0
 * (daemonset-surge reports the rejected pair). A DaemonSet whose client Services all have
 * internalTrafficPolicy: Local is not judged here: each node's clients reach only that node's pod,
 * which daemonset-surge speaks of. `single`: the program must not run two versions at once
 * (catalog single-version): reported as info, the outage is its price.
 */
export interface DaemonSetOutage {
  unavailable: IntOrPercent;
  maxSurge: IntOrPercent | undefined;
  /** The Services (cluster traffic policy) that lose every endpoint; empty when served by the hint or assumed. */
  services: ServiceView[];
  single: WorkloadMatch | undefined;
}

export function daemonSetFullOutageDecision(graph: ObjectGraph, w: Workload, catalog?: Catalog): DaemonSetOutage | undefined {
  if (w.kind !== 'DaemonSet') return undefined;
  const strategy = get(w.obj.raw, 'spec', 'updateStrategy');
  if (enumOr(get(strategy, 'type'), 'RollingUpdate').value !== 'RollingUpdate') return undefined;
  const unavailable = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxUnavailable'));
  if (unavailable?.kind !== 'percent' || unavailable.value !== 100) return undefined;
  const maxSurge = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxSurge'));
  if (maxSurge !== undefined && !isLiteralZero(maxSurge)) return undefined;
  if (!availabilityServed(graph, w)) return undefined;
  // The Services that carry client traffic to the pods (those of the ports trafficPorts keeps; else
  // every traffic Service): when all of them keep traffic on the node, the outage is node-local.
  const client = [...new Set(trafficPortsOf(graph, w).map((p) => p.service))];
  const all = client.length ? client : graph.trafficServices(w);
  const services = all.filter((s) => get(s.obj.raw, 'spec', 'internalTrafficPolicy') !== 'Local');
  if (all.length > 0 && services.length === 0) return undefined;
  return { unavailable, maxSurge, services, single: singleVersionProgram(w, catalog) };
}

function reportDaemonSet(ctx: RuleContext, w: Workload, d: DaemonSetOutage): void {
  const raw = w.obj.raw;
  const pointer = existingPointer(raw, 'spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable');
  const names = d.services.map((s) => `Service/${s.obj.name}`);
  const behind = names.length ? `every endpoint of ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}` : 'every pod that serves it';
  const strategy = `updateStrategy.rollingUpdate maxUnavailable ${fmtIntOrPercent(d.unavailable)} with ${d.maxSurge ? `maxSurge ${fmtIntOrPercent(d.maxSurge)}` : 'maxSurge absent (default 0)'}`;
  const effect = `the DaemonSet controller deletes the pod of every node at once (the percentage is of the nodes that run it, rounded up), before any replacement is ready, so each rollout takes down ${behind} until the new pods are Ready`;
  if (d.single) {
    const startup = startupEstimate(w);
    ctx.report({
      object: w.obj,
      pointer,
      severity: 'info',
      message: `${strategy}: ${effect}, a full outage; required here: container "${d.single.container.name}" runs ${d.single.entry.title.replace(/\)$/, `; catalog entry ${d.single.entry.id})`)}, ${singleVersionFact(d.single.entry)}, which a bounded maxUnavailable would do across nodes${d.single.entry.overlap === 'instances' ? ' (and a DaemonSet runs one on every node it schedules to, so several run at once whatever the strategy, which this program must not do either)' : ''}. The outage lasts, on every rollout, from the old pods' deletion (each may take up to its grace period, ${w.grace}s${w.graceSet ? '' : ' (default)'}, to terminate, and a node's new pod starts only once its old one is gone) until a new pod is Ready (about ${startup.seconds}s after it starts: ${startup.basis}); roll out when that outage is acceptable, and keep the termination and the startup short${availabilityServedNote(ctx.graph, w)}`,
    });
    return;
  }
  ctx.report({
    object: w.obj,
    pointer,
    severity: 'warning',
    message: `${strategy}: ${effect}, a full outage; set updateStrategy.rollingUpdate.maxUnavailable to a bound below every node (1, the default, or a percentage such as 10% on large clusters), so that the pods of the other nodes keep serving while some restart${availabilityServedNote(ctx.graph, w)}`,
  });
}

/**
 * A served workload that is a Helm hook of an upgrade or rollback phase with the delete policy
 * before-hook-creation (written, or Helm's default): at each such phase Helm deletes it and only then
 * creates it again (lb-util recreatedHelmHook), so every pod goes at once whatever its replicas and
 * strategy say. Sentry 25.20.0's relay, the event-ingest endpoint, is a post-install,post-upgrade
 * Deployment by default (`asHook: true`); the chart says "you will have some downtime on each update
 * if it's a hook" (sentry-kubernetes/charts @9e5a15e0 charts/sentry/values.yaml; review p32).
 */
export function hookOutageDecision(graph: ObjectGraph, w: Workload): { phases: string[] } | undefined {
  const phases = recreatedHelmHook(w.obj);
  if (!phases || !availabilityServed(graph, w)) return undefined;
  if ((graph.effectiveReplicas(w) ?? 1) <= 0) return undefined;
  return { phases };
}

export const rolloutFullOutage: Rule = {
  meta: {
    id: 'rollout-full-outage',
    spec: 'ROLL-001',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'resolved maxUnavailable >= replicas, or replicas 1 with maxUnavailable >= 1; a served DaemonSet with maxUnavailable 100%; or a served Helm hook that Helm deletes and recreates on every upgrade',
    doc: `A RollingUpdate Deployment may take down \`maxUnavailable\` pods before their replacements are ready.
The values resolve as in section 4: \`surge = ceil(maxSurge% × replicas)\`, \`unavailable = floor(maxUnavailable% × replicas)\`,
and when both resolve to 0 the controller forces \`unavailable = 1\`. When the resolved \`unavailable\` reaches
\`replicas\` (with one replica: any \`unavailable >= 1\`), every serving pod can be gone at once, which is a full
outage for the whole startup time of the new pods.

Conditions (**warning**): a served Deployment (a Service selects it, or \`kubegrace.dev/served: "true"\`) with
\`strategy.type: RollingUpdate\` (the default) whose resolved \`unavailable >= replicas\`. \`replicas\` is the HPA's
\`minReplicas\` when an HPA targets the Deployment. With \`replicas: 1\` the defaults (25%/25%) resolve to surge 1,
unavailable 0 and are safe: explicit values cause the trouble (typically \`maxSurge: 0, maxUnavailable: 1\`).
Deployments scaled to 0 are skipped, and so are Deployments mounting a PersistentVolumeClaim that is not known to
allow multi-node access (\`ReadWriteOnce\`, \`ReadWriteOncePod\`, or a PVC outside the linted set): their pods cannot
overlap, so the outage is inherent and surge-first would deadlock (see \`surge-volume-deadlock\`).

**DaemonSets:** a served RollingUpdate DaemonSet whose \`updateStrategy.rollingUpdate.maxUnavailable\` is \`"100%"\`
(with \`maxSurge\` 0 or absent) is reported too: the DaemonSet controller rounds the percentage of the nodes that run
the DaemonSet up, so it deletes the pod of every node at once, and a node's new pod starts only once its old pod is
gone; every Service that routes to the pods loses all its endpoints until new pods are Ready, on every rollout.
The pods are as many as the nodes, which the manifest does not give: a smaller percentage or an absolute number is
not judged (\`"50%"\` is every pod only on one node; \`1\` on a one-node cluster), and the API rejects more than
100%. A non-zero \`maxSurge\` needs \`maxUnavailable: 0\` (the pair is \`daemonset-surge\`'s error). Not reported when
every Service carrying client traffic to the pods has \`internalTrafficPolicy: Local\`: each node's clients reach
only their node's pod, which is \`daemonset-surge\`'s. The advice is a bounded \`maxUnavailable\` (1, the default, or a
small percentage), with no \`--fix\` (the bound is a choice of rollout speed). **Info** instead for a program whose old and
new versions must not run side by side (a \`single-version\` entry of the catalog: the Longhorn manager, whose new
pods wait until no old manager pod remains, and whose chart rolls with \`"100%"\` for that reason): the finding
says what the outage costs (the old pods' termination, up to their grace period, plus the new pods' startup). For an
entry with \`overlap: instances\` (two instances must not run at once, whatever their versions) the finding says that
instead, and that a DaemonSet runs one on every node it schedules to, so several run at once whatever the strategy.

Conditions (**warning**), a Helm hook: a served Deployment, StatefulSet, DaemonSet or ReplicaSet (not scaled to 0)
whose \`helm.sh/hook\` names an upgrade or rollback phase (\`pre-upgrade\`, \`post-upgrade\`, \`pre-rollback\`,
\`post-rollback\`) and whose \`helm.sh/hook-delete-policy\` includes \`before-hook-creation\`, or is absent (Helm's
default). Helm never updates a hook in place: before each run of the hook it deletes the object, waits until it is gone,
and only then creates it again (helm/helm pkg/action/hooks.go, \`execHookWithDelayedShutdown\`: \`hookSetDeletePolicy\`
sets before-hook-creation when no policy is written, "TODO(jlegrone): Only apply before-hook-creation delete policy to run to
completion resources. For all other resource types update in place ..."). Every pod terminates at once, and the
Services have no ready endpoint until the new pods are Ready, on every \`helm upgrade\` (or \`helm rollback\`),
whatever the replicas and the strategy say. Sentry's chart makes its event-ingest relay such a hook by default
(\`asHook: true\`: "you will have some downtime on each update if it's a hook"). Hooks of install phases only
(\`pre-install\`, \`post-install\`) never run again and are not reported, nor are hooks deleted by \`hook-succeeded\`
(their pods never serve for good), nor unserved ones (consumers that pause). Fix: render the object as a normal one
(without \`helm.sh/hook\`), so that Helm updates it in place with its rolling update; or accept the outage and
suppress the finding with the reason. Such a workload gets only this finding: its strategy applies only to rollouts
started outside Helm (\`kubectl rollout restart\`).

**Moleculer nodes:** a workload that no Service routes clients to counts as served here when a main container sets
\`TRANSPORTER\` to a Moleculer transporter URL (\`nats://\`, \`redis://\`, \`amqp://\`, \`mqtt://\`, \`kafka://\`, \`tcp://\`, ...):
its callers reach it through the message broker, and a call that finds no instance fails at once (Moleculer's
\`ServiceNotAvailableError\`), it is not queued (Rocket.Chat's account, authorization and presence services, whose only
Service carries metrics). \`pdb-missing\` warns on such workers already; \`prestop-missing\` and
\`readiness-probe-missing\`, which are about Service endpoints, do not count them. The served hint wins.

${SERVED_STATUS_DOC}

Fix (stateless):
\`\`\`yaml
strategy:
  type: RollingUpdate
  rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
\`\`\`

**\`--fix\`** (proposal, applied with \`--fix-proposals\`): sets \`maxUnavailable: 0\`, and \`maxSurge: 1\` only when the current surge is 0, so a larger surge you chose is kept. Pods with an exclusive (RWO/RWOP) volume are not flagged here (a surge would deadlock, see \`surge-volume-deadlock\`), so they get no fix; neither are pods that request an accelerator (\`nvidia.com/gpu\`, ...), where a surge pod waits for a spare device the pool rarely has and taking a pod down first is the trade-off \`surge-resource-deadlock\` recommends. Pods that bind host ports (a \`hostPort\`, or declared ports with \`hostNetwork: true\`) are flagged without a fix: a surge pod needs a node that runs none of them (\`spread-blocks-surge\`), so the advice is more replicas on different nodes with \`{maxSurge: 0, maxUnavailable: 1}\`, or surge first only where a spare node is always free. One replica with \`maxSurge: 0\` written is also how a program that must not run twice at once (a controller without leader election, such as grafana's rollout-operator) says so: the advice and the proposal then hold only if the program can run two at once, and otherwise the outage is the price (suppress the finding with the reason). Pods of a program whose old and new versions must not run side by side (a \`single-version\` entry of the catalog: Kibana, SonarQube Data Center Edition application nodes), or of which two instances must not run at once whatever their versions (an entry with \`overlap: instances\`: standalone SonarQube, celery beat; the finding then also says when the replicas exceed one, or an HPA may scale them above one, that they run at once whatever the strategy and the program needs one replica), are flagged without a fix and advised \`strategy.type: Recreate\`: surge first would run both versions (or two instances), and a RollingUpdate that takes every pod down still starts new pods while old ones terminate (\`recreate-strategy\` then reports Recreate as info, with its cost). Not reported for such an entry with \`overlapStalls\` (Flux's source-controller and source-watcher with leader election): their new pod is not Ready while an old one holds the leader-election lease, so surge first would stall for good, and taking the old pod down first is the program's own price.`,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md (Max Unavailable, Max Surge)',
      'kubernetes/kubernetes pkg/controller/deployment/util/deployment_util.go (ResolveFenceposts)',
      'kubernetes/kubernetes pkg/controller/daemon/util/daemonset_util.go (UnavailableCount: percentages rounded up); pkg/controller/daemon/daemon_controller.go (podsShouldBeOnNode: without surge, a node gets a new pod only once it has none)',
      'helm/helm @e9b85e4d pkg/action/hooks.go (execHookWithDelayedShutdown, hookSetDeletePolicy: before-hook-creation by default)',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      const hook = hookOutageDecision(ctx.graph, w);
      if (hook) {
        const commands = [hook.phases.some((x) => x.endsWith('-upgrade')) ? 'helm upgrade' : '', hook.phases.some((x) => x.endsWith('-rollback')) ? 'helm rollback' : ''].filter((x) => x).join(' and every ');
        const written = helmAnnotationList(w.obj, 'helm.sh/hook-delete-policy').length > 0;
        const svcs = ctx.graph.trafficServices(w).map((s) => `Service ${s.obj.name}`);
        const who = svcs.length ? `${svcs.join(', ')} ${svcs.length > 1 ? 'have' : 'has'} no ready endpoint` : 'its clients have no ready pod';
        ctx.report({
          object: w.obj,
          pointer: annotationPointer('helm.sh/hook'),
          message:
            `a Helm hook (helm.sh/hook: ${helmAnnotationList(w.obj, 'helm.sh/hook').join(',')}) with hook-delete-policy before-hook-creation${written ? '' : " (Helm's default when none is written)"}: ` +
            `on every ${commands} Helm deletes this ${w.kind}, so all its pods terminate, and only then creates it again: ${who} until the new pods are Ready, ` +
            `a full outage on each ${commands}, whatever the replicas and the update strategy say; render it as a normal object (without the helm.sh/hook annotation) so that Helm updates it in place with its rolling update, ` +
            `or accept the outage and suppress this finding with the reason${availabilityServedNote(ctx.graph, w)}`,
        });
        // (Helm never updates a hook in place: its strategy applies only to a rollout started otherwise, kubectl rollout restart.)
        continue;
      }
      const ds = daemonSetFullOutageDecision(ctx.graph, w, ctx.catalog);
      if (ds) {
        reportDaemonSet(ctx, w, ds);
        continue;
      }
      const f = fullOutageDecision(ctx.graph, w, ctx.catalog);
      if (!f) continue;
      const { basis, rollout: d } = f;
      const r = basis.replicas;
      const raw = w.obj.raw;
      const ownUnavailable = scaled(d.maxUnavailable, r, false) ?? 0;
      const forced = ownUnavailable < d.unavailable;
      const field = forced && d.maxSurgeSet ? 'maxSurge' : 'maxUnavailable';
      const pointer = existingPointer(raw, 'spec', 'strategy', 'rollingUpdate', field);
      const unavail = `maxUnavailable ${fmtIntOrPercent(d.maxUnavailable)}${d.maxUnavailableSet ? '' : ' (default)'}`;
      const surge = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'}`;
      const resolved = forced
        ? `${surge} and ${unavail} both resolve to 0, so the controller forces 1 unavailable`
        : `${unavail} (resolved ${d.unavailable})`;
      const effect =
        r === 1 ? 'the only pod is removed before its replacement is ready' : `all ${r} pods can be removed before any replacement is ready`;
      // Host ports: a surge pod needs a node that runs none of these pods (spread-blocks-surge warns
      // of that stall), so surge first is no repair: pods on other nodes are.
      const ports = hostPortBindings(w);
      // A program whose versions must not overlap (catalog single-version: Kibana, SonarQube DCE app nodes): surge first would
      // run old and new pods side by side; Recreate stops every old pod before a new one starts.
      const single = singleVersionProgram(w, ctx.catalog);
      const advice = single
        ? `container "${single.container.name}" runs ${single.entry.title.replace(/\)$/, `; catalog entry ${single.entry.id})`)}, ${singleVersionFact(single.entry)}, so surge first is no repair and this strategy overlaps them too while old pods terminate: use strategy.type Recreate, which starts the new pods only once every old pod is gone (the outage then also spans the old pods' termination)${replicasOfSingleInstance(single.entry, basis)}`
        : ports.length
        ? `the pod binds host ports (${hostPortsPhrase(ports)}), so a surge pod needs a node that runs none of these pods (see spread-blocks-surge): run at least ${r + 1} replicas on different nodes with strategy.rollingUpdate {maxSurge: 0, maxUnavailable: 1}, or surge first ({maxSurge: 1, maxUnavailable: 0}) only where a spare node is always free`
        : noOverlapChosen(d, r)
          ? // (grafana/rollout-operator: one replica, maxSurge 0, no leader election; two instances would
            // each admit evictions with their own locks. Review round 11.)
            'if the program can run two at once, set strategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} (surge first); if it must not (a controller without leader election: maxSurge 0 on one replica often says so), the outage is the price of that: keep it, and suppress this finding with the reason'
          : 'set strategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} (surge first)';
      ctx.report({
        object: w.obj,
        pointer,
        message: `${basis.phrase} with ${resolved}: ${effect}, a full outage for the whole startup time; ${advice}${availabilityServedNote(ctx.graph, w)}`,
        fix: ports.length || single ? undefined : surgeFirstFix(d.surge, d.maxSurge, d.maxSurgeSet, noOverlapChosen(d, r)),
      });
    }
  },
};
