/** Helpers shared by the LB-*, SVC-* and STS-* rules (lb-readiness-gate, lb-deregistration-delay, ...). */
import { FixEdit } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ObjectGraph, ServiceView } from '../model/graph';
import { escapeSegment } from '../model/parse';
import { trafficPortsOf } from '../model/traffic';
import { Labels, matches, parseLabelSelector, Selector, stringMap } from '../model/selector';
import { isObject, Json, KObject } from '../model/types';
import { ContainerView, enumOr, get, num, Workload } from '../model/workload';
import { imageRepository, knownPreStopAdvice, knownPreStopWords } from '../catalog';
import { PreStopDelay, preStopDelay } from '../timeline/prestop';
import { preStopHandler } from './fix-util';

/** AWS Load Balancer Controller and GKE annotations and labels (LB-001..003). */
export const AWS = {
  nlbTargetType: 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type',
  lbType: 'service.beta.kubernetes.io/aws-load-balancer-type',
  serviceTgAttributes: 'service.beta.kubernetes.io/aws-load-balancer-target-group-attributes',
  albTargetType: 'alb.ingress.kubernetes.io/target-type',
  albTgAttributes: 'alb.ingress.kubernetes.io/target-group-attributes',
  healthcheckInterval: 'service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval',
  healthcheckUnhealthyThreshold: 'service.beta.kubernetes.io/aws-load-balancer-healthcheck-unhealthy-threshold',
  readinessGateInjectLabel: 'elbv2.k8s.aws/pod-readiness-gate-inject',
  readinessGatePrefix: 'target-health.elbv2.k8s.aws/',
  /** AWS target-group default for deregistration_delay.timeout_seconds. */
  defaultDeregistrationDelay: 300,
} as const;

export const GKE = {
  neg: 'cloud.google.com/neg',
  negStatus: 'cloud.google.com/neg-status',
  negReadinessGate: 'cloud.google.com/load-balancer-neg-ready',
} as const;

/** The `/metadata/annotations/<key>` pointer. */
export function annotationPointer(key: string): string {
  return `/metadata/annotations/${escapeSegment(key)}`;
}

export function annotationsOf(o: KObject): Labels {
  return stringMap(get(o.raw, 'metadata', 'annotations'));
}

export function labelsOf(o: KObject): Labels {
  return stringMap(get(o.raw, 'metadata', 'labels'));
}

/** `deregistration_delay.timeout_seconds` from a comma-separated `key=value` target-group attribute list. */
export function parseDeregistrationDelay(attrs: string | undefined): number | undefined {
  if (attrs === undefined) return undefined;
  for (const part of attrs.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== 'deregistration_delay.timeout_seconds') continue;
    const v = part.slice(eq + 1).trim();
    return /^\d+$/.test(v) ? Number(v) : undefined;
  }
  return undefined;
}

/**
 * The attribute list with `deregistration_delay.timeout_seconds` set to `seconds`: the entry is
 * replaced where it is (spacing kept), or appended; the other attributes are kept as written.
 */
export function withDeregistrationDelay(attrs: string | undefined, seconds: number): string {
  const entry = `deregistration_delay.timeout_seconds=${seconds}`;
  if (attrs === undefined || attrs.trim() === '') return entry;
  const parts = attrs.split(',');
  const i = parts.findIndex((p) => p.includes('=') && p.slice(0, p.indexOf('=')).trim() === 'deregistration_delay.timeout_seconds');
  if (i >= 0) {
    const eq = parts[i].indexOf('=');
    const trailing = /\s*$/.exec(parts[i])![0];
    parts[i] = `${parts[i].slice(0, eq + 1)}${seconds}${trailing}`;
    return parts.join(',');
  }
  return `${attrs.replace(/[\s,]*$/, '')},${entry}`;
}

/**
 * How an external load balancer reaches the pods:
 * - `alb-ip`: an ALB Ingress (AWS Load Balancer Controller) with `target-type: ip`;
 * - `nlb-ip`: a LoadBalancer Service provisioned as an NLB with IP targets;
 * - `tgb-ip`: a TargetGroupBinding (elbv2.k8s.aws) with `targetType: ip` (ALB or NLB target group);
 * - `neg`: a GKE Service with network endpoint groups (`cloud.google.com/neg`);
 * - `local`: a LoadBalancer Service with `externalTrafficPolicy: Local`.
 */
export type FrontKind = 'alb-ip' | 'nlb-ip' | 'tgb-ip' | 'neg' | 'local';

