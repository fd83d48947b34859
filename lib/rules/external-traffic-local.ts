import { handover } from './prestop-missing';
import { servedStateOf } from '../model/traffic';
import { Rule } from '../engine/types';
import { ServiceView } from '../model/graph';
import { ContainerView, Workload } from '../model/workload';
import { shutdownAddends } from '../timeline/addends';
import { containerDrainSeconds, recommendedGrace } from '../timeline/budget';
import { podPreStopDelay, PreStopDelay } from '../timeline/prestop';
import { AWS, containersBehind, delayAdvice, graceEdit, hookDelayWords, intAnnotation, isExternalLocal, preStopDelayEdit, preStopPointer, spreading, spreadPointer } from './lb-util';
import { defaultPropagationWindow } from './lb-deregistration-delay';
import { replicaBasis } from './rollout-util';
import { graceMessageRef } from './util';

export const DEFAULT_LB_HEALTH_WINDOW_SECONDS = 30;
/** AWS NLB health-check defaults, used when only one of the two annotations is written. */
const AWS_HC_INTERVAL = 10;
const AWS_HC_UNHEALTHY_THRESHOLD = 3;

/** The LB health-check window: the Service's AWS health-check annotations when written, else the param. */
function healthWindow(s: ServiceView, param: number): { seconds: number; source: string } {
  const interval = intAnnotation(s.annotations, AWS.healthcheckInterval);
  const threshold = intAnnotation(s.annotations, AWS.healthcheckUnhealthyThreshold);
  if (interval === undefined && threshold === undefined) return { seconds: param, source: 'LB health-check window' };
  const i = interval ?? AWS_HC_INTERVAL;
  const t = threshold ?? AWS_HC_UNHEALTHY_THRESHOLD;
  return { seconds: i * t, source: `LB health-check window (interval ${i}s x unhealthy threshold ${t}, from the Service's health-check annotations)` };
}

