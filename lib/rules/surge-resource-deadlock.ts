import { Rule } from '../engine/types';
import { isLiteralZero, parseIntOrPercent } from '../model/intstr';
import { escapeSegment } from '../model/parse';
import { isObject, Json } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { fmtIntOrPercent, replicaBasis, rolloutFor } from './rollout-util';

/**
 * Resource names a pod requests that are not extended resources: the scheduler's native
 * resources (cpu, memory, ephemeral-storage, storage, pods, hugepages-*, attachable-volumes-*)
 * and the reserved kubernetes.io namespace. They are never judged here.
 */
export function isStandardResource(name: string): boolean {
  return (
    ['cpu', 'memory', 'ephemeral-storage', 'storage', 'pods'].includes(name) ||
    name.startsWith('hugepages-') ||
    name.startsWith('attachable-volumes-') ||
    name.startsWith('requests.') ||
    /(^|\.)kubernetes\.io\//.test(name) ||
    !name.includes('/')
  );
}

/**
 * Device-plugin resources that are accelerators: few per node, sized to the steady state, slow or
 * impossible to add (quota, stock-outs). NVIDIA (gpu, mig-*, gpu.shared, HAMi gpumem/gpucores),
 * AMD, Intel GPU and Gaudi, Google TPU, AWS Neuron, FPGAs, and the other vendors' AI accelerators.
 */
export const ACCELERATOR_PATTERNS = [
  'nvidia.com/*',
  'amd.com/*',
  'gpu.intel.com/*',
  'habana.ai/*',
  'google.com/tpu',
  'cloud-tpus.google.com/*',
  'aws.amazon.com/neuron*',
  'fpga.intel.com/*',
  'xilinx.com/*',
  'huawei.com/Ascend*',
  'cambricon.com/*',
  'hygon.com/*',
  'metax-tech.com/*',
  'iluvatar.ai/*',
  'enflame.com/*',
  'qualcomm.com/qaic',
  'tenstorrent.com/*',
  'graphcore.ai/*',
];

/**
 * Extended resources that device plugins advertise in bulk per node (access to /dev/kvm, FUSE,
 * shared RDMA, per-pod ENIs injected by the VPC controller): a surge pod finds a free unit.
 */
export const ABUNDANT_PATTERNS = ['devices.kubevirt.io/*', 'squat.ai/*', 'smarter-devices/*', 'github.com/fuse', 'rdma/hca_shared_devices*', 'vpc.amazonaws.com/*'];

function globMatch(pattern: string, name: string): boolean {
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return name === pattern;
}

export type Scarcity = 'accelerator' | 'extended' | 'abundant' | 'standard';

export function scarcityOf(name: string, extraScarce: readonly string[] = [], extraAbundant: readonly string[] = []): Scarcity {
  if (isStandardResource(name)) return 'standard';
  if (extraAbundant.some((p) => globMatch(p, name))) return 'abundant';
  if (extraScarce.some((p) => globMatch(p, name)) || ACCELERATOR_PATTERNS.some((p) => globMatch(p, name))) return 'accelerator';
  if (ABUNDANT_PATTERNS.some((p) => globMatch(p, name))) return 'abundant';
  return 'extended';
}

/** An extended-resource count as the API accepts it (whole numbers; "2", 2, "1k"). */
function units(v: Json | undefined): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(k|M|G|Ki|Mi|Gi)?\s*$/.exec(v);
  if (!m) return undefined;
  const mult: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
  return Number(m[1]) * (m[2] ? mult[m[2]] : 1);
}

/** One container's request of a resource: `requests`, else `limits` (the API copies limits into requests for extended resources). */
interface ContainerRequest {
  container: ContainerView;
  amount: number;
  pointer: string;
}

function requestOf(c: ContainerView, name: string): ContainerRequest | undefined {
  const res = c.raw.resources;
  if (!isObject(res)) return undefined;
  for (const field of ['requests', 'limits']) {
    const map = res[field];
    if (!isObject(map) || !Object.prototype.hasOwnProperty.call(map, name)) continue;
    const amount = units(map[name]);
    if (amount === undefined) return undefined;
    return { container: c, amount, pointer: `${c.pointer}/resources/${field}/${escapeSegment(name)}` };
  }
  return undefined;
}