export interface DeregistrationDelay {
  seconds: number;
  /** Whether the attribute is written; otherwise the AWS default 300 s. */
  set: boolean;
  /** Where the attribute is (or should be) written: object and pointer. */
  object: KObject;
  pointer: string;
}

export interface LbFront {
  kind: FrontKind;
  /** The object that makes the LB target the pods: Ingress, Service or TargetGroupBinding. */
  via: KObject;
  /** The Service selecting the pods. */
  service: ServiceView;
  /** "Ingress/shop (alb.ingress.kubernetes.io/target-type: ip)", for messages. */
  label: string;
  /** Deregistration delay, for AWS target groups whose attributes are in the manifest (not TGB). */
  dd?: DeregistrationDelay;
}

export const AWS_IP_KINDS: ReadonlySet<FrontKind> = new Set(['alb-ip', 'nlb-ip', 'tgb-ip']);

/** The Service provisions an NLB with IP targets (AWS Load Balancer Controller). */
export function isNlbIp(s: ServiceView): boolean {
  if (s.type !== 'LoadBalancer') return false;
  const a = s.annotations;
  return a[AWS.nlbTargetType]?.trim().toLowerCase() === 'ip' || a[AWS.lbType]?.trim().toLowerCase() === 'nlb-ip';
}

/** `cloud.google.com/neg` asks for NEGs (`{"ingress": true}` or `{"exposed_ports": ...}`), or the controller recorded them. */
export function isNegService(s: ServiceView): boolean {
  if (s.annotations[GKE.negStatus] !== undefined) return true;
  const v = s.annotations[GKE.neg];
  if (v === undefined) return false;
  try {
    const j = JSON.parse(v) as unknown;
    if (!isObject(j)) return false;
    return j.ingress === true || (isObject(j.exposed_ports) && Object.keys(j.exposed_ports).length > 0);
  } catch {
    return false;
  }
}

/**
 * A LoadBalancer Service with `externalTrafficPolicy: Local`: the cloud LB steers by kube-proxy's
 * healthCheckNodePort, which the API server allocates for that type only (kubernetes
 * pkg/registry/core/service/storage/alloc.go needsHCNodePort: `if svc.Spec.Type !=
 * api.ServiceTypeLoadBalancer { return false }`). A NodePort Service with Local has no health check
 * and no LB pool: clients address a node themselves, so there is no LB window to outlast (review
 * round 30: pihole's NodePort DNS Services).
 */
export function isExternalLocal(s: ServiceView): boolean {
  return s.externalTrafficPolicy === 'Local' && s.type === 'LoadBalancer';
}

function sameNs(a: KObject, b: KObject): boolean {
  return (a.namespace ?? '') === (b.namespace ?? '');
}

/** Names of the Services an Ingress routes to: rules[].http.paths[].backend and the default backend (v1 and v1beta1). */
export function ingressBackendServices(ing: KObject): string[] {
  const names = new Set<string>();
  const add = (backend: Json | undefined) => {
    const v1 = get(backend, 'service', 'name');
    const beta = get(backend, 'serviceName');
    if (typeof v1 === 'string') names.add(v1);
    else if (typeof beta === 'string') names.add(beta);
  };
  add(get(ing.raw, 'spec', 'defaultBackend'));
  add(get(ing.raw, 'spec', 'backend'));
  const rules = get(ing.raw, 'spec', 'rules');
  if (Array.isArray(rules)) {
    for (const r of rules) {
      const paths = get(r, 'http', 'paths');
      if (Array.isArray(paths)) for (const p of paths) add(get(p, 'backend'));
    }
  }
  return [...names];
}

/**
 * The external load balancers in the set that target the workload's pods (or their nodes, for
 * `externalTrafficPolicy: Local`), one entry per fronting object and Service.
 */