export const externalTrafficLocal: Rule = {
  meta: {
    id: 'external-traffic-local',
    spec: 'SVC-003',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'externalTrafficPolicy: Local without spreading, or preStop shorter than the LB health-check window',
    doc: `With \`externalTrafficPolicy: Local\` on a \`LoadBalancer\` Service, the external load balancer sends
traffic only to nodes that run a ready endpoint, and steers by kube-proxy's \`healthCheckNodePort\`, which the API
server allocates for \`type: LoadBalancer\` with \`Local\` only (\`needsHCNodePort\`). A \`NodePort\` Service with
\`Local\` is not judged here: it has no health check and no LB pool, clients address a node themselves, and a node
whose only pod terminates drops them whatever the pod's delay (\`prestop-missing\` covers the endpoint removal). With
ProxyTerminatingEndpoints (GA 1.28) kube-proxy fails that health check once a node has only terminating endpoints,
but keeps forwarding arriving traffic to terminating endpoints that are still \`serving\` when no other ready endpoint
is on the node. The node stays in the LB's pool until the health check has failed enough times (interval ×
unhealthy threshold), so the pod must keep serving that long. A terminating pod that fails readiness gets nothing.

**Conditions** (**warning**), for the workloads a Local Service selects (unless marked \`kubegrace.dev/served: "false"\`):

- \`replicas >= 2\` (HPA \`minReplicas\` when an HPA targets the workload) without spreading: no
  \`topologySpreadConstraints\` on \`kubernetes.io/hostname\` or \`topology.kubernetes.io/zone\` and no pod
  anti-affinity (required or preferred) on \`kubernetes.io/hostname\`, selecting the pods' own labels. Replicas packed
  on one node get that node's single share of the LB traffic (imbalance), and draining that node removes all of them
  from the LB at once. DaemonSets are spread by construction and skipped.
- a container behind the Service's client ports (not those for scrapes, operators or peers, which \`prestop-missing\`
  skips too: metrics-named ports, an exporter's) has a preStop delay shorter than the LB health-check window
  (\`LBHealthWindow\`): param \`lbHealthWindowSeconds\` (default ${DEFAULT_LB_HEALTH_WINDOW_SECONDS} = 10 s × 3), or, when the
  Service carries \`${AWS.healthcheckInterval}\` / \`${AWS.healthcheckUnhealthyThreshold}\`, their product (AWS defaults
  10 s and 3 for the missing one). No hook counts as 0 s; hooks whose delay is unknown (\`httpGet\`, other commands) are
  skipped; so are pods with \`terminationGracePeriodSeconds: 0\`, and a single pod whose replacement cannot serve before it
  is gone, as \`prestop-missing\` reads it: one replica (counting HPA \`minReplicas\`) of a StatefulSet (the replacement
  has the same name), of a Deployment with \`strategy: Recreate\`, or one that mounts an exclusive claim (ReadWriteOnce,
  ReadWriteOncePod, or a PVC not in the input) and is deleted before its replacement is ready (\`maxUnavailable\`
  resolving to at least 1, whatever \`maxSurge\` is: the pihole chart's one pod), and, on a target below 1.26, one
  replica of a Deployment with \`maxSurge\` 0 or a bare ReplicaSet. The LB still sends to the node until its health
  check fails, but a delay only moves the outage later. From 1.26 a one-replica Deployment with \`maxSurge\` 0 or a
  bare ReplicaSet (without such a claim) is judged: its replacement is created as soon as it starts terminating, and
  until the LB drops the node kube-proxy forwards the node's traffic to it while it serves (KEP-1669 "all endpoints
  terminating on a node when traffic policy is Local"; \`ProxyTerminatingEndpoints\` beta and on by default in 1.26),
  so a delay keeps it serving while the replacement starts; the message says so.

**Fix:** \`preStop.sleep >= LBHealthWindow + 5\`, the grace period adjusted to cover it plus the drain, and topology
spread:

\`\`\`yaml
terminationGracePeriodSeconds: 50       # 35 + drain 10 + margin 5
topologySpreadConstraints:
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: ScheduleAnyway
  labelSelector: {matchLabels: {app: web}}
containers:
- name: app
  lifecycle: {preStop: {sleep: {seconds: 35}}}
\`\`\`

**\`--fix\`**: the preStop part as in \`lb-deregistration-delay\` (a new \`sleep\` action on >= 1.30 with the grace raise is safe; changing an existing hook is a proposal), sized to the health-check window + 5 s. The missing-spreading condition has no fix here: \`replicas-not-spread\` proposes the constraint for the same workloads.`,
    fixable: true,
    versionGate: 'the fix uses the preStop sleep action on >= 1.30 (PodLifecycleSleepAction beta), exec sleep before; a one-replica Deployment with maxSurge 0 or bare ReplicaSet is judged from 1.26 (ProxyTerminatingEndpoints beta, on by default)',
    paramsSchema: {
      type: 'object',
      properties: { lbHealthWindowSeconds: { type: 'number', minimum: 0, default: DEFAULT_LB_HEALTH_WINDOW_SECONDS } },
      additionalProperties: false,
    },
    defaults: { lbHealthWindowSeconds: DEFAULT_LB_HEALTH_WINDOW_SECONDS },
    references: [
      'kubernetes/enhancements keps/sig-network/1669-proxy-terminating-endpoints/README.md',
      'kubernetes/enhancements keps/sig-network/1672-tracking-terminating-endpoints/README.md',
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/ProxyTerminatingEndpoints.md',
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/EndpointSliceTerminatingCondition.md',
      'kubernetes/kubernetes staging/src/k8s.io/api/discovery/v1/types.go (EndpointConditions)',
      'kubernetes/kubernetes pkg/proxy/endpointschangetracker.go @f2963eff (getLocalReadyEndpointIPs: "the health check signal should fail if there are only terminating endpoints on a node")',
      'kubernetes/kubernetes pkg/proxy/healthcheck/service_health.go @124526cf (hcHandler.ServeHTTP: 503 when the count of local ready endpoints is 0)',
      'kubernetes/kubernetes pkg/proxy/topology.go @008b3652 (CategorizeEndpoints)',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    const param = typeof ctx.params.lbHealthWindowSeconds === 'number' ? ctx.params.lbHealthWindowSeconds : DEFAULT_LB_HEALTH_WINDOW_SECONDS;
    const hits: Hit[] = [];
    for (const s of g.services) {
      if (!isExternalLocal(s)) continue;
      const svc = `Service/${s.obj.name} (type ${s.type}, externalTrafficPolicy: Local)`;
      const hw = healthWindow(s, param);
      for (const w of g.workloadsFor(s)) {
        if (servedStateOf(g, w) === 'unserved' || w.isBatch) continue;
        const basis = w.kind === 'DaemonSet' ? undefined : replicaBasis(g, w);
        if (basis && basis.replicas >= 2 && !spreading(w)) {
          // No fix here: replicas-not-spread (SPREAD-001) fires on the same workloads and adds the
          // spread constraints; a second one on the same topology key would be rejected by the API.
          ctx.report({
            object: w.obj,
            pointer: spreadPointer(w),
            severity: 'warning',
            message: `${basis.phrase} behind ${svc} without topology spread or hostname anti-affinity: replicas packed on one node share that node's single slice of the LB traffic, and draining the node pulls them all out of the LB at once; add topologySpreadConstraints on kubernetes.io/hostname (and topology.kubernetes.io/zone) selecting the pods' labels`,
          });
        }
        // What serves while a pod terminates, as prestop-missing reads it (review round 35, report p57
        // item 1: pihole's one pod with a ReadWriteOnce claim, maxSurge 1 / maxUnavailable 1):
        // - 'none': nothing but the pod itself, and its replacement cannot serve before it is gone (a
        //   StatefulSet's pod, Recreate, an exclusive claim, a target before the fallback): the LB
        //   keeps sending to its node until the health check fails, but a delay only moves the
        //   outage later, it does not shorten it;
        // - 'sole': the only pod, whose replacement is created as soon as it is deleting: kube-proxy's
        //   health check fails as soon as the node has no ready endpoint (pkg/proxy/
        //   endpointschangetracker.go getLocalReadyEndpointIPs counts only ready ones, service_health.go
        //   answers 503 for 0), but until the LB has seen enough failures it keeps sending to the node,
        //   where kube-proxy forwards to the terminating pod while it serves (topology.go
        //   CategorizeEndpoints; KEP-1669 "all endpoints terminating on a node when traffic policy is
        //   Local"): the delay covers that window while the replacement starts, so judged;
        // - 'overlap': judged.
        const hand = handover(g, w, ctx.version);
        if (w.grace === 0 || hand === 'none') continue;
        for (const c of containersBehind(g, w, new Set([s]))) {
          const d = podPreStopDelay(c, w.annotations, undefined, w.containers);
          if (d.kind !== 'none' && d.seconds === undefined) continue;
          const sec = d.kind === 'none' ? 0 : d.seconds!;
          if (sec >= hw.seconds) continue;
          hits.push({ w, c, svc, hw, hook: d.kind === 'none' ? 'no preStop delay' : hookDelayWords(d, sec), d, want: Math.ceil(hw.seconds + 5), sole: hand === 'sole' });
        }
      }
    }

    // A container behind several Local Services gets the longest delay they need, and each workload
    // one grace period covering it (+ drain + native sidecars, as TERM-001 counts): every fix of a
    // workload then sets the same values, whatever order they are applied in.
    // Behind a pod-targeting LB too (lb-deregistration-delay), the fix also covers its window.
    const wantOf = new Map<ContainerView, number>();
    for (const h of hits) wantOf.set(h.c, Math.max(wantOf.get(h.c) ?? 0, h.want, defaultPropagationWindow(g, h.w) ?? 0));
    const graceOf = new Map<Workload, number>();
    const addendOf = (w: Workload) => shutdownAddends(g, w).reduce((a, x) => a + x.seconds, 0);
    for (const [c, want] of wantOf) {
      const h = hits.find((x) => x.c === c)!;
      const { w } = h;
      const drain = containerDrainSeconds(w, c);
      const addend = addendOf(w);
      if (w.grace < want + drain + addend && preStopDelayEdit(ctx.version, c, want)) graceOf.set(w, Math.max(graceOf.get(w) ?? w.grace, recommendedGrace(want, drain, addend)));
    }

    for (const { w, c, svc, hw, hook, d, want, sole } of hits) {
      const drain = containerDrainSeconds(w, c);
      const addend = addendOf(w);
      const need = recommendedGrace(want, drain, addend);
      const grace = w.grace < want + drain + addend ? ` and raise terminationGracePeriodSeconds to ${need}s (now ${graceMessageRef(w)})` : '';
      const target = wantOf.get(c)!;
      const edit = preStopDelayEdit(ctx.version, c, target);
      const graceTarget = graceOf.get(w);
      const raise = graceTarget !== undefined && graceTarget > w.grace ? [graceEdit(w, graceTarget)] : [];
      ctx.report({
        object: w.obj,
        pointer: preStopPointer(c),
        severity: 'warning',
        message: `container "${c.name}": ${d.kind === 'none' ? `has no preStop delay behind ${svc}, so it stops serving at once, inside the ${hw.source} of ${hw.seconds}s` : `${hook} behind ${svc} is shorter than the ${hw.source} of ${hw.seconds}s`}: the node stays in the LB pool until its health check fails, and requests that still arrive after the pod stops serving are lost${sole ? ` (it is the only pod, ${w.kind === 'ReplicaSet' ? 'a ReplicaSet of one replica' : 'one replica with maxSurge 0'}: its replacement is created as soon as it starts terminating, and until the LB drops the node kube-proxy forwards the node's LB traffic to it while it still serves, by default since Kubernetes 1.26, so the delay keeps it serving while the replacement starts)` : ''}; set ${delayAdvice(ctx.version, d, want)}${grace}`,
        // Adding the sleep action to a container without a hook (>= 1.30) is safe (section 12), and
        // so is the grace raise it needs (TERM-001); lengthening a hook, or an exec sleep, is a proposal.
        // Switching the Service to externalTrafficPolicy: Cluster is not offered: it drops the client
        // source IP, usually the reason for Local.
        fix: edit && {
          description: `${edit.text}${raise.length ? ` and set terminationGracePeriodSeconds to ${graceTarget}` : ''}`,
          safety: edit.safe ? 'safe' : 'proposal',
          edits: [...edit.edits, ...raise],
        },
      });
    }
  },
};

/** A container whose preStop delay is shorter than a Local Service's health-check window. */
interface Hit {
  w: Workload;
  c: ContainerView;
  svc: string;
  hw: { seconds: number; source: string };
  hook: string;
  /** The container's classified hook. */
  d: PreStopDelay;
  /** The delay this Service needs: window + 5 s. */
  want: number;
  /** The only pod, replaced as soon as it is deleting (handover 'sole'): the message says why a delay helps. */
  sole: boolean;
}
