import { CatalogEntry, singleVersionFact, singleVersionProgram } from '../catalog';
import { Rule, RuleContext } from '../engine/types';
import { Workload } from '../model/workload';
import { assumedServedNote, likelyServed, SERVED_STATUS_DOC } from '../model/traffic';
import { hostPortBindings, hostPortsPhrase } from './mesh-util';
import { claimExclusivity, existingPointer, ReplicaBasis, fmtIntOrPercent, replicaBasis, rolloutFor, startupEstimate, noLeaderElectionLock } from './rollout-util';
import { scarceRequests } from './surge-resource-deadlock';

/**
 * For a program of which two instances must not run at once (catalog single-version with overlap
 * `instances`: standalone SonarQube, celery beat; review round 34, reports p47, p51, p52) on more than
 * one replica (or an HPA that may scale it above one): the replicas themselves run at once, whatever
 * the strategy. Empty otherwise.
 */
export function replicasOfSingleInstance(entry: CatalogEntry, basis: ReplicaBasis): string {
  if (entry.overlap !== 'instances') return '';
  const either = 'which this program must not do either: it needs one replica';
  if (basis.replicas > 1) return `; and with ${basis.phrase}, ${basis.replicas} instances run at once whatever the strategy, ${either}`;
  const max = basis.hpa?.maxReplicas;
  if (basis.hpa && max !== undefined && max > 1) return `; and HorizontalPodAutoscaler/${basis.hpa.obj.name} may scale it to ${max} instances at once (maxReplicas ${max}), ${either}`;
  return '';
}

/**
 * A program whose old and new versions (or two instances) must not run side by side (catalog single-version), rolled
 * with a RollingUpdate: new pods start while old ones run, and old ones keep running through their
 * termination (review rounds 21 and 22: Kibana with the default strategy was silent; Apache
 * Superset's celery beat, one scheduler at a time, surged). A rolling update whose resolved
 * maxUnavailable removes every old pod first is rollout-full-outage's, which advises Recreate too.
 */
function singleVersionRolled(ctx: RuleContext, w: Workload): void {
  const single = singleVersionProgram(w, ctx.catalog);
  if (!single) return;
  const basis = replicaBasis(ctx.graph, w);
  if (!basis || basis.replicas < 1) return;
  const d = rolloutFor(w, basis.replicas)!;
  if (d.unavailable >= basis.replicas) return;
  const surge = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge}`;
  const program = `container "${single.container.name}" runs ${single.entry.title.replace(/\)$/, `; catalog entry ${single.entry.id})`)}`;
  // (overlapStalls: the pods may overlap, but a new one is not Ready while an old one runs, Flux's
  // source-controller; review round 32, report p35. With maxUnavailable 0 no old pod ever goes.)
  const why = single.entry.overlapStalls
    ? `${program}, and ${single.entry.overlapStalls}: a new pod does not become Ready while an old one runs, so ${d.unavailable === 0 ? `the rollout stalls for good (maxUnavailable resolves to 0: no old pod is removed before a new one is Ready)` : 'the new pods stay unready until the old leader is gone, and the rollout progresses only as old pods are removed'}`
    : `${program}, ${single.entry.overlap === 'instances' ? singleVersionFact(single.entry) : 'which must not run that way'}`;
  ctx.report({
    object: w.obj,
    pointer: existingPointer(w.obj.raw, 'spec', 'strategy'),
    severity: 'warning',
    message: `strategy RollingUpdate with ${basis.phrase} runs old and new pods side by side (${d.surge > 0 ? `${surge}: a new pod starts while the old ones run` : 'each old pod keeps running through its termination while its replacement starts'}), but ${why}; use strategy.type: Recreate, which starts the new pods only once every old pod is gone (the price: an outage from the old pods' termination until a new pod is Ready on every rollout)${replicasOfSingleInstance(single.entry, basis)}`,
  });
}