export function lbFronts(graph: ObjectGraph, w: Workload): LbFront[] {
  const out: LbFront[] = [];
  const services = graph.servicesFor(w);
  if (!services.length) return out;
  const byName = new Map(services.map((s) => [s.obj.name, s]));
  for (const s of services) {
    if (isNlbIp(s)) {
      const attrs = s.annotations[AWS.serviceTgAttributes];
      const seconds = parseDeregistrationDelay(attrs);
      const byTargetType = s.annotations[AWS.nlbTargetType]?.trim().toLowerCase() === 'ip';
      const key = byTargetType ? `${AWS.nlbTargetType}: ip` : `${AWS.lbType}: nlb-ip`;
      out.push({
        kind: 'nlb-ip',
        via: s.obj,
        service: s,
        label: `Service/${s.obj.name} (NLB, ${key})`,
        dd: {
          seconds: seconds ?? AWS.defaultDeregistrationDelay,
          set: seconds !== undefined,
          object: s.obj,
          pointer: annotationPointer(attrs !== undefined ? AWS.serviceTgAttributes : byTargetType ? AWS.nlbTargetType : AWS.lbType),
        },
      });
    }
    if (isNegService(s)) out.push({ kind: 'neg', via: s.obj, service: s, label: `Service/${s.obj.name} (GKE NEG, ${GKE.neg})` });
    if (isExternalLocal(s)) out.push({ kind: 'local', via: s.obj, service: s, label: `Service/${s.obj.name} (type ${s.type}, externalTrafficPolicy: Local)` });
  }
  for (const o of [...graph.ofKindIn('Ingress', w.obj.namespace), ...graph.ofKindIn('TargetGroupBinding', w.obj.namespace)]) {
    if (o.kind === 'Ingress' && sameNs(o, w.obj)) {
      const ingAnn = annotationsOf(o);
      for (const name of ingressBackendServices(o)) {
        const s = byName.get(name);
        if (!s) continue;
        // Service annotations override the Ingress's for that backend (AWS LBC ingress annotations).
        const tt = (s.annotations[AWS.albTargetType] ?? ingAnn[AWS.albTargetType])?.trim().toLowerCase();
        if (tt !== 'ip') continue;
        const onSvc = s.annotations[AWS.albTgAttributes] !== undefined;
        const attrs = onSvc ? s.annotations[AWS.albTgAttributes] : ingAnn[AWS.albTgAttributes];
        const seconds = parseDeregistrationDelay(attrs);
        out.push({
          kind: 'alb-ip',
          via: o,
          service: s,
          label: `Ingress/${o.name} (ALB, ${AWS.albTargetType}: ip, backend Service/${s.obj.name})`,
          dd: {
            seconds: seconds ?? AWS.defaultDeregistrationDelay,
            set: seconds !== undefined,
            object: onSvc ? s.obj : o,
            pointer: attrs !== undefined ? annotationPointer(AWS.albTgAttributes) : ingAnn[AWS.albTargetType] !== undefined ? annotationPointer(AWS.albTargetType) : '/metadata',
          },
        });
      }
    }
    if (o.kind === 'TargetGroupBinding' && o.apiVersion.startsWith('elbv2.k8s.aws/') && sameNs(o, w.obj)) {
      if (get(o.raw, 'spec', 'targetType') !== 'ip') continue;
      const name = get(o.raw, 'spec', 'serviceRef', 'name');
      const s = typeof name === 'string' ? byName.get(name) : undefined;
      if (!s) continue;
      out.push({ kind: 'tgb-ip', via: o, service: s, label: `TargetGroupBinding/${o.name} (targetType: ip, Service/${s.obj.name})` });
    }
  }
  return out;
}

/** The AWS LBC readiness gate written in the pod template, if any. */
export function awsReadinessGate(w: Workload): string | undefined {
  return readinessGates(w).find((t) => t.startsWith(AWS.readinessGatePrefix));
}

/** `readinessGates[].conditionType` of the pod template. */
export function readinessGates(w: Workload): string[] {
  const gates = w.podSpec.readinessGates;
  if (!Array.isArray(gates)) return [];
  return gates.map((g) => get(g, 'conditionType')).filter((t): t is string => typeof t === 'string');
}

/**
 * Containers behind the given Services' client ports (main containers and native sidecars): the
 * traffic ports prestop-missing judges (trafficPortsOf), not the ports for scrapes, operators or peers
 * a Service may carry too: pihole's chart puts its exporter sidecar's `prometheus` port 9617 on the DNS
 * LoadBalancer Service, and a missed scrape is no lost request (review round 30).
 */
export function containersBehind(graph: ObjectGraph, w: Workload, services: ReadonlySet<ServiceView>): ContainerView[] {
  const hit = new Set(trafficPortsOf(graph, w).filter((p) => services.has(p.service)).map((p) => p.container));
  return [...w.containers, ...w.sidecars].filter((c) => hit.has(c));
}

/** True when the object's namespace holds a workload (or owned workload) in the set. */
export function namespaceHasWorkloads(graph: ObjectGraph, o: KObject): boolean {
  return graph.hasWorkloadsIn(o.namespace);
}

/** A positive integer annotation value. */
export function intAnnotation(a: Labels, key: string): number | undefined {
  const v = a[key];
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return num(Number(v));
}

