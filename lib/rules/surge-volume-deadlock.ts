import { Rule } from '../engine/types';
import { ClaimMount, ObjectGraph } from '../model/graph';
import { Workload } from '../model/workload';
import { antiAffinityTerms, hostPortBindings, hostPortsPhrase, HOSTNAME_KEY, spreadConstraints, ZONE_KEYS } from './mesh-util';
import { claimExclusivity, fmtIntOrPercent, nodePinning, ReplicaBasis, replicaBasis, rolloutFor } from './rollout-util';

/** A claim whose pods cannot run apart: `pod` (ReadWriteOncePod) or `node` (ReadWriteOnce, template not pinned to one node). */
export interface ExclusiveClaim {
  claim: ClaimMount;
  exclusivity: 'pod' | 'node';
}

/**
 * The claims the workload's pods cannot share across nodes (ReadWriteOncePod: not at all): RWOP,
 * and RWO unless the template is pinned to one node (then every pod runs there, and they share it).
 * Claims whose PVC is not in the set have an unknown mode and are not counted.
 */
export function exclusiveClaims(graph: ObjectGraph, w: Workload): ExclusiveClaim[] {
  const pinned = nodePinning(w);
  const out: ExclusiveClaim[] = [];
  for (const claim of graph.claimsOf(w)) {
    const ex = claimExclusivity(claim);
    if (ex === 'pod' || (ex === 'node' && !pinned)) out.push({ claim, exclusivity: ex });
  }
  return out;
}

/** Kinds whose every replica mounts the template's claims (a StatefulSet's volumeClaimTemplates are per pod, and are not template volumes). */
const SHARED_KINDS = new Set(['Deployment', 'ReplicaSet']);

/** The exclusive claims every replica of a Deployment or ReplicaSet would mount, whatever the replica count. */
export function replicaExclusiveClaims(graph: ObjectGraph, w: Workload): ExclusiveClaim[] {
  return SHARED_KINDS.has(w.kind) ? exclusiveClaims(graph, w) : [];
}

/**
 * Replicas (>= 2; the HPA's minReplicas when an HPA targets the workload) of a Deployment or
 * ReplicaSet that all mount one exclusive claim: only one pod (RWOP), or only pods on one node
 * (RWO), can use it. Shared with the rules whose advice needs the replicas apart (replicas-not-spread,
 * pdb-missing, hpa-replicas) and with explain.
 */
export function sharedClaimDecision(graph: ObjectGraph, w: Workload): { basis: ReplicaBasis; claims: ExclusiveClaim[] } | undefined {
  if (!SHARED_KINDS.has(w.kind)) return undefined;
  const basis = replicaBasis(graph, w);
  if (!basis || basis.replicas < 2) return undefined;
  const claims = replicaExclusiveClaims(graph, w);
  return claims.length ? { basis, claims } : undefined;
}

const SPREAD_KEYS = new Set([HOSTNAME_KEY, ...ZONE_KEYS]);

/**
 * What in the template puts the replicas on different nodes, in words: `hard` when it keeps two
 * of them off one node (required anti-affinity, a DoNotSchedule spread with maxSkew 1, host ports),
 * else a preference the scheduler follows when it can (ScheduleAnyway, preferred anti-affinity).
 */
function keptApart(w: Workload): { what: string; hard: boolean } | undefined {
  const req = antiAffinityTerms(w).find((t) => t.required && t.selectsOwn && t.topologyKey !== undefined && SPREAD_KEYS.has(t.topologyKey));
  if (req) return { what: `required pod anti-affinity on ${req.topologyKey}`, hard: true };
  const tscs = spreadConstraints(w).filter((c) => c.selectsOwn && c.topologyKey !== undefined && SPREAD_KEYS.has(c.topologyKey));
  const hard = tscs.find((c) => c.whenUnsatisfiable === 'DoNotSchedule' && c.maxSkew === 1);
  if (hard) return { what: `topologySpreadConstraints[${hard.index}] (DoNotSchedule, maxSkew 1 on ${hard.topologyKey})`, hard: true };
  const ports = hostPortBindings(w);
  if (ports.length) return { what: `host ports (${hostPortsPhrase(ports)})`, hard: true };
  if (tscs.length) return { what: `topologySpreadConstraints[${tscs[0].index}] on ${tscs[0].topologyKey}`, hard: false };
  const pref = antiAffinityTerms(w).find((t) => t.selectsOwn && t.topologyKey !== undefined && SPREAD_KEYS.has(t.topologyKey));
  return pref ? { what: `preferred pod anti-affinity on ${pref.topologyKey}`, hard: false } : undefined;
}

