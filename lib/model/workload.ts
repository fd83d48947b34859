import { IntOrPercent, parseIntOrPercent, scaled } from './intstr';
import { Labels, parseLabelSelector, Selector, stringMap } from './selector';
import { isObject, Json, JsonObject, KObject } from './types';

export const WORKLOAD_KINDS = ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** API defaults from graceful-termination.md section 0. */
export const DEFAULTS = {
  terminationGracePeriodSeconds: 30,
  replicas: 1,
  maxSurge: '25%',
  maxUnavailable: '25%',
  minReadySeconds: 0,
  progressDeadlineSeconds: 600,
  probe: { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1, initialDelaySeconds: 0 },
  statefulSetMaxUnavailable: 1,
} as const;

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol: string;
}

export interface ContainerView {
  raw: JsonObject;
  name: string;
  /** Pointer relative to the object, e.g. /spec/template/spec/containers/0. */
  pointer: string;
  /** main container, native sidecar (init with restartPolicy Always) or classic init container. */
  role: 'main' | 'sidecar' | 'init';
  ports: ContainerPort[];
  image: string;
}

export interface DeploymentRollout {
  type: 'RollingUpdate' | 'Recreate' | string;
  maxSurge: IntOrPercent;
  maxUnavailable: IntOrPercent;
  /** Whether each field was written (not defaulted). */
  maxSurgeSet: boolean;
  maxUnavailableSet: boolean;
  /** Resolved per section 4 for `replicas` (forced unavailable 1 when both resolve to 0). */
  surge: number;
  unavailable: number;
  minReadySeconds: number;
  progressDeadlineSeconds: number;
  progressDeadlineSet: boolean;
}

export interface Workload {
  obj: KObject;
  kind: WorkloadKind;
  /** Pointer of the pod spec (PT) relative to the object. */
  podSpecPointer: string;
  /** Pointer of the pod template (absent for Pod). */
  templatePointer?: string;
  podSpec: JsonObject;
  templateLabels: Labels;
  /** Workload metadata annotations overlaid with pod template annotations (template wins). */
  annotations: Labels;
  /** spec.replicas for scalable kinds (default 1); undefined for Pod, DaemonSet, Job, CronJob. */
  replicas?: number;
  replicasSet: boolean;
  grace: number;
  graceSet: boolean;
  containers: ContainerView[];
  sidecars: ContainerView[];
  initContainers: ContainerView[];
  selector: Selector;
  selectorSet: boolean;
  deployment?: DeploymentRollout;
  isBatch: boolean;
  /** Set when a controller ownerReference says another object manages this one. */
  ownedBy?: string;
}

const POD_SPEC_PATHS: Record<WorkloadKind, string[]> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

/**
 * An object of a Helm render (helm.sh/chart, or app.kubernetes.io/managed-by: Helm). Charts often
 * choose an apiVersion by .Capabilities.APIVersions, which `helm template` fills with every
 * group/version its client library knows and no resource-qualified entry (helm v3.10.1 with
 * --kube-version 1.31.0: Has "autoscaling/v2beta1" and "policy/v1beta1" true, Has
 * "autoscaling/v2/HorizontalPodAutoscaler" and "policy/v1/PodDisruptionBudget" false), so a render
 * may hold a version the chart would not install on the cluster.
 */
export function helmRendered(o: KObject): boolean {
  const labels = get(o.raw, 'metadata', 'labels');
  return isObject(labels) && (typeof labels['helm.sh/chart'] === 'string' || labels['app.kubernetes.io/managed-by'] === 'Helm');
}