/** A StatefulSet's update strategy and pod management policy, with API defaults (section 0). */
export interface StsStrategy {
  podManagementPolicy: string;
  podManagementPolicySet: boolean;
  type: string;
  typeSet: boolean;
  partition?: Json;
  maxUnavailable?: Json;
}

export function stsStrategy(w: Workload): StsStrategy {
  const pmp = enumOr(get(w.obj.raw, 'spec', 'podManagementPolicy'), 'OrderedReady');
  const type = enumOr(get(w.obj.raw, 'spec', 'updateStrategy', 'type'), 'RollingUpdate');
  const ru = get(w.obj.raw, 'spec', 'updateStrategy', 'rollingUpdate');
  return {
    podManagementPolicy: pmp.value,
    podManagementPolicySet: pmp.set,
    type: type.value,
    typeSet: type.set,
    partition: isObject(ru) ? (ru.partition ?? undefined) : undefined,
    maxUnavailable: isObject(ru) ? (ru.maxUnavailable ?? undefined) : undefined,
  };
}

/**
 * The advice that gives a container's hook a delay of `seconds`: for a known program of the
 * catalog (e.g. ingress-nginx /wait-shutdown), its own knob (--shutdown-grace-period); for an
 * httpGet that waits for such a program's hook in another container (Contour's Envoy calling its
 * shutdown-manager's /shutdown), that program's knob there (a sleep in its place would drop the
 * handshake: the health-check fail and the wait for connections to drain); else a sleep.
 */
export function delayAdvice(version: KubeVersion, d: PreStopDelay, seconds: number): string {
  if (d.kind === 'httpGet' && d.awaits !== undefined) {
    const a = knownPreStopAdvice(d.program, undefined, seconds);
    if (a) return `${a} of container "${d.awaits}", whose hook this one waits for`;
  }
  return (d.kind === 'exec-known' && !d.hinted ? knownPreStopAdvice(d.program, d.command, seconds) : undefined) ?? sleepFix(version, seconds);
}

/** "preStop delay 5s", or what a known program of the catalog does ("preStop program ... keeps accepting for 0s"). */
export function hookDelayWords(d: PreStopDelay, seconds: number): string {
  return d.kind === 'exec-known' && !d.hinted ? knownPreStopWords(d.program, seconds, d.bound) : `preStop delay ${seconds}s`;
}

/** The preStop delay to write, in the form the target version supports. */
export function sleepFix(version: KubeVersion, seconds: number): string {
  return version.atLeast(1, 30) ? `lifecycle: {preStop: {sleep: {seconds: ${seconds}}}}` : `lifecycle: {preStop: {exec: {command: ["sleep", "${seconds}"]}}}`;
}

/** A fix's edits that give a container a preStop delay of `seconds` (lb-deregistration-delay, external-traffic-local, mesh rules). */
export interface PreStopDelayEdit {
  edits: FixEdit[];
  /** "add preStop sleep 30s to container \"app\"", for fix descriptions. */
  text: string;
  /**
   * True when the edit only adds the sleep action to a container without a hook on >= 1.30:
   * graceful-termination.md section 12's safe set. Lengthening an existing hook, or adding an exec
   * sleep (which needs a `sleep` binary in the image) before 1.30, is a proposal.
   */
  safe: boolean;
}

/**
 * Edits that make the container's preStop delay `seconds`, keeping the form of the hook it has:
 * no hook gets the sleep action (>= 1.30) or `exec: [sleep, N]`; a sleep action or an exec that only
 * sleeps gets its duration replaced. Undefined for hooks that do more than sleep (a shell that
 * sleeps and then runs something, a wait command, httpGet): rewriting those is left to the user.
 */
export function preStopDelayEdit(version: KubeVersion, c: ContainerView, seconds: number, waitPatterns?: string[]): PreStopDelayEdit | undefined {
  const base = `${c.pointer}/lifecycle/preStop`;
  const d = preStopDelay(c.raw, waitPatterns);
  const who = `container "${c.name}"`;
  if (d.kind === 'none') {
    const h = preStopHandler(version, seconds);
    const safe = h.safety === 'safe';
    return { edits: [{ op: 'set', pointer: base, value: h.handler }], text: safe ? `add preStop sleep ${seconds}s to ${who}` : `add preStop exec sleep ${seconds} to ${who}`, safe };
  }
  if (d.kind === 'sleep') return { edits: [{ op: 'set', pointer: `${base}/sleep/seconds`, value: seconds }], text: `set the preStop sleep of ${who} to ${seconds}s`, safe: false };
  if (d.kind !== 'exec-sleep' || !d.command) return undefined;
  if (d.command.length === 2) return { edits: [{ op: 'set', pointer: `${base}/exec/command/1`, value: String(seconds) }], text: `set the preStop sleep of ${who} to ${seconds}s`, safe: false };
  // ["sh", "-c", "sleep N"]: replace only the duration, keeping the shell and the script's form.
  const script = d.command[2].replace(/(sleep\s+)\S+?(\s*;?\s*)$/, `$1${seconds}$2`);
  return { edits: [{ op: 'set', pointer: `${base}/exec/command/2`, value: script }], text: `set the preStop sleep of ${who} to ${seconds}s`, safe: false };
}