/** What to do about replicas sharing an exclusive claim. */
function sharedFix(basis: ReplicaBasis): string {
  const one = basis.hpa ? `run one replica (remove HorizontalPodAutoscaler/${basis.hpa.obj.name}, or set its minReplicas and maxReplicas to 1)` : 'run one replica';
  return `${one} with strategy.type: Recreate so a rollout never runs two, use ReadWriteMany storage if the replicas may share the data, or make it a StatefulSet with volumeClaimTemplates if each replica can own its data`;
}

export const surgeVolumeDeadlock: Rule = {
  meta: {
    id: 'surge-volume-deadlock',
    spec: 'ROLL-002',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'surge rollout of a Deployment mounting an exclusive PVC: the new pod can never attach it; replicas sharing an exclusive PVC',
    doc: `A RollingUpdate Deployment with a resolved \`surge >= 1\` starts the new pod while the old one still
runs. When both mount the same exclusive PersistentVolumeClaim, the new pod cannot get the volume:
- \`ReadWriteOncePod\` (GA 1.29) is pod-exclusive: the surge pod never starts. The rollout always deadlocks (**error**).
- \`ReadWriteOnce\` is node-exclusive: the surge pod can mount it only if it lands on the old pod's node, so the
  deadlock is intermittent: the new pod stays Pending with Multi-Attach errors, the old pod is never removed, and the
  rollout ends in \`ProgressDeadlineExceeded\` (**warning**). Not reported when the template is pinned to one node
  (\`nodeName\`, a \`kubernetes.io/hostname\` nodeSelector, or required node affinity on \`kubernetes.io/hostname\`),
  or when the claim also lists \`ReadWriteMany\`/\`ReadOnlyMany\` (multi-attach is then allowed).

**Replicas sharing an exclusive PVC.** The same reading applies to the replicas themselves: a Deployment or
ReplicaSet with \`replicas >= 2\` (the HPA's \`minReplicas\` when an HPA targets it), whatever its strategy, whose
template mounts such a claim runs every replica on one claim.
- \`ReadWriteOncePod\`: only one pod can use the claim; the other replicas stay Pending (**error**).
- \`ReadWriteOnce\` (not pinned to one node): the volume "can be mounted as read-write by a single node", so the
  replicas all run only while the scheduler puts every one on the node that has it attached, which nothing in the
  template guarantees; a replica scheduled elsewhere stays in ContainerCreating with a Multi-Attach error
  (**warning**). When the template keeps the replicas on different nodes (a required pod anti-affinity on the
  hostname or a zone, a \`DoNotSchedule\` spread with \`maxSkew: 1\` on one, host ports), every replica but one fails on
  a cluster of more than one node (**error**); a preferred spread makes the failure likely, and the message says so.

This finding replaces the surge finding for the same claim (its fix covers the surge too). Spreading the replicas
(\`replicas-not-spread\`), a PodDisruptionBudget (\`pdb-missing\`: the replacement of an evicted replica cannot attach the
volume on another node while a second replica holds it, so the budget stalls the drain) and \`minReplicas: 2\`
(\`hpa-replicas\`) are not advised for such a workload. A StatefulSet's \`volumeClaimTemplates\` give each pod its own
claim and are not judged here.

Only claims whose PVC is in the linted set are judged (the access mode is otherwise unknown). The surge is
resolved as in section 4, with the HPA's \`minReplicas\` when an HPA targets the Deployment.

Fix (not automatic: converting to a StatefulSet with \`volumeClaimTemplates\` can orphan data):
\`\`\`yaml
strategy:
  type: Recreate          # or RollingUpdate with maxSurge: 0, maxUnavailable: 1
\`\`\`
For replicas sharing the claim: one replica with \`strategy.type: Recreate\`, \`ReadWriteMany\` storage if the replicas may
share the data, or a StatefulSet with \`volumeClaimTemplates\` if each replica can own its data.`,
    fixable: false,
    references: [
      'gravitational/teleport#11484 and PR #42331 ("re-create pods when a PV is mounted")',
      'sourcegraph/deploy-sourcegraph PR #154',
      'kubernetes/website feature-gates ReadWriteOncePod.md',
      'kubernetes/website content/en/docs/concepts/storage/persistent-volumes.md#access-modes',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      const shared = sharedClaimDecision(ctx.graph, w);
      const sharedClaims = new Set(shared?.claims.map((c) => c.claim.pointer));
      if (shared) reportShared(w, shared.basis, shared.claims);
      if (w.kind !== 'Deployment' || !w.deployment || w.deployment.type !== 'RollingUpdate') continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas <= 0) continue;
      const d = rolloutFor(w, basis.replicas)!;
      if (d.surge < 1) continue;
      const surge = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge} with ${basis.phrase}`;
      for (const { claim: c, exclusivity: ex } of exclusiveClaims(ctx.graph, w)) {
        // Said by the replicas' finding, whose fix covers the surge pod too.
        if (sharedClaims.has(c.pointer)) continue;
        if (ex === 'pod') {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'error',
            message: `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOncePod) and ${surge}: the surge pod can never use the claim while the old pod holds it, so every rollout deadlocks; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1), or move to a StatefulSet with volumeClaimTemplates`,
          });
        } else {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'warning',
            message: `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOnce) and ${surge}: a surge pod scheduled on another node stays Pending on Multi-Attach while the old pod keeps the volume, and the rollout stalls until progressDeadlineSeconds; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1)`,
          });
        }
      }
    }

    /** One finding per shared claim, at its volume; the rollout's surge pod, when there is one, is named in it. */
    function reportShared(w: Workload, basis: ReplicaBasis, claims: ExclusiveClaim[]): void {
      const d = w.deployment?.type === 'RollingUpdate' ? rolloutFor(w, basis.replicas) : undefined;
      const surge = d && d.surge >= 1 ? `; a rollout adds its surge pod (maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge}) to the same claim` : '';
      const apart = keptApart(w);
      for (const { claim: c, exclusivity: ex } of claims) {
        const head = `volume "${c.volumeName}" mounts PVC "${c.claimName}" (${ex === 'pod' ? 'ReadWriteOncePod' : 'ReadWriteOnce'}) in every replica (${basis.phrase})`;
        let what: string;
        if (ex === 'pod') what = 'only one pod can use a ReadWriteOncePod claim, so one replica runs and the others stay Pending';
        else if (apart?.hard)
          what = `a ReadWriteOnce volume attaches to one node at a time, and ${apart.what} keeps the replicas on different nodes, so on a cluster of more than one node every replica but one stays in ContainerCreating on a Multi-Attach error`;
        else
          what = `a ReadWriteOnce volume attaches to one node at a time, so a replica scheduled on a node other than the one that has it attached stays in ContainerCreating on a Multi-Attach error, and the replicas all run only while every one lands on that node, which nothing in the template ensures${apart ? ` (${apart.what} asks the scheduler to place them on different nodes, which makes the failure likely)` : ''}`;
        ctx.report({
          object: w.obj,
          pointer: c.pointer,
          severity: ex === 'pod' || apart?.hard ? 'error' : 'warning',
          message: `${head}: ${what}${surge}; ${sharedFix(basis)}`,
        });
      }
    }
  },
};