/** A scarce resource the pod requests, with the pod's effective request (the scheduler's sum/max rule). */
export interface PodRequest {
  name: string;
  scarcity: 'accelerator' | 'extended';
  perPod: number;
  /** The container requests that make up perPod (for the message and the pointer). */
  parts: ContainerRequest[];
}

/**
 * Effective pod request per scarce resource, as the scheduler computes it: main containers and
 * native sidecars add up; a classic init container runs alone (with the sidecars started before
 * it), so the pod needs the larger of the two.
 */
export function scarceRequests(w: Workload, extraScarce: readonly string[] = [], extraAbundant: readonly string[] = []): PodRequest[] {
  const names = new Set<string>();
  for (const c of [...w.containers, ...w.sidecars, ...w.initContainers]) {
    const res = c.raw.resources;
    if (!isObject(res)) continue;
    for (const field of ['requests', 'limits']) {
      const map = res[field];
      if (isObject(map)) for (const k of Object.keys(map)) names.add(k);
    }
  }
  const out: PodRequest[] = [];
  for (const name of names) {
    const s = scarcityOf(name, extraScarce, extraAbundant);
    if (s !== 'accelerator' && s !== 'extended') continue;
    const running = [...w.containers, ...w.sidecars].map((c) => requestOf(c, name)).filter((r): r is ContainerRequest => r !== undefined && r.amount > 0);
    let perPod = running.reduce((a, r) => a + r.amount, 0);
    let parts = running;
    const sidecarSum = w.sidecars.map((c) => requestOf(c, name)?.amount ?? 0).reduce((a, b) => a + b, 0);
    for (const c of w.initContainers) {
      const r = requestOf(c, name);
      if (r && r.amount > 0 && r.amount + sidecarSum > perPod) {
        perPod = r.amount + sidecarSum;
        parts = [r];
      }
    }
    if (perPod > 0) out.push({ name, scarcity: s, perPod, parts });
  }
  return out;
}

function describeRequests(reqs: PodRequest[]): string {
  return reqs
    .map((r) => {
      const who = r.parts.length === 1 ? `container "${r.parts[0].container.name}"` : `containers ${r.parts.map((p) => `"${p.container.name}"`).join(', ')}`;
      return `${r.name}: ${r.perPod} per pod (${who})`;
    })
    .join(', ');
}