/** The edit that sets the pod's terminationGracePeriodSeconds. */
export function graceEdit(w: Workload, seconds: number): FixEdit {
  return { op: 'set', pointer: `${w.podSpecPointer}/terminationGracePeriodSeconds`, value: seconds };
}

/** Where to point a preStop finding: the hook if written, else the container. */
export function preStopPointer(c: ContainerView): string {
  const p = get(c.raw, 'lifecycle', 'preStop');
  return p !== undefined && p !== null ? `${c.pointer}/lifecycle/preStop` : c.pointer;
}

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

/**
 * How the pod template spreads its own pods across nodes or zones: a topologySpreadConstraint on
 * hostname or zone, or pod anti-affinity (required or preferred) on hostname, whose label selector
 * matches the template's own labels. Undefined when it does not.
 */
export function spreading(w: Workload): string | undefined {
  const own = (sel: Json | undefined) => matches(parseLabelSelector(sel), w.templateLabels);
  const tsc = w.podSpec.topologySpreadConstraints;
  if (Array.isArray(tsc)) {
    for (const t of tsc) {
      const key = get(t, 'topologyKey');
      if ((key === HOSTNAME || key === ZONE) && own(get(t, 'labelSelector'))) return `topologySpreadConstraints on ${key}`;
    }
  }
  const anti = get(w.podSpec, 'affinity', 'podAntiAffinity');
  const required = get(anti, 'requiredDuringSchedulingIgnoredDuringExecution');
  const preferred = get(anti, 'preferredDuringSchedulingIgnoredDuringExecution');
  const terms: Json[] = [];
  if (Array.isArray(required)) terms.push(...required);
  if (Array.isArray(preferred)) for (const p of preferred) terms.push(get(p, 'podAffinityTerm') ?? null);
  for (const t of terms) {
    if (get(t, 'topologyKey') === HOSTNAME && own(get(t, 'labelSelector'))) return `pod anti-affinity on ${HOSTNAME}`;
  }
  return undefined;
}

/** The pointer of the spreading fields if one is written, else the pod spec. */
export function spreadPointer(w: Workload): string {
  if (w.podSpec.topologySpreadConstraints !== undefined) return `${w.podSpecPointer}/topologySpreadConstraints`;
  if (get(w.podSpec, 'affinity', 'podAntiAffinity') !== undefined) return `${w.podSpecPointer}/affinity/podAntiAffinity`;
  return w.podSpecPointer;
}

/**
 * Whether a selector matches the pods of a workload, counting the labels the controllers add to each
 * pod (not in the template): `statefulset.kubernetes.io/pod-name` (`<name>-<ordinal>`) and
 * `apps.kubernetes.io/pod-index` on StatefulSet pods, `controller-revision-hash` on StatefulSet and
 * DaemonSet pods, `pod-template-hash` on Deployment pods (hash values cannot be known: any matches);
 * and those a well-known app writes on its own pod (VAULT_POD_LABELS, LONGHORN_POD_LABELS,
 * KUBE_OVN_POD_LABELS, MINIO_OPERATOR_POD_LABELS, Patroni's role label).
 */
export function selectsPodsOf(sel: Selector, w: Workload): boolean {
  if (matches(sel, w.templateLabels)) return true;
  if (sel.kind !== 'selector') return false;
  const added = controllerLabels(w);
  let usedAdded = false;
  const rest = sel.requirements.filter((r) => {
    const check = added[r.key];
    if (!check || r.operator !== 'In' || r.values.length !== 1) return true;
    if (!check(r.values[0])) return true; // keeps it, so it fails below
    usedAdded = true;
    return false;
  });
  return usedAdded && matches(rest.length ? { kind: 'selector', requirements: rest } : { kind: 'empty' }, w.templateLabels);
}

