import { Fix, FixEdit, Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ObjectGraph } from '../model/graph';
import { IntOrPercent, isLiteralZero, parseIntOrPercent } from '../model/intstr';
import { isObject, Json } from '../model/types';
import { enumOr, get, Workload } from '../model/workload';
import { existingPointer, fmtIntOrPercent } from './rollout-util';
import { nameOf } from './util';
import { hostPortBindings, hostPortsPhrase } from './mesh-util';

/**
 * Node-level proxies and node-local traffic handlers, matched (case-insensitively, as regular
 * expressions) against the DaemonSet's name, its main containers' names and image names.
 * Deliberately absent: kube-proxy and CNI agents such as cilium (their datapath, iptables/IPVS or
 * eBPF, keeps forwarding while the agent restarts), node-local-dns (host network with declared
 * ports: it cannot surge), and metrics agents (node-exporter and the like serve scrapes, not traffic).
 */
export const DEFAULT_NODE_PROXY_PATTERNS = [
  '(^|[^a-z0-9])ztunnel($|[^a-z0-9])',
  '(^|[^a-z0-9])envoy($|[^a-z0-9])',
  '(^|[^a-z0-9])(ingress-nginx|nginx-ingress)($|[^a-z0-9])',
  '(^|[^a-z0-9])haproxy($|[^a-z0-9])',
  '(^|[^a-z0-9])traefik($|[^a-z0-9])',
  '(^|[^a-z0-9])contour($|[^a-z0-9])',
  '(^|[^a-z0-9])kong($|[^a-z0-9])',
];

/** `ztunnel` from `docker.io/istio/ztunnel:1.24.0@sha256:...`. */
function imageName(image: string): string {
  const noDigest = image.split('@')[0];
  const last = noDigest.split('/').pop() ?? noDigest;
  return last.split(':')[0];
}

/** API's getIntOrPercentValue: the number written, percent or not. */
function value(v: IntOrPercent | undefined, dflt: number): number | undefined {
  if (!v) return dflt;
  return v.kind === 'invalid' ? undefined : v.value;
}

/** Why this DaemonSet carries node-local traffic, or undefined. */
function nodeLocalReason(graph: ObjectGraph, w: Workload, patterns: RegExp[]): string | undefined {
  const traffic = graph.servicesFor(w).filter((s) => !s.metricsOnly);
  let local: string | undefined;
  for (const s of traffic) {
    const itp = get(s.obj.raw, 'spec', 'internalTrafficPolicy');
    if (itp === 'Local') local ??= `node-local traffic (Service/${s.obj.name} has internalTrafficPolicy: Local)`;
    if (s.externalTrafficPolicy === 'Local' && (s.type === 'LoadBalancer' || s.type === 'NodePort')) local ??= `node-local traffic (Service/${s.obj.name} has externalTrafficPolicy: Local)`;
  }
  const candidates: [string, string][] = [[`name "${w.obj.name}"`, w.obj.name]];
  for (const c of w.containers) {
    candidates.push([`container "${c.name}"`, c.name]);
    if (c.image) candidates.push([`image "${c.image}"`, imageName(c.image)]);
  }
  for (const [label, text] of candidates) {
    if (!patterns.some((p) => p.test(text.toLowerCase()))) continue;
    // A proxy reached only through Services with cluster traffic policies, on no node port: kube-proxy
    // sends the node's traffic to the other nodes' pods while this one restarts, so nothing is node-local.
    if (!local && traffic.length > 0 && w.podSpec.hostNetwork !== true && hostPorts(w).length === 0) return undefined;
    return `a node-level proxy (${label})`;
  }
  return local;
}

/** Ports that bind on the node: hostPort, or any declared port of a host-network pod. */
export function hostPorts(w: Workload): string[] {
  return hostPortBindings(w).map((b) => `${b.container}:${b.port}`);
}