export const surgeResourceDeadlock: Rule = {
  meta: {
    id: 'surge-resource-deadlock',
    spec: 'ROLL-002 (by analogy)',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'surge rollout of a workload requesting a scarce extended resource (GPU, ...) with few replicas: the surge pod waits for capacity the pool lacks',
    doc: `The Teleport RWO deadlock (\`surge-volume-deadlock\`) with an accelerator instead of a volume. A surge
rollout creates the new pod before an old one goes away; when every pod requests an accelerator
(\`nvidia.com/gpu: 1\`, ...) the new pod needs a free accelerator *beyond* those the running pods hold. GPU
pools are sized to the steady state (and scaling them up hits quota and stock-outs), so the surge pod
stays \`Pending\` with \`Insufficient nvidia.com/gpu\`, no old pod is removed, and the rollout stalls:
\`progressDeadlineSeconds\` only marks it failed (\`ProgressDeadlineExceeded\`; nothing rolls it back, the old pods keep serving, the new version never lands).

**When it fires (Deployment).** \`strategy.type: RollingUpdate\`, resolved (section 4, with the HPA's
\`minReplicas\` when an HPA targets the Deployment) \`surge >= 1\` **and** \`maxUnavailable\` resolving to **0**:
then the controller may not remove an old pod before a new one is available, so the rollout cannot make
any progress until \`surge x per-pod request\` units are free. With \`maxUnavailable >= 1\` an old pod is
removed first and frees its accelerator, so the rollout proceeds (slower) and nothing is reported.

"Few replicas" (the pool likely lacks the spare): **warning** when \`replicas <= 3\` (the defaults, 25%/25%,
resolve to surge 1 / unavailable 0 exactly for 1 to 3 replicas: a pool sized for 1 to 3 accelerators
rarely keeps a spare one) or when the surge needs at least a quarter more units than the steady state
(\`surge * 4 >= replicas\`, e.g. \`maxSurge: 100%\` blue/green). A larger Deployment whose surge is a small
fraction (\`replicas: 20, maxSurge: 1, maxUnavailable: 0\`) often fits in packing slack or autoscaler
headroom: **info**.

**DaemonSet** with \`maxSurge\` non-zero (and \`maxUnavailable: 0\`, as the API requires; Kubernetes >= 1.22):
each node's new pod is bound to the same node as the old one, so it needs the per-pod units free *on that
node*; a node whose accelerators the old pod holds never gets its update (warning).

**Which resources.** Requests are read from \`resources.requests\`, else \`resources.limits\` (the API copies
limits into requests for extended resources), over main containers and native sidecars, with a classic
init container counted alone (the scheduler's effective pod request). Never judged: \`cpu\`, \`memory\`,
\`ephemeral-storage\`, \`storage\`, \`pods\`, \`hugepages-*\`, \`attachable-volumes-*\` and the \`kubernetes.io/\`
namespace. Accelerators (\`nvidia.com/*\` incl. MIG and time-sliced \`gpu.shared\`, \`amd.com/*\`,
\`gpu.intel.com/*\`, \`habana.ai/*\`, \`google.com/tpu\`, \`aws.amazon.com/neuron*\`, FPGAs, Ascend and other AI
accelerators) are scarce. Resources device plugins advertise in bulk (\`devices.kubevirt.io/*\`,
\`squat.ai/*\`, \`smarter-devices/*\`, \`github.com/fuse\`, \`rdma/hca_shared_devices*\`,
\`vpc.amazonaws.com/*\`) are never judged. Any other extended resource is of unknown scarcity: **info**, and
only in the few-replicas case. The params \`scarceResources\` / \`abundantResources\` (names, a trailing \`*\`
matches a prefix) move a resource into either list.

Does not depend on whether a Service routes to the pods: a batch or queue-fed GPU Deployment stalls the
same way. StatefulSets never surge and are not judged.

Fix (not automatic: it trades the stall for capacity loss):
\`\`\`yaml
strategy:
  type: RollingUpdate
  rollingUpdate: {maxSurge: 0, maxUnavailable: 1}
\`\`\`
Each step then takes one replica down before its replacement is Ready: with \`replicas: 1\` that is a
full outage for the whole startup (a model server loads its weights: minutes), which
\`rollout-full-outage\` will report; suppress it there with the reason. The alternative keeps the
surge and pays for it: spare accelerators (or a node-pool maximum above the steady state) for
\`surge x per-pod\` units.`,
    fixable: false,
    paramsSchema: {
      type: 'object',
      properties: {
        scarceResources: { type: 'array', items: { type: 'string', minLength: 1 } },
        abundantResources: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
      additionalProperties: false,
    },
    defaults: { scarceResources: [], abundantResources: [] },
    references: [
      'graceful-termination.md ROLL-002 (the same deadlock with an exclusive volume); gravitational/teleport#11484',
      'kubernetes/website concepts/workloads/controllers/deployment.md (Max Surge, Max Unavailable, Progress Deadline Seconds)',
      'kubernetes/website tasks/manage-gpus/scheduling-gpus.md and concepts/configuration/manage-resources-containers.md#extended-resources (integer, no overcommit, requests default to limits)',
      'kubernetes/website concepts/workloads/pods/init-containers.md#resource-sharing-within-containers (effective pod request)',
      'kubernetes/examples AI/vllm-deployment (replicas 1, nvidia.com/gpu: 1, default strategy)',
    ],
  },
  check(ctx) {
    const extraScarce = (ctx.params.scarceResources as string[] | undefined) ?? [];
    const extraAbundant = (ctx.params.abundantResources as string[] | undefined) ?? [];
    for (const w of ctx.graph.workloads) {
      if (w.kind !== 'Deployment' && w.kind !== 'DaemonSet') continue;
      const reqs = scarceRequests(w, extraScarce, extraAbundant);
      if (reqs.length === 0) continue;
      if (w.kind === 'Deployment') checkDeployment(ctx, w, reqs);
      else checkDaemonSet(ctx, w, reqs);
    }
  },
};

type Ctx = Parameters<Rule['check']>[0];

const FIX = 'set strategy.rollingUpdate to {maxSurge: 0, maxUnavailable: 1}';

function checkDeployment(ctx: Ctx, w: Workload, reqs: PodRequest[]): void {
  if (!w.deployment || w.deployment.type !== 'RollingUpdate') return;
  const basis = replicaBasis(ctx.graph, w);
  if (!basis || basis.replicas <= 0) return;
  const r = basis.replicas;
  const d = rolloutFor(w, r)!;
  if (d.surge < 1 || d.unavailable > 0) return;
  const small = r <= 3 || d.surge * 4 >= r;
  const accel = reqs.filter((q) => q.scarcity === 'accelerator');
  const judged = accel.length ? accel : small ? reqs : [];
  if (judged.length === 0) return;
  const severity = accel.length && small ? 'warning' : 'info';
  const need = judged.map((q) => `${q.perPod * d.surge} ${q.name}`).join(' and ');
  const held = judged.map((q) => `${q.perPod * r} ${q.name}`).join(' and ');
  const strategy = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge} and maxUnavailable ${fmtIntOrPercent(d.maxUnavailable)}${d.maxUnavailableSet ? '' : ' (default)'} to 0 with ${basis.phrase}`;
  const scarcity = accel.length
    ? small
      ? `a pool sized for the running pods rarely has them`
      : `fine only if the pool keeps that headroom (packing slack or autoscaler room)`
    : `whether the pool has them is unknown for this resource`;
  const outage =
    r === 1
      ? 'which frees the unit first but makes every rollout a full outage for the whole startup (model load)'
      : `which frees a unit first but runs ${r - 1} of ${r} replicas during each step`;
  ctx.report({
    object: w.obj,
    pointer: judged[0].parts[0].pointer,
    severity,
    message: `every rollout first needs ${need} free beyond the ${held} the running pods hold (${describeRequests(judged)}), since ${strategy}: no old pod may go before the surge pod is available (${scarcity}); otherwise the surge pod stays Pending and the rollout stalls: progressDeadlineSeconds only marks it failed (ProgressDeadlineExceeded) and nothing rolls it back. Keep that spare capacity, or ${FIX}, ${outage}`,
  });
}

function checkDaemonSet(ctx: Ctx, w: Workload, reqs: PodRequest[]): void {
  if (!ctx.version.atLeast(1, 22)) return;
  const strategy = get(w.obj.raw, 'spec', 'updateStrategy');
  const type = typeof get(strategy, 'type') === 'string' ? (get(strategy, 'type') as string) : 'RollingUpdate';
  if (type !== 'RollingUpdate') return;
  const surgeRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxSurge'));
  const unavailRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxUnavailable'));
  // Surge is on only with a non-zero maxSurge and maxUnavailable literally 0 (both non-zero is
  // rejected by the API: daemonset-surge reports it).
  if (!surgeRaw || surgeRaw.kind === 'invalid' || surgeRaw.value === 0 || !isLiteralZero(unavailRaw)) return;
  const accel = reqs.filter((q) => q.scarcity === 'accelerator');
  const judged = accel.length ? accel : reqs;
  const need = judged.map((q) => `${q.perPod} ${q.name}`).join(' and ');
  ctx.report({
    object: w.obj,
    pointer: judged[0].parts[0].pointer,
    severity: accel.length ? 'warning' : 'info',
    message: `each node's new pod needs ${need} free on that node next to the old one (${describeRequests(judged)}), since updateStrategy maxSurge ${fmtIntOrPercent(surgeRaw)} with maxUnavailable 0 starts it before the old one stops${accel.length ? ', which a node whose accelerators the old pod holds never has' : ''}; the update then stalls node by node. Set updateStrategy.rollingUpdate to {maxSurge: 0, maxUnavailable: 1} (each node's pod is down while its replacement starts) or keep that spare per node`,
  });
}