/** controllerLabels per workload view (views live for one run). */
const controllerLabelsMemo = new WeakMap<Workload, Record<string, (v: string) => boolean>>();

function controllerLabels(w: Workload): Record<string, (v: string) => boolean> {
  let c = controllerLabelsMemo.get(w);
  if (!c) controllerLabelsMemo.set(w, (c = computeControllerLabels(w)));
  return c;
}

/**
 * Vault with `service_registration "kubernetes"` labels its own pod with its state, and vault-helm's
 * HA Services select on it (vault-active: "true" / "false"): hashicorp/vault
 * serviceregistration/kubernetes (labelActive, labelSealed, labelPerfStandby, labelInitialized,
 * labelVaultVersion), developer.hashicorp.com/vault/docs/configuration/service-registration/kubernetes.
 */
const VAULT_IMAGE = /^(?:.+\/)?vault(?:-enterprise)?$/;
const BOOL = (v: string) => v === 'true' || v === 'false';
const VAULT_POD_LABELS: Record<string, (v: string) => boolean> = { 'vault-active': BOOL, 'vault-sealed': BOOL, 'vault-initialized': BOOL, 'vault-perf-standby': BOOL, 'vault-version': () => true };

/** Whether a main container runs Vault (hashicorp/vault, hashicorp/vault-enterprise, from any registry). */
export function runsVault(w: Workload): boolean {
  return w.containers.some((c) => VAULT_IMAGE.test(imageRepository(c.image).path));
}

/**
 * longhorn-manager labels its own pod once its admission webhook, conversion webhook and recovery
 * backend serve, and the chart's Services for them select those labels (longhorn/longhorn-manager
 * types/types.go GetAdmissionWebhookLabel, GetConversionWebhookLabel, GetRecoveryBackendLabel:
 * longhorn.io/<name>: longhorn-<name>; datastore AddLabelToManagerPod).
 */
const LONGHORN_MANAGER_IMAGE = /^(?:.+\/)?longhorn-manager$/;
const ANY = () => true;
const LONGHORN_POD_LABELS: Record<string, (v: string) => boolean> = { 'longhorn.io/admission-webhook': ANY, 'longhorn.io/conversion-webhook': ANY, 'longhorn.io/recovery-backend': ANY };

/**
 * kube-ovn's ovn-central pods (image kubeovn/kube-ovn) label themselves with the raft leadership of
 * each database, "true"/"false", and the chart's Services ovn-nb, ovn-sb and ovn-northd select the
 * leader (kubeovn/kube-ovn pkg/ovn_leader_checker/ovn.go doOvnLeaderCheck: util.PatchLabels with
 * ovn-nb-leader, ovn-sb-leader, ovn-northd-leader; review round 14).
 */
const KUBE_OVN_IMAGE = /^(?:.+\/)?kube-ovn$/;
const KUBE_OVN_POD_LABELS: Record<string, (v: string) => boolean> = { 'ovn-nb-leader': BOOL, 'ovn-sb-leader': BOOL, 'ovn-northd-leader': BOOL };

/**
 * Patroni on Kubernetes sets its Postgres role on its own pod, in the label named by
 * PATRONI_KUBERNETES_ROLE_LABEL (kubernetes.role_label; default `role`), with values such as
 * master/primary, replica, standby-leader: the leader Service selects it (patroni/patroni
 * docs/ENVIRONMENT.rst and docs/kubernetes.rst; the timescaledb-single chart's Services select
 * role: master and role: replica; review round 14). A container runs Patroni when its command or
 * args run `patroni` or it has PATRONI_KUBERNETES_* variables. A role label set only in Patroni's
 * config file is not read: the default is assumed.
 */
const PATRONI_COMMAND = /(?:^|[\s/])patroni(?:\s|$)/;
function patroniRoleLabel(c: ContainerView): string | undefined {
  const words = [get(c.raw, 'command'), get(c.raw, 'args')].flatMap((a) => (Array.isArray(a) ? a.filter((x): x is string => typeof x === 'string') : [])).join(' ');
  const env = (Array.isArray(c.raw.env) ? c.raw.env : []).filter(isObject);
  const patroniEnv = env.some((e) => typeof e.name === 'string' && e.name.startsWith('PATRONI_KUBERNETES_'));
  if (!PATRONI_COMMAND.test(words) && !patroniEnv) return undefined;
  const set = env.filter((e) => e.name === 'PATRONI_KUBERNETES_ROLE_LABEL' && typeof e.value === 'string' && e.value !== '').pop();
  return set ? (set.value as string) : 'role';
}