export function get(o: Json | undefined, ...keys: string[]): Json | undefined {
  let cur: Json | undefined = o;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/**
 * A string enum field as the API server reads it: absent and `""` are the same for a non-pointer
 * string field (Go's zero value), and its defaulting function gives both the default (e.g.
 * SetDefaults_Deployment: `if strategy.Type == "" { strategy.Type = RollingUpdate }`;
 * SetDefaults_StatefulSet for podManagementPolicy and updateStrategy.type; SetDefaults_Service for
 * type). A chart that renders `podManagementPolicy: ""` gets OrderedReady.
 */
export function enumOr(v: Json | undefined, dflt: string): { value: string; set: boolean } {
  return typeof v === 'string' && v !== '' ? { value: v, set: true } : { value: dflt, set: false };
}

export function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function containerViews(list: Json | undefined, base: string, initList: boolean): ContainerView[] {
  if (!Array.isArray(list)) return [];
  const out: ContainerView[] = [];
  list.forEach((c, i) => {
    if (!isObject(c)) return;
    const ports: ContainerPort[] = [];
    if (Array.isArray(c.ports)) {
      for (const p of c.ports) {
        if (!isObject(p) || typeof p.containerPort !== 'number') continue;
        ports.push({ name: typeof p.name === 'string' ? p.name : undefined, containerPort: p.containerPort, protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP' });
      }
    }
    const role = !initList ? 'main' : c.restartPolicy === 'Always' ? 'sidecar' : 'init';
    out.push({ raw: c, name: typeof c.name === 'string' ? c.name : `#${i}`, pointer: `${base}/${i}`, role, ports, image: typeof c.image === 'string' ? c.image : '' });
  });
  return out;
}

/** Builds the workload view, with API defaults applied; undefined for non-workload kinds. */
export function workloadOf(obj: KObject): Workload | undefined {
  if (!(WORKLOAD_KINDS as readonly string[]).includes(obj.kind)) return undefined;
  const kind = obj.kind as WorkloadKind;
  const path = POD_SPEC_PATHS[kind];
  const podSpec = get(obj.raw, ...path);
  if (!isObject(podSpec)) return undefined;
  const podSpecPointer = '/' + path.join('/');
  const templatePath = path.slice(0, -1);
  const templatePointer = kind === 'Pod' ? undefined : '/' + templatePath.join('/');
  const templateMeta = kind === 'Pod' ? get(obj.raw, 'metadata') : get(obj.raw, ...templatePath, 'metadata');
  const templateLabels = stringMap(get(templateMeta, 'labels'));
  const annotations = { ...stringMap(get(obj.raw, 'metadata', 'annotations')), ...stringMap(get(templateMeta, 'annotations')) };
  const scalable = kind === 'Deployment' || kind === 'StatefulSet' || kind === 'ReplicaSet';
  const replicasRaw = num(get(obj.raw, 'spec', 'replicas'));
  const replicas = scalable ? (replicasRaw ?? DEFAULTS.replicas) : undefined;
  const graceRaw = num(podSpec.terminationGracePeriodSeconds);
  const selectorRaw = kind === 'Pod' || kind === 'CronJob' ? undefined : get(obj.raw, 'spec', 'selector');
  const owner = Array.isArray(get(obj.raw, 'metadata', 'ownerReferences'))
    ? (get(obj.raw, 'metadata', 'ownerReferences') as Json[]).find((r) => isObject(r) && r.controller === true)
    : undefined;
  const w: Workload = {
    obj,
    kind,
    podSpecPointer,
    templatePointer,
    podSpec,
    templateLabels,
    annotations,
    replicas,
    replicasSet: replicasRaw !== undefined,
    grace: graceRaw ?? DEFAULTS.terminationGracePeriodSeconds,
    graceSet: graceRaw !== undefined,
    containers: containerViews(podSpec.containers, `${podSpecPointer}/containers`, false),
    sidecars: [],
    initContainers: [],
    selector: parseLabelSelector(selectorRaw),
    selectorSet: selectorRaw !== undefined && selectorRaw !== null,
    isBatch: kind === 'Job' || kind === 'CronJob',
    ownedBy: isObject(owner) ? `${String(owner.kind)}/${String(owner.name)}` : undefined,
  };
  const inits = containerViews(podSpec.initContainers, `${podSpecPointer}/initContainers`, true);
  w.sidecars = inits.filter((c) => c.role === 'sidecar');
  w.initContainers = inits.filter((c) => c.role === 'init');
  if (kind === 'Deployment') w.deployment = resolveDeploymentRollout(obj.raw, replicas ?? 1);
  return w;
}

/** Section 4's resolution rule, exactly: surge rounds up, unavailable down, both 0 forces 1. */
export function resolveDeploymentRollout(raw: JsonObject, replicas: number): DeploymentRollout {
  const strategy = get(raw, 'spec', 'strategy');
  const type = enumOr(get(strategy, 'type'), 'RollingUpdate').value;
  const surgeRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxSurge'));
  const unavailRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxUnavailable'));
  const maxSurge = surgeRaw ?? { kind: 'percent', value: 25 };
  const maxUnavailable = unavailRaw ?? { kind: 'percent', value: 25 };
  let surge = type === 'RollingUpdate' ? (scaled(maxSurge, replicas, true) ?? 0) : 0;
  let unavailable = type === 'RollingUpdate' ? (scaled(maxUnavailable, replicas, false) ?? 0) : replicas;
  if (type === 'RollingUpdate' && surge === 0 && unavailable === 0) unavailable = 1;
  surge = Math.max(0, surge);
  unavailable = Math.max(0, unavailable);
  const pds = num(get(raw, 'spec', 'progressDeadlineSeconds'));
  return {
    type,
    maxSurge,
    maxUnavailable,
    maxSurgeSet: surgeRaw !== undefined,
    maxUnavailableSet: unavailRaw !== undefined,
    surge,
    unavailable,
    minReadySeconds: num(get(raw, 'spec', 'minReadySeconds')) ?? DEFAULTS.minReadySeconds,
    progressDeadlineSeconds: pds ?? DEFAULTS.progressDeadlineSeconds,
    progressDeadlineSet: pds !== undefined,
  };
}

/** All containers that run for the pod's life: main containers then native sidecars. */
export function runningContainers(w: Workload): ContainerView[] {
  return [...w.containers, ...w.sidecars];
}