export const recreateStrategy: Rule = {
  meta: {
    id: 'recreate-strategy',
    spec: 'ROLL-005',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'Recreate on a served workload without an exclusive volume to justify it; RollingUpdate on a program that must not run two versions (or two instances) side by side',
    doc: `With \`strategy.type: Recreate\` the Deployment controller terminates every pod before it creates any new one,
so each rollout is an outage of termination plus startup time. That is the right trade only when the pods cannot
overlap, typically because they share an exclusive volume (see \`surge-volume-deadlock\`).

Condition (**warning**): a Deployment with \`strategy.type: Recreate\`, at least 2 replicas (HPA \`minReplicas\` when an
HPA targets it), served (a Service selects it, or \`kubegrace.dev/served: "true"\`), and no PersistentVolumeClaim
mount that justifies Recreate. A claim justifies it when its PVC is \`ReadWriteOncePod\` or \`ReadWriteOnce\`, or when
its access mode is unknown (the PVC is not in the linted set). A claim whose PVC allows \`ReadWriteMany\` or
\`ReadOnlyMany\` does not.

**Info** for one replica under the same conditions (ROLL-005 names replicated workloads): Recreate on one served
replica is the outage that \`rollout-full-outage\` reports for a RollingUpdate with \`maxUnavailable: 1\` on one
replica, while the default RollingUpdate would start the new pod first (opensearch-dashboards' chart sets Recreate on
its one stateless replica); but one replica with Recreate is also how a program that must never run twice at once
(a singleton) says so, and the finding names that case. Not reported when RBAC in the input binds the pods'
ServiceAccount only to roles that write to the cluster but grant no leader-election lock (leases of
\`coordination.k8s.io\`, or the older configmaps and endpoints locks; a reader such as Prometheus does not count): a controller that cannot elect a leader must not run twice (flyte-binary runs
flytepropeller without leader election).

Recreate only orders pods during a rollout: a manually deleted pod is replaced at once, so it is not an
"at most one pod" guarantee either.

**Info** instead, when a main container runs a program whose old and new versions must not run side by side (a
\`single-version\` entry of the catalog, docs/catalog.md: Kibana, which "does not support rolling upgrades", since
older instances keep writing saved objects in the old format; or the application nodes of SonarQube Data Center
Edition, image tag \`*datacenter-app\`, where a node of another version stops at start while the cluster runs and SonarSource
requires cluster downtime for upgrades; or, for an entry with \`overlap: instances\`, a program of which two
instances must not run at once, whatever their versions: standalone SonarQube, where "There should not be more than 1
SonarQube instance connected to the same database", Zammad's websocket server and background worker, celery beat, the
JupyterHub hub and proxy). For it Recreate is the right strategy, and the
finding says so and what it costs, so that it can be signed off: every rollout is a full outage from the start of
the old pods' termination (each may take up to its grace period) until a new pod is Ready (estimated from its
startup and readiness probes; image pull and process start come on top). It does not advise RollingUpdate, and
\`rollout-full-outage\` advises Recreate for such a program instead of surge first. A policy can add such programs
(\`spec.catalog\`, kind \`single-version\`). An entry with \`overlapStalls\` is a program whose old and new pods may
run side by side, but whose new pod does not become Ready while an old one runs (Flux's source-controller and
source-watcher with \`--enable-leader-election\`: the artifact server, which their readiness probe and Service reach,
starts only on the leader, so the new pod waits for the lease the old pod holds): the finding gives that reason,
a RollingUpdate that keeps the old pod until a new one is Ready would stall for good, and \`rollout-full-outage\` does
not report such a program.

**Warning** the other way round: such a program in a Deployment with \`strategy.type: RollingUpdate\` (the default),
whatever its served status: new pods start while old ones run, and each old pod keeps running through its
termination, so old and new run side by side on every rollout (for an entry with \`overlapStalls\`: the new pods are
not Ready while an old one runs, so a rollout with \`maxUnavailable\` resolving to 0 stalls for good). The advice is Recreate. A rolling update whose resolved
\`maxUnavailable\` reaches the replicas is left to \`rollout-full-outage\`, which advises Recreate for it too.

For an entry with \`overlap: instances\`, both findings (and \`rollout-full-outage\`'s) also say when the replicas
exceed one, or an HPA may scale the workload above one: those replicas run at once whatever the strategy, so the
program needs one replica. Only these findings say so: a workload of such a program that none of them reports (one
not served under Recreate, say) is not reported for its replicas.

${SERVED_STATUS_DOC}

Fix (proposed, not automatic):
\`\`\`yaml
strategy:
  type: RollingUpdate
  rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
\`\`\`

Pods that bind host ports (a \`hostPort\`, or declared ports with \`hostNetwork: true\`) are advised
\`{maxSurge: 0, maxUnavailable: 1}\` instead: a surge pod needs a node that runs none of them
(\`spread-blocks-surge\`), and one pod at a time keeps the others serving. One such replica is not
reported: Recreate is then the trade.`,
    fixable: false,
    references: ['kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#recreate-deployment'],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (w.kind === 'Deployment' && w.deployment?.type === 'RollingUpdate') {
        singleVersionRolled(ctx, w);
        continue;
      }
      if (w.kind !== 'Deployment' || w.deployment?.type !== 'Recreate') continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas < 1 || !likelyServed(ctx.graph, w)) continue;
      const claims = ctx.graph.claimsOf(w);
      if (claims.some((c) => claimExclusivity(c) !== 'shared')) continue;
      const single = singleVersionProgram(w, ctx.catalog);
      if (single) {
        const startup = startupEstimate(w);
        ctx.report({
          object: w.obj,
          pointer: existingPointer(w.obj.raw, 'spec', 'strategy', 'type'),
          severity: 'info',
          message: `strategy Recreate with ${basis.phrase} is required here: container "${single.container.name}" runs ${single.entry.title.replace(/\)$/, `; catalog entry ${single.entry.id})`)}, ${single.entry.overlapStalls ? `and ${single.entry.overlapStalls}: a RollingUpdate that keeps the old pod until a new one is Ready (surge first) would stall for good` : `${singleVersionFact(single.entry)}, which a RollingUpdate would do`}. The price is a full outage on every rollout, from the start of the old pods' termination (each may take up to its grace period, ${w.grace}s${w.graceSet ? '' : ' (default)'}) until a new pod is Ready (about ${startup.seconds}s after it starts: ${startup.basis}); roll out when that outage is acceptable, and keep the termination and the startup short${replicasOfSingleInstance(single.entry, basis)}${assumedServedNote(ctx.graph, w)}`,
        });
        continue;
      }
      const shared = claims.length ? ` (its claims ${claims.map((c) => `"${c.claimName}"`).join(', ')} allow multi-node access, so they do not require it)` : '';
      // One replica: the same outage as RollingUpdate with maxUnavailable 1 (rollout-full-outage),
      // unless the program must never run twice (a singleton), which Recreate is then the way to say.
      const one = basis.replicas === 1;
      // Surge first is no repair for one pod that holds an accelerator (a surge pod waits for a spare
      // device: surge-resource-deadlock) or binds host ports (spread-blocks-surge): Recreate is the trade.
      const hostPorts = hostPortBindings(w);
      if (one && (scarceRequests(w).some((x) => x.scarcity === 'accelerator') || hostPorts.length > 0)) continue;
      // Nor for one replica whose ServiceAccount's roles in the input grant no leader-election lock: a
      // controller that cannot elect a leader must not run twice, and Recreate is how it says so
      // (flyte-binary runs flytepropeller without leader election; review round 18).
      if (one && noLeaderElectionLock(ctx.graph, w)) continue;
      // Several pods that bind host ports: a surge pod needs a node that runs none of them (jitsi's
      // JVB bridges on hostPort 10000, review round 13), so one pod at a time is the rollout that keeps the others serving.
      const advice = hostPorts.length
        ? `use RollingUpdate with {maxSurge: 0, maxUnavailable: 1}: the pods bind host ports (${hostPortsPhrase(hostPorts)}), so a surge pod would need a node that runs none of them (see spread-blocks-surge), while replacing one pod at a time keeps the others serving`
        : 'use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}';
      ctx.report({
        object: w.obj,
        pointer: existingPointer(w.obj.raw, 'spec', 'strategy', 'type'),
        // (ROLL-005's warning is for replicated workloads; one replica is info: it may be a singleton.)
        ...(one ? { severity: 'info' as const } : {}),
        message: one
          ? `strategy Recreate with ${basis.phrase} on a served workload${shared}: the pod is terminated before its replacement starts, so each rollout is a full outage of termination plus startup time, which the default RollingUpdate (surge first) avoids; use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}, unless the program must never run twice at once (then keep Recreate and suppress this finding with the reason)${assumedServedNote(ctx.graph, w)}`
          : `strategy Recreate with ${basis.phrase} on a served workload${shared}: every pod is terminated before any new one starts, so each rollout is a full outage of termination plus startup time; ${advice}${assumedServedNote(ctx.graph, w)}`,
      });
    }
  },
};