/**
 * MinIO Operator (image minio/operator): the pod elected leader patches `operator: leader` onto itself
 * (and removes it when it loses the lease), and the chart's Service "operator" (the in-place upgrade
 * file server on 4221, which only the leader runs) selects it (minio/operator @0ee2c254677e
 * pkg/controller/main-controller.go OnNewLeader / OnStoppedLeading; review round 17).
 */
const MINIO_OPERATOR_IMAGE = /^(?:.+\/)?minio\/operator$/;
const MINIO_OPERATOR_POD_LABELS: Record<string, (v: string) => boolean> = { operator: (v) => v === 'leader' };

function computeControllerLabels(w: Workload): Record<string, (v: string) => boolean> {
  const byController = controllerAdded(w);
  if (runsVault(w)) return { ...byController, ...VAULT_POD_LABELS };
  if (w.containers.some((c) => LONGHORN_MANAGER_IMAGE.test(imageRepository(c.image).path))) return { ...byController, ...LONGHORN_POD_LABELS };
  if (w.containers.some((c) => KUBE_OVN_IMAGE.test(imageRepository(c.image).path))) return { ...byController, ...KUBE_OVN_POD_LABELS };
  if (w.containers.some((c) => MINIO_OPERATOR_IMAGE.test(imageRepository(c.image).path))) return { ...byController, ...MINIO_OPERATOR_POD_LABELS };
  const role = w.containers.map(patroniRoleLabel).find((x) => x !== undefined);
  if (role !== undefined) return { ...byController, [role]: ANY };
  return byController;
}

function controllerAdded(w: Workload): Record<string, (v: string) => boolean> {
  const any = () => true;
  switch (w.kind) {
    case 'StatefulSet': {
      const re = new RegExp(`^${w.obj.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+$`);
      return { 'statefulset.kubernetes.io/pod-name': (v) => re.test(v), 'apps.kubernetes.io/pod-index': (v) => /^\d+$/.test(v), 'controller-revision-hash': any };
    }
    case 'Deployment':
      return { 'pod-template-hash': any };
    case 'DaemonSet':
      return { 'controller-revision-hash': any };
    default:
      return {};
  }
}

/**
 * Workloads whose pods the Service selects: the graph's template match, else the match counting
 * controller-added pod labels (per-pod Services such as redis-ha's "announce" Services).
 */
export function selectedWorkloads(graph: ObjectGraph, s: ServiceView): Workload[] {
  const direct = graph.workloadsFor(s);
  if (direct.length || s.selector.kind !== 'selector') return direct;
  const ns = s.obj.namespace ?? '';
  return graph.workloadsIn(ns).filter((w) => (w.obj.namespace ?? '') === ns && selectsPodsOf(s.selector, w));
}

/** Services in the workload's namespace that select its pods (including per-pod Services). */
export function servicesSelecting(graph: ObjectGraph, w: Workload): ServiceView[] {
  return graph.servicesIn(w.obj.namespace).filter((s) => s.selector.kind === 'selector' && selectsPodsOf(s.selector, w));
}

/**
 * A Helm hook whose object stays after it ran: Helm deletes a hook only by its
 * `helm.sh/hook-delete-policy` (default before-hook-creation: at the next run of that hook), so a
 * Job without `hook-succeeded` (or `ttlSecondsAfterFinished`) and its Completed pod outlive the
 * install; the disruption controller still lists that pod under a budget that selects it, and a
 * Job has no scale subresource (openfga's migration Job carries the server's labels; review round 23).
 */
export function lastingHelmHook(o: KObject): boolean {
  if (!isHelmHook(o)) return false;
  // A delete hook runs at `helm uninstall`, when the release's budget goes too (the
  // VictoriaMetrics operator's pre-delete cleanup Job).
  if (helmAnnotationList(o, 'helm.sh/hook').every((x) => x === 'pre-delete' || x === 'post-delete')) return false;
  if (helmAnnotationList(o, 'helm.sh/hook-delete-policy').includes('hook-succeeded')) return false;
  if (o.kind === 'Job' && typeof get(o.raw, 'spec', 'ttlSecondsAfterFinished') === 'number') return false;
  return true;
}

/**
 * A Helm hook Job that does not stay (lastingHelmHook) but runs at install, upgrade or rollback: its
 * pods exist for its run (and its ttlSecondsAfterFinished) under a budget that selects them. Test
 * hooks (pods only while `helm test` runs) and delete hooks (at uninstall, when the budget goes too)
 * are left out.
 */
