import { Fix, FixEdit, Rule } from '../engine/types';
import { get } from '../model/workload';
import { isObject } from '../model/types';

/** Node labels a nodeSelector names to pick a platform, not a pool: every node of a linux/amd64 cluster has them. */
export const PLATFORM_KEYS = ['kubernetes.io/os', 'kubernetes.io/arch', 'beta.kubernetes.io/os', 'beta.kubernetes.io/arch'];
import { DeploymentRollout, Workload } from '../model/workload';
import { antiAffinityTerms, HostPortBinding, hostPortBindings, hostPortsPhrase, HOSTNAME_KEY, POD_TEMPLATE_HASH, SpreadConstraint, spreadConstraints, unknownReservedKey, ZONE_KEYS } from './mesh-util';
import { existingPointer, fmtIntOrPercent, ReplicaBasis, replicaBasis, rolloutFor } from './rollout-util';
import { oldPodWaitDecision, PROGRESS_DEADLINE_DEFAULTS } from './progress-deadline';

export const spreadBlocksSurge: Rule = {
  meta: {
    id: 'spread-blocks-surge',
    spec: 'SPREAD-002',
    defaultSeverity: 'warning',
    severities: ['error', 'warning', 'info'],
    description: 'required anti-affinity (warning) or DoNotSchedule spread (info) plus surge without matchLabelKeys: [pod-template-hash]; host ports plus surge; DoNotSchedule on a reserved topologyKey no node carries by default',
    doc: `During a rolling update the scheduler counts old and new pods together. A required pod anti-affinity on
\`kubernetes.io/hostname\` or a zone key that selects the workload's own pods keeps the surge pod off every node
(zone) that still runs an old pod: on a cluster with no more nodes (zones) than replicas it stays Pending. When the
rollout may not take a pod down first (resolved \`maxUnavailable\` 0), nothing frees a node and the rollout stalls:
\`progressDeadlineSeconds\` only marks it failed (\`ProgressDeadlineExceeded\`), and nothing rolls it back. With \`matchLabelKeys: [pod-template-hash]\` only pods of the same revision are
counted, so the new ReplicaSet places its pods on its own. Host ports stall the same way, and there
\`matchLabelKeys\` cannot help: a node that runs an old pod has the port taken (kube-scheduler's NodePorts filter),
so the surge pod needs a node without one.

A topology spread constraint with \`whenUnsatisfiable: DoNotSchedule\` (the default when the field is absent) is
milder. kube-scheduler's PodTopologySpread filter rejects a node only when its domain's count of matching pods, plus
the new pod, minus the smallest count over the eligible domains exceeds \`maxSkew\`: the domains with the fewest pods
always pass, so the constraint never makes every domain "full". Counting the old pods restricts the surge pod to the
domains that run the fewest of them; it stays Pending only when those cannot take it: no room, or nodes the spread
counts but the pod cannot run on (tainted or cordoned nodes count under the default \`nodeTaintsPolicy: Ignore\`: a
tainted node pool or a control-plane node is an empty domain on \`kubernetes.io/hostname\`, so every pod must go to
a node without one), or fewer eligible domains than \`minDomains\` (the smallest count is then taken as 0). Those
depend on the cluster, and the lasting effect is an uneven spread once the old pods are gone
(kubernetes/kubernetes#98215, the motivation of KEP-3243): hence info.

**Conditions** (Deployments; surge and unavailability resolved as in section 4, with the HPA's \`minReplicas\`):

- **warning:** resolved \`surge >= 1\` and resolved \`maxUnavailable\` 0 (the default 25%/25% with 2 or 3 replicas, or
  an explicit \`maxUnavailable: 0\`), and a required hostname or zone anti-affinity term selecting the own pods without
  \`matchLabelKeys: [${POD_TEMPLATE_HASH}]\` (a zone term keeps the surge pod out of every zone that runs an old pod: 3
  replicas in 3 zones stall every rollout) (\`matchLabelKeys\` on affinity terms: \`MatchLabelKeysInPodAffinity\`,
  alpha 1.29, beta and on 1.31, GA 1.33, KEP-3633). With \`maxUnavailable >= 1\` the controller removes an old pod and
  frees room, so the rollout proceeds and nothing is reported.
- **info:** the same surge-only rollout and a DoNotSchedule spread constraint selecting the own pods without
  \`matchLabelKeys: [${POD_TEMPLATE_HASH}]\` (the field works from 1.27: alpha 1.25 and off, so it does not count
  below): the surge pod may go only to the domains with the fewest of these pods, old ones included (see above).
- **warning:** the same surge-only rollout of a pod that binds host ports: a \`hostPort\` (> 0) of a main container or
  native sidecar, or any declared port with \`hostPort\` unset under \`hostNetwork: true\` (the API defaults
  \`hostPort\` to \`containerPort\` in such a Pod). The rollout needs more nodes the pods can run on than replicas;
  on a cluster with no spare node it stalls (\`progressDeadlineSeconds\` only marks it failed). This holds for one replica too
  (a single-node cluster, or a node selector matching one node): a warning when a \`nodeSelector\` (on other labels than
  \`kubernetes.io/os\` and \`kubernetes.io/arch\`, which pick a platform) or a required node affinity narrows the nodes, an **info** when the one pod may run on any node (only a single-node cluster stalls; the
  same for a required hostname anti-affinity term with one replica; a zone term stays a warning: single-zone clusters
  are common). DaemonSets are left to \`daemonset-surge\`
  (DaemonSet surge, KEP-1591, places the new pod on the old pod's node); StatefulSets and Recreate do not surge.
  \`hostNetwork\` without declared ports is not judged (the scheduler sees no port; whether a surge pod placed next to an
  old one can bind is not in the manifest).
- **warning** (any workload kind, any rollout): a DoNotSchedule spread constraint whose \`topologyKey\` is under the
  prefixes Kubernetes reserves (\`kubernetes.io/\`, \`k8s.io/\`, subdomains of \`kubernetes.io\`) but is not a well-known
  node label, e.g. \`kubernetes.io/zone\` for \`topology.kubernetes.io/zone\`. kube-scheduler's PodTopologySpread filter
  rejects every node without the key ("node(s) didn't match pod topology spread constraints (missing required
  label)"), whatever the selector, so unless an admin labelled the nodes with it every pod stays Pending. A warning,
  not an error: an admin may have. Not reported: keys in namespaces where admins and Kubernetes projects name node
  labels themselves (\`[*.]node.kubernetes.io/\`, \`[*.]kubelet.kubernetes.io/\`, \`node-restriction.kubernetes.io/\`,
  \`node-role.kubernetes.io/\`, subdomains of \`k8s.io\` such as \`kops.k8s.io/\`), keys outside the reserved prefixes
  (\`example.com/rack\`: admins set those), and ScheduleAnyway (it never leaves a pod Pending; \`replicas-not-spread\`
  says it spreads nothing). A required pod anti-affinity on such a key is not reported here: kube-scheduler
  treats a node without the key as satisfying the term, so it leaves no pod Pending (it separates nothing, which
  \`replicas-not-spread\` names).
- **error:** \`minDomains\` with \`whenUnsatisfiable: ScheduleAnyway\` on >= 1.27: the API rejects it ("can only use
  minDomains if whenUnsatisfiable=DoNotSchedule").
- **info:** \`minDomains\` on a target below 1.27, where \`MinDomainsInPodTopologySpread\` is off (beta off in
  1.25-1.26): the field is dropped.

**Fix** (by version):
\`\`\`yaml
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: DoNotSchedule
  labelSelector: {matchLabels: {app: web}}
  matchLabelKeys: [pod-template-hash]   # >= 1.27; below: whenUnsatisfiable: ScheduleAnyway, or allow maxUnavailable: 1
\`\`\`
For a required hostname anti-affinity: add \`matchLabelKeys: [pod-template-hash]\` to the term on >= 1.31; below,
use \`preferredDuringSchedulingIgnoredDuringExecution\` or the spread constraint above.
For host ports: \`strategy.rollingUpdate: {maxSurge: 0, maxUnavailable: 1}\` (an old pod frees its node first; one
pod less serves meanwhile), or keep a spare node the pods can run on; with one replica, only the spare node avoids
downtime. With maxSurge 0 each step waits for an old pod's termination before its replacement can take the node
(kube-scheduler counts a terminating pod until its containers exit): when that termination (preStop + a declared or
known drain, else up to the grace period) is longer than \`progressDeadlineSeconds\`, the message says so and the
proposal also raises \`progressDeadlineSeconds\` to the termination plus a realistic step (see \`progress-deadline\`),
else every rollout is reported ProgressDeadlineExceeded.

**\`--fix\`:** appends \`pod-template-hash\` to the constraint's \`matchLabelKeys\` on >= 1.27, or to the anti-affinity term's on >= 1.31 (safe). Before that, with \`--fix-proposals\`: \`whenUnsatisfiable: ScheduleAnyway\` (dropping \`minDomains\`), or the required term moved to \`preferredDuringSchedulingIgnoredDuringExecution\` with weight 100. For host ports with 2 or more replicas, with \`--fix-proposals\`: \`maxSurge: 0, maxUnavailable: 1\` (never safe: it trades capacity during the rollout for progress), and a \`progressDeadlineSeconds\` above an old pod's termination when that is longer than the deadline; with one replica, no fix. For a reserved key that is not a well-known node label, with \`--fix-proposals\`: the well-known key of the same name (\`zone\`, \`region\`, \`hostname\`, \`os\`, \`arch\`, \`instance-type\`), when there is one.`,
    fixable: true,
    versionGate:
      'matchLabelKeys (MatchLabelKeysInPodTopologySpread): alpha 1.25, beta (on) 1.27; minDomains: beta (on) 1.27, GA 1.30; matchLabelKeys on pod affinity terms (MatchLabelKeysInPodAffinity, KEP-3633): alpha 1.29, beta (on) 1.31, GA 1.33',
    paramsSchema: { type: 'object', properties: {}, additionalProperties: false },
    defaults: {},
    references: [
      'kubernetes/website content/en/docs/concepts/scheduling-eviction/topology-spread-constraints.md',
      'kubernetes/website feature-gates MatchLabelKeysInPodTopologySpread.md, MinDomainsInPodTopologySpread.md',
      'kubernetes/enhancements keps/sig-scheduling/3243-respect-pod-topology-spread-after-rolling-upgrades/kep.yaml',
      'kubernetes/enhancements keps/sig-scheduling/3633-matchlabelkeys-to-podaffinity (KEP-3633)',
      'kubernetes/kubernetes pkg/apis/core/validation/validation.go (validateMinDomains)',
      'kubernetes/kubernetes pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (Filter: matchNum + selfMatchNum - minMatchNum > maxSkew; calPreFilterState: nodes counted by nodeAffinityPolicy/nodeTaintsPolicy)',
      'kubernetes/kubernetes#98215 (spread not respected after a rolling update)',
    ],
  },
  check(ctx) {
    const v = ctx.version.toString();
    const tscKeysOn = ctx.version.atLeast(1, 27);
    const affinityKeysOn = ctx.version.atLeast(1, 31);
    for (const w of ctx.graph.workloads) {
      const constraints = spreadConstraints(w);
      for (const c of constraints) {
        checkMinDomains(w, c);
        checkUnknownKey(w, c);
      }
      if (w.kind !== 'Deployment' || !w.deployment || w.deployment.type !== 'RollingUpdate') continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas <= 0) continue;
      const d = rolloutFor(w, basis.replicas)!;
      if (d.surge < 1 || d.unavailable > 0) continue;
      const rollout = rolloutPhrase(d, basis);
      const hostPorts = hostPortBindings(w);
      // A hard spreading rule's fix does not free the node while a host port holds it.
      const portsNote = hostPorts.length ? `; the pod also binds host ports (${hostPortsPhrase(hostPorts)}), which keep the surge pod off every node with an old pod whatever matchLabelKeys says (see the host-port finding)` : '';
      for (const c of constraints) {
        if (!c.selectsOwn || c.whenUnsatisfiable !== 'DoNotSchedule') continue;
        const hasHash = c.matchLabelKeys.includes(POD_TEMPLATE_HASH);
        if (hasHash && tscKeysOn) continue;
        const what = `topologySpreadConstraints[${c.index}] (topologyKey ${c.topologyKey ?? '?'}, maxSkew ${c.maxSkew ?? '?'}, whenUnsatisfiable DoNotSchedule${c.whenUnsatisfiableSet ? '' : ' by default'})`;
        const fix = tscKeysOn
          ? `add matchLabelKeys: [${POD_TEMPLATE_HASH}] to the constraint so only pods of the same revision are counted`
          : hasHash
            ? `matchLabelKeys is ignored on ${v} (MatchLabelKeysInPodTopologySpread is off before 1.27): use whenUnsatisfiable: ScheduleAnyway, or allow maxUnavailable: 1, until the cluster runs >= 1.27`
            : `matchLabelKeys: [${POD_TEMPLATE_HASH}] needs >= 1.27 (off on ${v}): use whenUnsatisfiable: ScheduleAnyway, or allow maxUnavailable: 1`;
        let repair: Fix | undefined;
        if (tscKeysOn) {
          repair = { description: `add matchLabelKeys: [${POD_TEMPLATE_HASH}] to topologySpreadConstraints[${c.index}]`, safety: 'safe', edits: [{ op: 'append', pointer: `${c.pointer}/matchLabelKeys`, value: POD_TEMPLATE_HASH }] };
        } else {
          // minDomains is dropped before 1.27 anyway, and the API allows it only with DoNotSchedule.
          const edits: FixEdit[] = [{ op: 'set', pointer: `${c.pointer}/whenUnsatisfiable`, value: 'ScheduleAnyway' }];
          if (c.minDomains !== undefined) edits.push({ op: 'remove', pointer: `${c.pointer}/minDomains` });
          repair = { description: `make topologySpreadConstraints[${c.index}] whenUnsatisfiable: ScheduleAnyway (matchLabelKeys needs >= 1.27)`, safety: 'proposal', edits };
        }
        const node = c.topologyKey === HOSTNAME_KEY;
        const where = node ? 'nodes' : 'domains';
        // (nodeTaintsPolicy: Honor leaves out the nodes whose taints the pod does not tolerate.)
        const taints = c.raw.nodeTaintsPolicy === 'Honor' ? '' : `, or ${node ? 'a tainted or cordoned node' : 'tainted or cordoned nodes'} the spread counts under ${c.raw.nodeTaintsPolicy === undefined ? 'the default ' : ''}nodeTaintsPolicy: Ignore${node ? ' (a tainted pool or a control-plane node is a domain with none of these pods, so the surge pod must go to a node without one)' : ''}`;
        ctx.report({
          object: w.obj,
          fix: repair,
          pointer: c.whenUnsatisfiableSet ? `${c.pointer}/whenUnsatisfiable` : c.pointer,
          severity: 'info',
          message: `${what} counts old and new pods together while ${rollout}: the surge pod may go only to the ${where} that run the fewest of these pods, old ones included; when those cannot take it (no room${taints}${c.minDomains !== undefined ? `, or fewer eligible ${where} than minDomains ${c.minDomains}` : ''}) it stays Pending, no old pod is removed, and the rollout stalls: progressDeadlineSeconds (${d.progressDeadlineSeconds}s) only marks it failed (ProgressDeadlineExceeded) and nothing rolls it back, and once the old pods are gone the new ones can be spread unevenly (kubernetes/kubernetes#98215); ${fix}${portsNote}`,
        });
      }
      for (const t of antiAffinityTerms(w)) {
        // (Hostname or zone: a zone term keeps the surge pod out of every zone that runs an old pod,
        // as gke-stateful-mysql's 3 replicas in 3 zones.)
        if (!t.required || t.topologyKey === undefined || (t.topologyKey !== HOSTNAME_KEY && !ZONE_KEYS.includes(t.topologyKey)) || !t.selectsOwn) continue;
        const zone = t.topologyKey !== HOSTNAME_KEY;
        const hasHash = t.matchLabelKeys.includes(POD_TEMPLATE_HASH);
        if (hasHash && affinityKeysOn) continue;
        const fix = affinityKeysOn
          ? `add matchLabelKeys: [${POD_TEMPLATE_HASH}] to the term (MatchLabelKeysInPodAffinity, on since 1.31), or make it preferredDuringSchedulingIgnoredDuringExecution`
          : `${hasHash ? `matchLabelKeys on affinity terms is ignored on ${v} (MatchLabelKeysInPodAffinity is on from 1.31); ` : ''}make it preferredDuringSchedulingIgnoredDuringExecution, or replace it with a kubernetes.io/hostname topologySpreadConstraint${tscKeysOn ? ` with matchLabelKeys: [${POD_TEMPLATE_HASH}]` : ' with whenUnsatisfiable: ScheduleAnyway'}`;
        // One replica on nodes: the surge pod needs a second node, which only a single-node cluster (or
        // a node selector or required node affinity that may match one node) lacks: an info then
        // (review p38 item 6, linkerd-viz's HA values). Zones stay a warning: single-zone clusters are common.
        const spare = !zone && oneReplicaAnyNode(w, basis);
        ctx.report({
          object: w.obj,
          fix: affinityRepair(w, t.pointer, t.index, affinityKeysOn),
          pointer: t.pointer,
          severity: spare ? 'info' : 'warning',
          message: spare
            ? `required pod anti-affinity on ${t.topologyKey} (requiredDuringSchedulingIgnoredDuringExecution[${t.index}]) keeps the surge pod off the node that still runs the old pod while ${rollout}: on a cluster with a single node these pods can run on, the surge pod stays Pending and the rollout stalls: progressDeadlineSeconds (${d.progressDeadlineSeconds}s) only marks it failed (ProgressDeadlineExceeded) and nothing rolls it back; with one replica and no node selector any second node takes it, hence info; ${fix}${portsNote}`
            : `required pod anti-affinity on ${t.topologyKey} (requiredDuringSchedulingIgnoredDuringExecution[${t.index}]) keeps the surge pod off every ${zone ? 'zone' : 'node'} that still runs an old pod while ${rollout}: when there are no more ${zone ? 'zones' : 'nodes'} than replicas the surge pod stays Pending and the rollout stalls: progressDeadlineSeconds (${d.progressDeadlineSeconds}s) only marks it failed (ProgressDeadlineExceeded) and nothing rolls it back; ${fix}${portsNote}`,
        });
      }
      if (hostPorts.length) reportHostPorts(w, hostPorts, d, basis, rollout);
    }

    /**
     * Host ports and a surge-only rollout: an old and a new pod of the template never share a node
     * (NodePorts filter), so the surge pod needs a node without an old pod. matchLabelKeys has no
     * say here; the repair is a strategy change (a proposal), or spare nodes.
     */
    function reportHostPorts(w: Workload, ports: HostPortBinding[], d: DeploymentRollout, basis: ReplicaBasis, rollout: string): void {
      // The first hostPort written, else the hostNetwork field that makes the declared ports host ports.
      const pointer = ports.find((p) => !p.viaHostNetwork)?.pointer ?? existingPointer(w.obj.raw, ...w.podSpecPointer.slice(1).split('/'), 'hostNetwork');
      const nodes = basis.replicas + 1;
      const single = basis.replicas === 1;
      // With maxSurge 0 each step waits for an old pod's whole termination before its replacement can
      // take the node (progress-deadline's oldPodWaitDecision, judged as if the proposal were applied):
      // a termination longer than progressDeadlineSeconds makes every rollout report ProgressDeadlineExceeded,
      // so the proposal says so and raises the deadline with the strategy (review round 24, LiveKit).
      const wait = single ? undefined : oldPodWaitDecision(ctx.graph, w, ctx.version, PROGRESS_DEADLINE_DEFAULTS, true);
      const waitNote = wait
        ? `; but an old pod's termination lasts ${wait.termination.words}, longer than progressDeadlineSeconds (${wait.pds}s): with maxSurge 0 each step waits for it before the replacement can take the node, with one pod less serving all that time, so also raise progressDeadlineSeconds to at least ${wait.needed}s (the termination + ${wait.realisticParts.join(' + ')}), else every rollout is reported ProgressDeadlineExceeded and \`kubectl rollout status\` (and CD tools) fail it (progress-deadline); a spare node avoids the wait`
        : '';
      const advice = single
        ? `keep a second node these pods can run on (maxSurge: 0 with maxUnavailable: 1 would take the only replica down at every rollout)`
        : `set strategy.rollingUpdate to {maxSurge: 0, maxUnavailable: 1} so an old pod frees its node first (one pod less serves during the rollout), or keep a spare node${waitNote}`;
      const edits: FixEdit[] = [
        { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxSurge', value: 0 },
        { op: 'set', pointer: '/spec/strategy/rollingUpdate/maxUnavailable', value: 1 },
      ];
      if (wait) edits.push({ op: 'set', pointer: '/spec/progressDeadlineSeconds', value: wait.needed });
      ctx.report({
        object: w.obj,
        fix: single
          ? undefined
          : {
              description: wait
                ? `set strategy.rollingUpdate to maxSurge 0, maxUnavailable 1 (the pod binds host ports, so a surge pod needs a spare node) and progressDeadlineSeconds to ${wait.needed} (each step then waits for an old pod's termination, ${wait.termination.words})`
                : 'set strategy.rollingUpdate to maxSurge 0, maxUnavailable 1 (the pod binds host ports, so a surge pod needs a spare node)',
              safety: 'proposal',
              edits,
            },
        pointer,
        // (One replica and no node selector: any second node takes the surge pod, as above.)
        severity: single && oneReplicaAnyNode(w, basis) ? 'info' : 'warning',
        message: `the pod binds host port${new Set(ports.map((p) => p.port)).size === 1 ? '' : 's'} (${hostPortsPhrase(ports)}) while ${rollout}: the surge pod cannot run on a node that still runs an old pod (the ports are taken there; kube-scheduler NodePorts: "node(s) didn't have free ports for the requested pod ports"), so on a cluster with fewer than ${nodes} nodes these pods can run on, it stays Pending, no old pod is removed, and the rollout stalls: progressDeadlineSeconds (${d.progressDeadlineSeconds}s) only marks it failed (ProgressDeadlineExceeded) and nothing rolls it back; matchLabelKeys cannot help with host ports: ${advice}`,
      });
    }

    /**
     * One replica whose pod may run on any node (no nodeSelector but on the platform labels, no
     * required node affinity): a
     * surge pod kept off the old pod's node needs only a second node.
     */
    function oneReplicaAnyNode(w: Workload, basis: ReplicaBasis): boolean {
      if (basis.replicas !== 1) return false;
      // (kubernetes.io/os and /arch select every node of the platform: linkerd's charts pin linux.)
      const sel = get(w.podSpec, 'nodeSelector');
      if (isObject(sel) && Object.keys(sel).some((k) => !PLATFORM_KEYS.includes(k))) return false;
      const required = get(w.podSpec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution');
      return required === undefined || required === null;
    }

    /** matchLabelKeys on >= 1.31 (safe); before, move the term to preferred (a proposal). */
    function affinityRepair(w: Workload, pointer: string, index: number, keysOn: boolean): Fix | undefined {
      if (keysOn) return { description: `add matchLabelKeys: [${POD_TEMPLATE_HASH}] to the required pod anti-affinity term ${index}`, safety: 'safe', edits: [{ op: 'append', pointer: `${pointer}/matchLabelKeys`, value: POD_TEMPLATE_HASH }] };
      const base = `${w.podSpecPointer}/affinity/podAntiAffinity`;
      const required = get(w.podSpec, 'affinity', 'podAntiAffinity', 'requiredDuringSchedulingIgnoredDuringExecution');
      const term = Array.isArray(required) ? required[index] : undefined;
      if (term === undefined) return undefined;
      const only = Array.isArray(required) && required.length === 1;
      return {
        description: `make the required pod anti-affinity term ${index} preferred (weight 100)`,
        safety: 'proposal',
        edits: [
          { op: 'remove', pointer: only ? `${base}/requiredDuringSchedulingIgnoredDuringExecution` : pointer },
          { op: 'append', pointer: `${base}/preferredDuringSchedulingIgnoredDuringExecution`, value: { weight: 100, podAffinityTerm: JSON.parse(JSON.stringify(term)) } },
        ],
      };
    }

    function rolloutPhrase(d: DeploymentRollout, basis: ReplicaBasis): string {
      const surge = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'}`;
      const unavail = `maxUnavailable ${fmtIntOrPercent(d.maxUnavailable)}${d.maxUnavailableSet ? '' : ' (default)'}`;
      return `the rollout surges ${d.surge} pod${d.surge === 1 ? '' : 's'} and takes none down first (${surge} and ${unavail} with ${basis.phrase})`;
    }

    /**
     * A DoNotSchedule constraint on a reserved key that is not a well-known node label: the
     * PodTopologySpread filter rejects every node without the key (ErrReasonNodeLabelNotMatch), so
     * no pod schedules unless an admin labelled the nodes with it (hence a warning, not an error).
     * Whatever the selector: the filter reads the node's labels before counting any pod.
     */
    function checkUnknownKey(w: Workload, c: SpreadConstraint): void {
      if (c.whenUnsatisfiable !== 'DoNotSchedule' || c.topologyKey === undefined) return;
      const unknown = unknownReservedKey(c.topologyKey);
      if (!unknown) return;
      const key = c.topologyKey;
      const prefix = key.startsWith('k8s.io/') ? 'k8s.io/' : 'kubernetes.io/';
      ctx.report({
        object: w.obj,
        pointer: `${c.pointer}/topologyKey`,
        severity: 'warning',
        fix: unknown.meant
          ? { description: `set topologySpreadConstraints[${c.index}].topologyKey to ${unknown.meant}`, safety: 'proposal', edits: [{ op: 'set', pointer: `${c.pointer}/topologyKey`, value: unknown.meant }] }
          : undefined,
        message: `topologySpreadConstraints[${c.index}] (topologyKey ${key}, whenUnsatisfiable DoNotSchedule${c.whenUnsatisfiableSet ? '' : ' by default'}) spreads over a label no node carries unless an admin set it: ${key} is under the ${prefix} prefix Kubernetes reserves but is not a well-known node label${unknown.meant ? ` (the well-known one is ${unknown.meant})` : ''}, and kube-scheduler rejects every node without it ("node(s) didn't match pod topology spread constraints (missing required label)"), so every pod stays Pending; ${unknown.meant ? `use topologyKey: ${unknown.meant}` : 'use a label the nodes carry (kubernetes.io/hostname, topology.kubernetes.io/zone)'}, or, if the nodes are labelled with ${key} on purpose, suppress this finding`,
      });
    }

    function checkMinDomains(w: Workload, c: SpreadConstraint): void {
      if (c.minDomains === undefined) return;
      const pointer = `${c.pointer}/minDomains`;
      if (!tscKeysOn) {
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'info',
          message: `topologySpreadConstraints[${c.index}].minDomains is dropped on ${v} (MinDomainsInPodTopologySpread is beta and on from 1.27, GA 1.30): the constraint behaves as if it were unset`,
        });
        return;
      }
      if (c.whenUnsatisfiableSet && c.whenUnsatisfiable !== 'DoNotSchedule') {
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'error',
          message: `topologySpreadConstraints[${c.index}] sets minDomains ${c.minDomains} with whenUnsatisfiable ${c.whenUnsatisfiable}: the API rejects it ("can only use minDomains if whenUnsatisfiable=DoNotSchedule"); remove minDomains or use whenUnsatisfiable: DoNotSchedule`,
        });
      }
    }
  },
};