/** Surge first: the ztunnel chart's strategy. A strategy change, so a proposal (section 12). */
const SURGE_FIRST: FixEdit[] = [
  { op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge', value: 1 },
  { op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxUnavailable', value: 0 },
];

/**
 * Both non-zero (rejected): keep the surge the user chose and set maxUnavailable 0, unless the pod
 * binds node ports (a hostPort, or a declared port with host network), where a surge pod can never
 * run next to the old one (KEP-1591): then maxSurge 0.
 */
function bothNonZeroFix(w: Workload): Fix {
  return hostPorts(w).length > 0
    ? { description: 'set updateStrategy.rollingUpdate.maxSurge to 0 (the pod binds node ports, so it cannot surge)', safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge', value: 0 }] }
    : { description: 'set updateStrategy.rollingUpdate.maxUnavailable to 0', safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxUnavailable', value: 0 }] };
}

/** The rule's patterns (param nodeProxyPatterns), compiled as the rule compiles them. */
export function compileNodeProxyPatterns(patterns: readonly string[] = DEFAULT_NODE_PROXY_PATTERNS): RegExp[] {
  return patterns.map((p) => new RegExp(p, 'i'));
}

interface StrategyFacts {
  workload: Workload;
  surgeRaw: IntOrPercent | undefined;
  unavailRaw: IntOrPercent | undefined;
  /** The pointer a finding about maxSurge points at. */
  surgePointer: string;
}

/**
 * What daemonset-surge decides for one DaemonSet: the one decision the rule reports from and
 * explain describes the rollout with, so the two cannot disagree.
 * - `surge-ignored`: maxSurge non-zero below 1.22 (reported: error when maxUnavailable is 0, else warning);
 * - `both-non-zero`: maxSurge and maxUnavailable non-zero (reported: error, the API rejects it);
 * - `surges`: maxSurge non-zero, maxUnavailable 0, on a target that has the field (not reported);
 * - `no-surge`: maxSurge 0 or absent: `reason` says why the node's traffic is node-local (undefined
 *   when it is not), `hostPorts` the node ports the pod binds (surge cannot work then), `fires`
 *   whether the warning is reported.
 * Undefined for anything that is not a RollingUpdate DaemonSet with readable values.
 */
export type DaemonSetSurgeDecision =
  | (StrategyFacts & { kind: 'surge-ignored'; zeroUnavailable: boolean })
  | (StrategyFacts & { kind: 'both-non-zero'; unavailText: string })
  | (StrategyFacts & { kind: 'surges' })
  | (StrategyFacts & { kind: 'surge-blocked'; hostPorts: string[] })
  | (StrategyFacts & { kind: 'no-surge'; reason?: string; hostPorts: string[]; surgeAvailable: boolean; fires: boolean });

export function daemonsetSurgeDecision(graph: ObjectGraph, w: Workload, version: KubeVersion, patterns: RegExp[]): DaemonSetSurgeDecision | undefined {
  if (w.kind !== 'DaemonSet') return undefined;
  const raw = w.obj.raw;
  const strategy = get(raw, 'spec', 'updateStrategy');
  const type = enumOr(get(strategy, 'type'), 'RollingUpdate').value;
  if (type !== 'RollingUpdate') return undefined;
  const surgeRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxSurge'));
  const unavailRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxUnavailable'));
  const surge = value(surgeRaw, 0);
  const unavail = value(unavailRaw, 1);
  if (surge === undefined || unavail === undefined) return undefined;
  const surgeOn = version.atLeast(1, 22);
  const facts: StrategyFacts = { workload: w, surgeRaw, unavailRaw, surgePointer: existingPointer(raw, 'spec', 'updateStrategy', 'rollingUpdate', 'maxSurge') || '/spec' };
  if (surge !== 0) {
    if (!surgeOn) return { ...facts, kind: 'surge-ignored', zeroUnavailable: isLiteralZero(unavailRaw) };
    if (unavail !== 0) return { ...facts, kind: 'both-non-zero', unavailText: unavailRaw ? `maxUnavailable ${fmtIntOrPercent(unavailRaw)}` : 'maxUnavailable (absent, defaults to 1)' };
    // Surge-only on host ports: each node's new pod needs the ports its old pod holds.
    const ports = hostPorts(w);
    return ports.length ? { ...facts, kind: 'surge-blocked', hostPorts: ports } : { ...facts, kind: 'surges' };
  }
  const reason = nodeLocalReason(graph, w, patterns);
  const ports = hostPorts(w);
  return { ...facts, kind: 'no-surge', reason, hostPorts: ports, surgeAvailable: surgeOn, fires: surgeOn && reason !== undefined && ports.length === 0 };
}

export const daemonsetSurge: Rule = {
  meta: {
    id: 'daemonset-surge',
    spec: 'MESH-ISTIO-002',
    defaultSeverity: 'warning',
    severities: ['error', 'warning'],
    description: 'node-level proxy or node-local-traffic DaemonSet rolling with maxSurge 0',
    doc: `A DaemonSet rolling update with \`maxSurge: 0\` (the default) stops a node's pod before its replacement
exists. For a node-level proxy (Istio ambient's ztunnel, a node-local Envoy or ingress controller) or a
DaemonSet that receives node-local traffic (a Service with \`internalTrafficPolicy: Local\`, or a
LoadBalancer/NodePort Service with \`externalTrafficPolicy: Local\`), that node's traffic has nowhere to go for
the whole restart. With \`maxSurge: 1, maxUnavailable: 0\` the new pod starts next to the old one and the two
hand over (ztunnel shares its listeners with \`SO_REUSEPORT\`; the ztunnel chart ships exactly this).

**Conditions:**

- **warning:** a RollingUpdate DaemonSet matched by param \`nodeProxyPatterns\` (regular expressions on its name,
  container names and image names; default ztunnel, envoy, ingress-nginx/nginx-ingress, haproxy, traefik,
  contour, kong) or selected by a Local-traffic-policy Service, with \`maxSurge\` 0 or absent, on a target >= 1.22.
  Not reported (surge cannot work, so it is not suggested):
  - the pod binds node ports: a \`hostPort\`, or any declared port with \`hostNetwork: true\` (the port is then a
    host port): the surge pod can never be scheduled next to the old one (KEP-1591), and the rollout would stall;
  - below 1.22 (\`DaemonSetUpdateSurge\` is alpha and off in 1.21).

  Not reported either: a matched proxy that Services reach only with cluster traffic policies and that binds
  no node port (an ingress controller DaemonSet behind an \`externalTrafficPolicy: Cluster\` load balancer):
  kube-proxy sends the node's traffic to the other nodes' pods while one restarts, so none of it is node-local.
  A matched proxy with no Service in the set (ztunnel, a node-local Envoy that pods reach on their node) is
  reported.
  A host-network pod without declared ports is reported, with the caveat that surge works only if the proxy
  binds with \`SO_REUSEPORT\` (otherwise the new pod cannot bind, never becomes ready, and the rollout stalls).
  A pod that mounts a writable \`hostPath\` directory (not /proc, /sys, /dev, /etc and other system paths) is
  reported with the caveat that the old and the new pod share it during the overlap (a Unix socket or lock there
  passes to the new pod; both act on the node at once: the Datadog agent's DogStatsD and APM sockets), so surge
  fits only a program that supports two copies per node; no fix is offered for it.
  kube-proxy and CNI agents are not matched by default: their datapath keeps forwarding while the agent
  restarts. Metrics DaemonSets (node-exporter) serve scrapes, not node-local traffic.
- **error:** \`maxSurge\` non-zero with \`maxUnavailable: 0\` while the pod binds node ports (a \`hostPort\` > 0, or a
  declared port with \`hostNetwork: true\`): on each node the surge pod needs the ports the old pod holds, so
  kube-scheduler cannot place it, the controller waits for it before stopping the old pod, and the rollout never
  progresses (KEP-1591; a DaemonSet has no progress deadline).
- **error:** \`maxSurge\` non-zero while \`maxUnavailable\` is non-zero or absent (it defaults to 1): the API
  accepts exactly one of them non-zero ("may not be set when maxUnavailable is non-zero"). Below 1.22 the field is
  dropped: **error** if \`maxUnavailable\` is then 0 (rejected), **warning** otherwise (surge silently ignored).

**Fix:**
\`\`\`yaml
spec:
  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
\`\`\`

**\`--fix\`** (proposal): \`maxSurge: 1\` / \`maxUnavailable: 0\` for a node proxy rolling with maxSurge 0; \`maxSurge: 0\` /
\`maxUnavailable: 1\` for a surge that host ports block; when both are non-zero (the API rejects it), \`maxUnavailable: 0\`, or \`maxSurge: 0\` if the pod binds host ports; below 1.22, drops maxSurge and sets \`maxUnavailable: 1\`. hostNetwork pods without declared ports get no fix (surge needs SO_REUSEPORT, which the manifest cannot show), nor do pods that write to a hostPath directory.`,
    fixable: true,
    versionGate: 'DaemonSetUpdateSurge: alpha 1.21 (off), beta 1.22 (on), GA 1.25',
    paramsSchema: {
      type: 'object',
      properties: { nodeProxyPatterns: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
    defaults: { nodeProxyPatterns: DEFAULT_NODE_PROXY_PATTERNS },
    references: [
      'istio/istio architecture/ambient/ztunnel-cni-lifecycle.md; manifests/charts/ztunnel/values.yaml',
      'https://github.com/istio/ztunnel/issues/1191',
      'kubernetes/enhancements keps/sig-apps/1591-daemonset-surge/README.md',
      'kubernetes/kubernetes pkg/apis/apps/validation/validation.go (ValidateRollingUpdateDaemonSet)',
      'kubernetes/website feature-gates DaemonSetUpdateSurge.md',
    ],
  },
  check(ctx) {
    const patterns = compileNodeProxyPatterns(ctx.params.nodeProxyPatterns as string[]);
    for (const w of ctx.graph.workloads) {
      const d = daemonsetSurgeDecision(ctx.graph, w, ctx.version, patterns);
      if (!d || d.kind === 'surges') continue;
      if (d.kind === 'no-surge') {
        if (d.fires) reportNoSurge(d);
        continue;
      }
      const { surgeRaw, surgePointer } = d;
      if (d.kind === 'surge-blocked') {
        ctx.report({
          object: w.obj,
          pointer: surgePointer,
          severity: 'error',
          message: `maxSurge ${fmtIntOrPercent(surgeRaw)} with maxUnavailable 0, but the pod binds host ports (${hostPortsPhrase(hostPortBindings(w))}): on each node the surge pod needs the ports the old pod holds, so kube-scheduler cannot place it ("node(s) didn't have free ports for the requested pod ports"), the DaemonSet controller waits for it before stopping the old pod, and the rollout never progresses (a DaemonSet has no progress deadline); set updateStrategy.rollingUpdate to {maxSurge: 0, maxUnavailable: 1}`,
          fix: {
            description: 'set updateStrategy.rollingUpdate to maxSurge 0, maxUnavailable 1 (the pod binds host ports, so it cannot surge)',
            safety: 'proposal',
            edits: [
              { op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge', value: 0 },
              { op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxUnavailable', value: 1 },
            ],
          },
        });
      } else if (d.kind === 'surge-ignored') {
        const zeroUnavail = d.zeroUnavailable;
        ctx.report({
          object: w.obj,
          pointer: surgePointer,
          severity: zeroUnavail ? 'error' : 'warning',
          message: zeroUnavail
            ? `maxSurge needs Kubernetes >= 1.22 (DaemonSetUpdateSurge is ${ctx.version.atLeast(1, 21) ? 'alpha and off' : 'absent'} on ${ctx.version.toString()}): the field is dropped and maxUnavailable 0 is then rejected by the API; use maxUnavailable: 1 until the cluster runs >= 1.22`
            : `maxSurge ${fmtIntOrPercent(surgeRaw)} is ignored on ${ctx.version.toString()} (DaemonSetUpdateSurge needs >= 1.22): updates stop each node's pod before starting its replacement`,
          // The rejected spec gets the only strategy the target accepts; the ignored field is left
          // alone (harmless, and it takes effect once the cluster is upgraded).
          fix: zeroUnavail
            ? {
                description: 'remove strategy maxSurge and set maxUnavailable to 1 (maxSurge needs Kubernetes >= 1.22)',
                safety: 'proposal',
                edits: [
                  { op: 'remove', pointer: '/spec/updateStrategy/rollingUpdate/maxSurge' },
                  { op: 'set', pointer: '/spec/updateStrategy/rollingUpdate/maxUnavailable', value: 1 },
                ],
              }
            : undefined,
        });
      } else {
        ctx.report({
          object: w.obj,
          pointer: surgePointer,
          severity: 'error',
          message: `maxSurge ${fmtIntOrPercent(surgeRaw)} with ${d.unavailText}: the API rejects a DaemonSet update strategy where both are non-zero ("may not be set when maxUnavailable is non-zero"); set maxUnavailable: 0`,
          fix: bothNonZeroFix(w),
        });
      }
    }

    function reportNoSurge(d: Extract<DaemonSetSurgeDecision, { kind: 'no-surge' }>): void {
      const w = d.workload;
      const surgeText = d.surgeRaw ? `maxSurge ${fmtIntOrPercent(d.surgeRaw)}` : 'maxSurge absent (default 0)';
      const hostNet = w.podSpec.hostNetwork === true ? '; the pod uses hostNetwork: this works only if the proxy binds its listeners with SO_REUSEPORT, otherwise the new pod cannot bind, never becomes ready, and the rollout stalls' : '';
      // (Not for the node-level proxies the rule matches by name, ztunnel and node-local Envoys: they
      // are built to hand over, through a socket directory on the node too.)
      const shared = d.reason?.startsWith('a node-level proxy') ? [] : writableHostPaths(w);
      const hostState = shared.length
        ? `; the pod writes to the node (hostPath ${shared.join(', ')}): during the overlap the old and the new pod share it, so a Unix socket or lock there passes to the new pod while the old one still runs, and both act on the node at once; surge only if two copies can run side by side on one node (the vendor supports it)`
        : '';
      ctx.report({
        object: w.obj,
        pointer: d.surgePointer,
        severity: 'warning',
        message: `${nameOf(w)} is ${d.reason} and rolls with ${surgeText}: each node's pod is stopped before its replacement is ready, so traffic through that node is dropped for the whole restart; set updateStrategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} so the old and new pod overlap and hand over${hostNet}${hostState}`,
        // No fix for host-network pods: whether the new pod can bind next to the old one (SO_REUSEPORT)
        // is not in the manifest, and if it cannot, surge stalls the rollout on every node.
        // Nor for pods that write to the node (hostPath): whether two copies can share it is the program's.
        fix: hostNet || hostState ? undefined : { description: 'set updateStrategy.rollingUpdate to maxSurge 1, maxUnavailable 0', safety: 'proposal', edits: SURGE_FIRST },
      });
    }
  },
};

/** Node paths a pod reads but does not own (kernel and system interfaces, the node's own configuration), and the node's logs, which two copies can both append to. */
const NODE_SYSTEM_PATHS = /^\/(?:proc|sys|dev|etc|boot|usr|lib|lib64|bin|sbin|var\/log)(?:\/|$)/;

/**
 * The hostPath directories a main container or native sidecar mounts writable (no readOnly), as
 * text (`/var/run/datadog (dsdsocket)`): state on the node that a surge pod shares with the pod it
 * replaces. Kernel, device and system paths (/proc, /sys, /dev, /etc, ...) are the node's, not the
 * program's, and files (type File, Socket, CharDevice, BlockDevice) are left out.
 */
export function writableHostPaths(w: Workload): string[] {
  const volumes = get(w.podSpec as Json, 'volumes');
  const hostPaths = new Map<string, string>();
  if (Array.isArray(volumes)) {
    for (const v of volumes) {
      if (!isObject(v) || typeof v.name !== 'string' || !isObject(v.hostPath) || typeof v.hostPath.path !== 'string') continue;
      const type = typeof v.hostPath.type === 'string' ? v.hostPath.type : '';
      if (type !== '' && type !== 'Directory' && type !== 'DirectoryOrCreate') continue;
      if (NODE_SYSTEM_PATHS.test(v.hostPath.path)) continue;
      hostPaths.set(v.name, v.hostPath.path);
    }
  }
  const out = new Set<string>();
  if (!hostPaths.size) return [];
  for (const c of [...w.containers, ...w.sidecars]) {
    const mounts = get(c.raw, 'volumeMounts');
    if (!Array.isArray(mounts)) continue;
    for (const m of mounts) {
      if (!isObject(m) || typeof m.name !== 'string' || m.readOnly === true) continue;
      const path = hostPaths.get(m.name);
      if (path !== undefined) out.add(`${path} (${m.name})`);
    }
  }
  return [...out];
}