export function runHelmHookJob(o: KObject): boolean {
  if (o.kind !== 'Job' || !isHelmHook(o) || lastingHelmHook(o) || isHelmTestHook(o)) return false;
  return !helmAnnotationList(o, 'helm.sh/hook').every((x) => x === 'pre-delete' || x === 'post-delete');
}

/** A Helm test hook (`helm.sh/hook: test`, test-success): its pods exist only while `helm test` runs. */
export function isHelmTestHook(o: KObject): boolean {
  if (!isHelmHook(o)) return false;
  const phases = helmAnnotationList(o, 'helm.sh/hook');
  return phases.length > 0 && phases.every((x) => x.startsWith('test'));
}

/** A comma-separated Helm annotation as its entries (`helm.sh/hook`, `helm.sh/hook-delete-policy`). */
export function helmAnnotationList(o: KObject, key: 'helm.sh/hook' | 'helm.sh/hook-delete-policy'): string[] {
  return String(annotationsOf(o)[key] ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
}

/**
 * A Helm hook that runs pods for good: a Deployment, StatefulSet, DaemonSet or ReplicaSet, no test
 * hook, that stays (lastingHelmHook). Its controller keeps its pods running, drains evict them and
 * clients reach them through Services like any workload's; but Helm never updates it in place. Helm
 * sets before-hook-creation when a hook names no delete policy, and deletes such a hook only before
 * that hook runs again (helm/helm @e9b85e4d pkg/action/hooks.go hookSetDeletePolicy,
 * execHookWithDelayedShutdown; the same in release-3.19 @efb94bf0). An install-only hook never runs
 * again: Airbyte 1.9.2's Postgres and MinIO are pre-install StatefulSets, the release's database and
 * log store for as long as it is installed (review round 25), never updated. A hook of an upgrade or
 * rollback phase is deleted and created anew at each of them (recreatedHelmHook): Sentry 25.20.0's
 * relay, a post-install,post-upgrade Deployment by default (review p32).
 */
export function servingHelmHook(o: KObject): boolean {
  return SERVING_KINDS.has(o.kind) && lastingHelmHook(o) && !isHelmTestHook(o);
}

const SERVING_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/** Hook phases Helm runs on a release that is already installed (helm/helm pkg/release/v1/hook.go HookEvent). */
const RERUN_PHASES = ['pre-upgrade', 'post-upgrade', 'pre-rollback', 'post-rollback'];

/**
 * The phases at which Helm deletes this serving hook (servingHelmHook) and creates it anew, or
 * undefined: its upgrade and rollback phases, when its delete policy is before-hook-creation,
 * written or Helm's default when the annotation is absent. At each such phase Helm deletes the
 * object with background propagation, waits until the object is gone, and only then creates it
 * (helm/helm @e9b85e4d pkg/action/hooks.go execHookWithDelayedShutdown: deleteHookByPolicy(h,
 * HookBeforeHookCreation) before KubeClient.Create; "TODO(jlegrone): Only apply before-hook-creation
 * delete policy to run to completion resources. For all other resource types update in place ..."),
 * so every pod of the old object terminates while the new one's pods start. Helm lower-cases and
 * trims both annotations (pkg/release/v1/util/manifest_sorter.go); a delete-policy annotation that
 * is present but names no before-hook-creation (even an empty one, read as one empty policy) sets
 * no default, and the hook is not deleted.
 */
export function recreatedHelmHook(o: KObject): string[] | undefined {
  if (!servingHelmHook(o)) return undefined;
  const phases = helmAnnotationList(o, 'helm.sh/hook').map((x) => x.toLowerCase()).filter((x) => RERUN_PHASES.includes(x));
  if (!phases.length) return undefined;
  const written = annotationsOf(o)['helm.sh/hook-delete-policy'];
  if (written !== undefined && !helmAnnotationList(o, 'helm.sh/hook-delete-policy').some((x) => x.toLowerCase() === 'before-hook-creation')) return undefined;
  return phases;
}

/**
 * A Helm hook whose pods exist only around the hook (a test Pod, a pre-install Job, a Deployment
 * deleted by hook-succeeded): every hook but a servingHelmHook. Rules that judge served workloads skip these.
 */
export function passingHelmHook(o: KObject): boolean {
  return isHelmHook(o) && !servingHelmHook(o);
}

/** A Helm hook (test pod, pre-install job, or a lasting hook StatefulSet: servingHelmHook): any object with a helm.sh/hook annotation. */
export function isHelmHook(o: KObject): boolean {
  return annotationsOf(o)['helm.sh/hook'] !== undefined;
}
