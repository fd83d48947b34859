/**
 * Reads synthesized manifests and decides which fields of which objects become chart values:
 * per workload the rollout and termination knobs, with their defaults taken from the manifests,
 * and the facts the guards and NOTES need (the fixed part of the termination budget). Pure.
 */
import { isScalar } from 'yaml';
import { KubeVersion } from '../engine/version';
import { Mesh } from '../constructs/mesh';
import { FEATURES, FeatureName, MIN_SUPPORTED_VERSION } from '../constructs/version';
import { HINT, ObjectGraph, PdbView } from '../model/graph';
import { isClusterScoped, parseText } from '../model/parse';
import { likelyServed, servedStateOf } from '../model/traffic';
import { AWS_LBC } from '../constructs/load-balancer';
import { AWS_IP_KINDS, lbFronts } from '../rules/lb-util';
import { claimExclusivity } from '../rules/rollout-util';
import { isObject, Json, JsonObject, KObject } from '../model/types';
import { ContainerView, DEFAULTS, get, Workload } from '../model/workload';
import { parseSidecarDrainHint, shutdownAddends, SIDECAR_DRAIN_HINT, sidecarDrainSeconds } from '../timeline/addends';
import { ClassicFallback, drainFlagProgram, DrainFlagProgram, splitDrainArgs } from './classic-sidecar';
import { DEFAULT_DRAIN_SECONDS, recommendedGrace } from '../timeline/budget';
import { LINKERD, ISTIO } from '../timeline/mesh';
import { classifyPreStop, PreStopKind } from '../timeline/prestop';
import { enumSchema, group, intOrPercentSchema, intSchema, leaf, resourcesSchema, ValueGroup, ValueNode } from './values';

export type KnobKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';
const KNOB_KINDS: readonly string[] = ['Deployment', 'StatefulSet', 'DaemonSet'];

/** How a container's image string splits into values. */
export interface ImageParts {
  /** The registry host ("" for Docker Hub's implicit one). */
  registry: string;
  repository: string;
  tag: string;
  digest: string;
}

export function splitImage(image: string): ImageParts {
  let rest = image;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  // The first path component names a registry when it looks like a host (Docker's rule).
  let registry = '';
  const slash = rest.indexOf('/');
  if (slash > 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      registry = first;
      rest = rest.slice(slash + 1);
    }
  }
  return { registry, repository: rest, tag, digest };
}

/** The image string the chart's image helper renders from the parts (inverse of splitImage). */
export function joinImage(p: ImageParts): string {
  return `${p.registry ? `${p.registry}/` : ''}${p.repository}${p.tag ? `:${p.tag}` : ''}${p.digest ? `@${p.digest}` : ''}`;
}

/** A container whose image and resources are values. */
export interface ContainerKnob {
  /** Index in spec.template.spec.containers or initContainers. */
  list: 'containers' | 'initContainers';
  index: number;
  name: string;
  /** Template expression of its values object (`$w.` or `(index $w.containers "x")`). */
  ref: string;
  image: boolean;
  pullPolicyPresent: boolean;
  resourcesPresent: boolean;
  /** resources written as `{}`: kept even when empty. */
  resourcesEmptyWritten: boolean;
  securityContextPresent: boolean;
  envPresent: boolean;
}

/** A preStop hook whose delay is the `preStop.delaySeconds` value. */
export interface PreStopTarget {
  index: number;
  kind: PreStopKind;
  /** Only `lifecycle.preStop` in the container's lifecycle: the whole lifecycle goes when the delay is 0. */
  lifecycleOnlyPreStop: boolean;
  /** exec: the command, and where the number sits in it. */
  command?: string[];
  token?: { index: number; before: string; after: string };
}

export interface MeshDerivation {
  /** Linkerd `proxy-wait-before-exit-seconds` = preStop + max(drain, 1) (constructs/mesh.ts). */
  linkerdWait: boolean;
  /** Linkerd `shutdown-grace-period` = max(grace - before - margin, 1) seconds. */
  linkerdShutdownGrace?: { native: boolean };
  /** Istio proxy config `terminationDrainDuration: Ns` with N = preStop + max(drain, 1). */
  istioDrain?: { before: string; after: string };
  /**
   * The pod template asks the mesh injector for a native-sidecar proxy (annotation "true"): below
   * Kubernetes 1.29 the chart asks for a classic proxy instead, with the classic drain settings the
   * constructs write (Linkerd: proxy-wait-before-exit-seconds; Istio: terminationDrainDuration, into
   * the proxy config text at `before`/`after`).
   */
  nativeFallback?: { linkerd?: { key: string }; istio?: { before: string; after: string; original?: string } };
}

export interface PdbKnob {
  /** The existing PDB, or undefined when the chart adds an optional one (disabled by default). */
  obj?: KObject;
  /** Name of the generated PDB. */
  generatedName?: string;
  minAvailablePresent: boolean;
  maxUnavailablePresent: boolean;
  policyPresent: boolean;
}

/**
 * A native sidecar of a workload, and how the chart runs it below Kubernetes 1.29 (no native
 * sidecars there): a classic container with drain settings (classic-sidecar.ts).
 */
export interface NativeSidecarPlan {
  /** Index in spec.template.spec.initContainers. */
  index: number;
  name: string;
  /** Template expression of its values object (`(index $w.containers "x")`). */
  ref: string;
  /** `workloads.<key>.containers.<x>`, for messages. */
  valuesPath: string;
  /** The program's own drain flags, when known and its args can be rewritten. */
  flags?: { program: DrainFlagProgram; kept: string[]; extraAcceptSeconds: number; drainSeconds: number };
  /** Values the chart accepts for `classicFallback`, and the default. */
  modes: ClassicFallback[];
  defaultMode: ClassicFallback;
  /** Why the default, for README and values comments. */
  why: string;
  /** Seconds it needs after the app (kubegrace.dev/sidecar-drain-seconds, default 5). */
  drain: number;
}

export interface WorkloadPlan {
  key: string;
  kind: KnobKind;
  name: string;
  namespace?: string;
  what: string;
  obj: KObject;
  w: Workload;
  values: ValueGroup;
  replicas?: { present: boolean };
  hpa?: { obj: KObject; minPresent: boolean };
  minReadyPresent: boolean;
  progressDeadlinePresent?: boolean;
  strategyPresent: boolean;
  stsMaxUnavailable: boolean;
  gracePresent: boolean;
  containers: ContainerKnob[];
  /** Native sidecars (init containers with restartPolicy: Always), with their classic fallback below 1.29. */
  nativeSidecars: NativeSidecarPlan[];
  preStop?: { seconds: number; targets: PreStopTarget[]; describe: string };
  /** Known delays of main-container hooks that are not templated. */
  fixedPreStops: number[];
  /** drainSeconds value: where its annotation is (workload or pod-template metadata), or absent. */
  drain: { knob: boolean; where?: 'metadata' | 'template'; declared: boolean; constant: number };
  /** Native-sidecar addends of the budget (fixed by the manifests). */
  addend: number;
  addendParts: string[];
  pdb?: PdbKnob;
  spread?: { uniform: boolean };
  mesh: MeshDerivation;
  /** Defaults of the budget, for messages. */
  defaults: { preStop: number; drain: number; grace: number };
  /** A Service in the manifests sends traffic to the pods (rollout guards apply). */
  served: boolean;
  /** A claim that forbids overlapping pods (RWO/RWOP or unknown): the rollout outage is inherent. */
  exclusiveClaim: boolean;
  /**
   * Behind AWS LB controller IP targets without a gate in the pod template, in a namespace the manifests
   * label for gate injection: without the Namespace object, the chart checks the live namespace instead.
   */
  readinessGateNamespace: boolean;
  /** Pod-level values written (pod annotations/labels, scheduling, service account, security context). */
  pod: { annotationsPresent: boolean; securityContextPresent: boolean };
}

export interface ChartAnalysis {
  objects: KObject[];
  graph: ObjectGraph;
  workloads: WorkloadPlan[];
  /** Workload plan by object uid. */
  byObject: Map<string, WorkloadPlan>;
  /** PDB uid -> plan whose knob it is. */
  pdbOwner: Map<string, WorkloadPlan>;
  /** HPA uid -> plan. */
  hpaOwner: Map<string, WorkloadPlan>;
  /** Service uid -> plan whose values derive its LB deregistration delay. */
  lbService: Map<string, WorkloadPlan>;
  values: ValueNode[];
  /** Minimum Kubernetes version the objects need, and the features that set it. */
  minKube: { version: KubeVersion; features: string[] };
  /** Version-gated features the templates choose by .Capabilities.KubeVersion (so they do not raise minKube). */
  adaptive: string[];
  /** The namespace that becomes the release namespace (the most used one), if any. */
  primaryNamespace?: string;
  /** Object uid -> the name part after the release's fullname (owned PDBs and HPAs take their workload's). */
  shortNames: Map<string, string>;
}

/** The values key of a name: camelCase, as Helm's best practices ask. */
export function camelKey(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (!parts.length) return 'x';
  const s = parts.map((p, i) => (i === 0 ? p.charAt(0).toLowerCase() + p.slice(1) : p.charAt(0).toUpperCase() + p.slice(1))).join('');
  return /^[0-9]/.test(s) ? `w${s}` : s;
}

/** cdk8s names end in `-<8 hex digits>`, a hash of the construct path. */
const CDK8S_HASH = /^(.+?)-[0-9a-f]{8}$/;

/**
 * The name a workload's values key comes from: metadata.name, without the construct-path hash cdk8s
 * appends when the construct sets no name (a key must not change when the construct moves).
 */
export function keyName(o: KObject): string {
  const m = CDK8S_HASH.exec(o.name);
  const cdk8s = Object.keys(o.raw.metadata && isObject(o.raw.metadata) && isObject(o.raw.metadata.labels) ? o.raw.metadata.labels : {}).some((l) => l.startsWith('cdk8s.io/')) ||
    JSON.stringify(get(o.raw, 'spec', 'selector') ?? {}).includes('cdk8s.io/metadata.addr');
  return m && cdk8s ? m[1] : o.name;
}

function describeObj(o: KObject): string {
  const ns = get(o.raw, 'metadata', 'namespace');
  return `${o.kind} ${typeof ns === 'string' && ns ? `${ns}/` : ''}${o.name}`;
}

/** One manifest file: its name (as the user gave it, for messages) and its text. */
export interface ManifestSource {
  file: string;
  text: string;
}

/** The file name of manifests given as one text (no file): messages then say "manifests line N". */
export const NO_FILE = '<manifests>';

/** Where an object or a document starts, for messages: `file:line:column`, or `manifests line N, column C`. */
export function positionText(file: string, line: number, column: number): string {
  return file === NO_FILE ? `manifests line ${line}, column ${column}` : `${file}:${line}:${column}`;
}

/** Where an object starts, for messages. */
export function whereOf(o: KObject): string {
  return positionText(o.file, o.line, o.column);
}

/** Parses manifests; refuses what cannot become a chart (bad YAML, documents that are no objects). */
export function readObjects(manifests: string | ManifestSource[]): KObject[] {
  const sources = typeof manifests === 'string' ? [{ file: NO_FILE, text: manifests }] : manifests;
  const objects: KObject[] = [];
  for (const src of sources) {
    const parsed = parseText(src.file, src.text);
    if (parsed.errors.length) {
      const e = parsed.errors[0];
      throw new Error(`${positionText(src.file, e.line, e.column)}: ${e.message}`);
    }
    parsed.docs.forEach((doc, i) => {
      // An empty document (`---` right after `---`, or only comments) holds nothing, as for the linter.
      if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return;
      if (!parsed.objects.some((o) => o.docIndex === i)) {
        const pos = parsed.lineCounter.linePos(doc.contents.range?.[0] ?? 0);
        const at = src.file === NO_FILE ? `manifests line ${pos.line}` : `${src.file}:${pos.line}:${pos.col}`;
        throw new Error(`${at}: document ${i + 1} is not a Kubernetes object (no apiVersion and kind); a chart holds Kubernetes objects only: remove it`);
      }
    });
    for (const o of parsed.objects) {
      const at = src.file === NO_FILE ? `manifests line ${o.line}` : whereOf(o);
      if (typeof get(o.raw, 'metadata', 'name') !== 'string') {
        throw new Error(`${at}: ${o.kind} without metadata.name; generate charts from synthesized manifests (generateName is not supported)`);
      }
      // Names reach the templates through toJson, whose output helm's YAML reader refuses with these characters.
      for (const field of ['name', 'namespace'] as const) {
        const v = get(o.raw, 'metadata', field);
        const bad = typeof v === 'string' ? /[\x7f-\x9f]/.exec(v) : null;
        if (bad) throw new Error(`${at}: ${o.kind} metadata.${field} holds the control character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, which Kubernetes refuses in a ${field} and helm cannot render: fix the manifests`);
      }
      objects.push(o);
    }
  }
  return objects;
}

const NUMBER_TOKEN = /^(\d+)(s?)$/;

/** Where the delay sits in an exec preStop, so the template can write another number there. */
function locateDelayToken(command: string[], seconds: number): { index: number; before: string; after: string } | undefined {
  const candidates: { index: number; before: string; after: string }[] = [];
  command.forEach((el, i) => {
    const m = NUMBER_TOKEN.exec(el);
    if (m && Number(m[1]) === seconds) candidates.push({ index: i, before: '', after: m[2] });
    // sh -c "sleep N" / "sleep N; …"
    const sh = /^(\s*(?:exec\s+)?(?:\/usr)?(?:\/bin\/)?sleep\s+)(\d+)(s?)((?:\s*;?\s*$)|(?:\s*(?:;|&&)[\s\S]*))$/.exec(el);
    if (sh && Number(sh[2]) === seconds && i > 0) candidates.push({ index: i, before: sh[1], after: `${sh[3]}${sh[4]}` });
  });
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** The exec command with the delay replaced by `n` (what the template renders). */
export function commandWith(command: string[], token: { index: number; before: string; after: string }, n: number): string[] {
  return command.map((el, i) => (i === token.index ? `${token.before}${n}${token.after}` : el));
}

const TEMPLATABLE: PreStopKind[] = ['sleep', 'exec-sleep', 'exec-sleep-then', 'exec-wait'];

/** A preStop hook the chart can re-render with another delay, verified by re-classifying it. */
function preStopTarget(c: ContainerView): { target: PreStopTarget; seconds: number } | undefined {
  const handler = get(c.raw, 'lifecycle', 'preStop');
  const d = classifyPreStop(handler);
  if (!TEMPLATABLE.includes(d.kind) || d.seconds === undefined || !Number.isInteger(d.seconds) || d.seconds <= 0) return undefined;
  const lifecycle = c.raw.lifecycle as JsonObject;
  const only = Object.keys(lifecycle).length === 1;
  const index = Number(c.pointer.split('/').pop());
  if (d.kind === 'sleep') {
    const sleep = get(handler, 'sleep');
    if (!isObject(sleep) || Object.keys(sleep).length !== 1 || !isObject(handler) || Object.keys(handler).length !== 1) return undefined;
    return { target: { index, kind: d.kind, lifecycleOnlyPreStop: only }, seconds: d.seconds };
  }
  const command = d.command!;
  if (!isObject(handler) || Object.keys(handler).length !== 1 || Object.keys(handler.exec as JsonObject).length !== 1) return undefined;
  const token = locateDelayToken(command, d.seconds);
  if (!token) return undefined;
  // The template must produce a hook the linter reads the same way, for any delay.
  for (const n of [d.seconds, d.seconds + 7]) {
    const again = classifyPreStop({ exec: { command: commandWith(command, token, n) } });
    if (again.kind !== d.kind || again.seconds !== n) return undefined;
  }
  return { target: { index, kind: d.kind, lifecycleOnlyPreStop: only, command, token }, seconds: d.seconds };
}

function describeHook(t: PreStopTarget): string {
  if (t.kind === 'sleep') return 'the preStop sleep action (lifecycle.preStop.sleep.seconds)';
  const shown = commandWith(t.command!, t.token!, 0).map((x, i) => (i === t.token!.index ? `${t.token!.before}<N>${t.token!.after}` : x));
  return `the preStop exec ${JSON.stringify(shown)}`;
}

const DRAIN_INT = /^\d+$/;

/** True when two JSON values are equal (key order ignored). */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}

/** Spread constraints that differ only in topologyKey: then maxSkew, whenUnsatisfiable and keys are values. */
function uniformSpread(list: Json | undefined): boolean {
  if (!Array.isArray(list) || list.length === 0 || !list.every(isObject)) return false;
  const objs = list as JsonObject[];
  const strip = (o: JsonObject) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'topologyKey')) as JsonObject;
  const keys = objs.map((o) => o.topologyKey);
  if (!keys.every((k) => typeof k === 'string') || new Set(keys).size !== keys.length) return false;
  if (typeof objs[0].maxSkew !== 'number' || !['ScheduleAnyway', 'DoNotSchedule'].includes(String(objs[0].whenUnsatisfiable))) return false;
  return objs.every((o) => sameJson(strip(o), strip(objs[0])));
}

/** The features whose version gates the objects need (constructs/version.ts FEATURES). */
function usedFeatures(objects: KObject[]): FeatureName[] {
  const used = new Set<FeatureName>();
  const visitPodSpec = (ps: Json | undefined) => {
    if (!isObject(ps)) return;
    for (const list of ['containers', 'initContainers']) {
      const cs = ps[list];
      if (!Array.isArray(cs)) continue;
      for (const c of cs) {
        if (!isObject(c)) continue;
        if (list === 'initContainers' && c.restartPolicy === 'Always') used.add('nativeSidecars');
        for (const hook of ['preStop', 'postStart']) if (isObject(get(c, 'lifecycle', hook, 'sleep'))) used.add('sleepAction');
      }
    }
    const tsc = ps.topologySpreadConstraints;
    if (Array.isArray(tsc) && tsc.some((t) => isObject(t) && t.matchLabelKeys !== undefined)) used.add('matchLabelKeys');
  };
  for (const o of objects) {
    if (runsNativeSidecars(o)) used.add('nativeSidecars');
    if (KNOB_KINDS.includes(o.kind)) visitPodSpec(get(o.raw, 'spec', 'template', 'spec'));
    else if (o.kind === 'Pod') visitPodSpec(get(o.raw, 'spec'));
    else if (o.kind === 'Job' || o.kind === 'ReplicaSet') visitPodSpec(get(o.raw, 'spec', 'template', 'spec'));
    else if (o.kind === 'CronJob') visitPodSpec(get(o.raw, 'spec', 'jobTemplate', 'spec', 'template', 'spec'));
    if (o.kind === 'PodDisruptionBudget' && get(o.raw, 'spec', 'unhealthyPodEvictionPolicy') !== undefined) used.add('unhealthyPodEvictionPolicy');
    if (o.kind === 'DaemonSet' && get(o.raw, 'spec', 'updateStrategy', 'rollingUpdate', 'maxSurge') !== undefined) used.add('daemonSetMaxSurge');
    if (o.kind === 'StatefulSet') used.add('statefulSetMinReady'); // minReadySeconds is a value of every StatefulSet
  }
  return [...used].sort();
}

/** Features the templates render by `.Capabilities.KubeVersion` (templates.ts): they do not raise the chart's kubeVersion. */
export const ADAPTIVE_FEATURES: readonly FeatureName[] = ['sleepAction', 'matchLabelKeys', 'unhealthyPodEvictionPolicy'];

/**
 * Native sidecars are adaptive too (a classic container below 1.29) when every one of them is in a
 * Deployment, StatefulSet or DaemonSet, whose values size the fallback's drain. In a Job or CronJob a
 * classic sidecar keeps the pod from completing, and a bare Pod or ReplicaSet has no values: those
 * keep native sidecars, so the chart needs 1.29.
 */
export function adaptiveFeatures(objects: KObject[]): FeatureName[] {
  const fixed = objects.some((o) => !KNOB_KINDS.includes(o.kind) && runsNativeSidecars(o));
  return fixed ? [...ADAPTIVE_FEATURES] : [...ADAPTIVE_FEATURES, 'nativeSidecars'];
}

/** The pod template of an object (a Pod's own spec and metadata), if it has one. */
function podTemplateOf(o: KObject): { meta: Json | undefined; spec: Json | undefined } | undefined {
  if (o.kind === 'Pod') return { meta: get(o.raw, 'metadata'), spec: get(o.raw, 'spec') };
  if (o.kind === 'CronJob') return { meta: get(o.raw, 'spec', 'jobTemplate', 'spec', 'template', 'metadata'), spec: get(o.raw, 'spec', 'jobTemplate', 'spec', 'template', 'spec') };
  if ([...KNOB_KINDS, 'Job', 'ReplicaSet'].includes(o.kind)) return { meta: get(o.raw, 'spec', 'template', 'metadata'), spec: get(o.raw, 'spec', 'template', 'spec') };
  return undefined;
}

/** Native sidecars in the pod template, or a mesh proxy the injector is asked to add as one. */
function runsNativeSidecars(o: KObject): boolean {
  const t = podTemplateOf(o);
  if (!t) return false;
  const inits = get(t.spec, 'initContainers');
  if (Array.isArray(inits) && inits.some((c) => isObject(c) && c.restartPolicy === 'Always')) return true;
  const ann = get(t.meta, 'annotations');
  return isObject(ann) && (linkerdNativeKey(ann) !== undefined || ann[ISTIO.nativeSidecar] === 'true');
}

function minimumKube(objects: KObject[], adaptive: readonly FeatureName[]): { version: KubeVersion; features: string[] } {
  const [bm, bn] = MIN_SUPPORTED_VERSION.split('.').map(Number);
  let best: [number, number] = [bm, bn];
  const features: string[] = [];
  for (const f of usedFeatures(objects)) {
    if (adaptive.includes(f)) continue;
    const since = FEATURES[f].since;
    features.push(`${FEATURES[f].name} (>= ${since.join('.')})`);
    if (since[0] > best[0] || (since[0] === best[0] && since[1] > best[1])) best = [since[0], since[1]];
  }
  if (objects.some((o) => o.kind === 'HorizontalPodAutoscaler' && o.apiVersion === 'autoscaling/v2') && (best[0] === 1 && best[1] < 23)) best = [1, 23];
  return { version: KubeVersion.parse(`${best[0]}.${best[1]}`), features };
}

function containerKnobs(w: Workload, used: Set<string>): ContainerKnob[] {
  const all: { c: ContainerView; list: 'containers' | 'initContainers'; index: number }[] = [];
  const add = (list: 'containers' | 'initContainers') => {
    const cs = w.podSpec[list];
    if (!Array.isArray(cs)) return;
    cs.forEach((c, index) => {
      if (!isObject(c)) return;
      const view = (list === 'containers' ? w.containers : [...w.sidecars, ...w.initContainers]).find((v) => v.raw === c);
      if (view) all.push({ c: view, list, index });
    });
  };
  add('containers');
  add('initContainers');
  return all.map(({ c, list, index }, i) => {
    let ref = '$w';
    if (i > 0) {
      let k = camelKey(c.name);
      while (used.has(k)) k = `${k}X`;
      used.add(k);
      ref = `(index $w.containers ${JSON.stringify(k)})`;
    }
    const res = c.raw.resources;
    return {
      list,
      index,
      name: c.name,
      ref,
      // A value only when the parts give back the same string (`repo@` would lose its `@`): else kept as written.
      // helm cannot check a values string with DEL or a C1 control against the schema (its YAML writer refuses them).
      image: typeof c.raw.image === 'string' && c.raw.image !== '' && joinImage(splitImage(c.raw.image)) === c.raw.image && !/[\x7f-\x9f]/.test(c.raw.image),
      pullPolicyPresent: typeof c.raw.imagePullPolicy === 'string',
      resourcesPresent: isObject(res),
      resourcesEmptyWritten: isObject(res) && Object.keys(res).length === 0,
      securityContextPresent: isObject(c.raw.securityContext),
      envPresent: Array.isArray(c.raw.env),
    };
  });
}

/** Whether a guard for the rollout outage rules (rollout-full-outage, recreate-strategy) applies. */
export function rolloutGuarded(plan: WorkloadPlan): boolean {
  return plan.kind === 'Deployment' && plan.served && !plan.exclusiveClaim;
}

/** Acknowledgements: each guard that mirrors a lint warning or error can be overridden, by name. */
function acknowledgeGroup(plan: WorkloadPlan): ValueGroup {
  const b = { type: 'boolean' };
  const leaves: ValueNode[] = [leaf('gracePeriodBudget', 'Accept a grace period that does not cover the preStop delay + drain (in-flight work killed at the deadline).', false, b)];
  if (plan.preStop && plan.served) leaves.push(leaf('preStopMissing', 'Accept preStop.delaySeconds 0 on a served workload (SIGTERM while clients are still routed to the pod).', false, b));
  if (rolloutGuarded(plan)) leaves.push(leaf('rolloutOutage', 'Accept a rollout that stops every pod before a replacement is ready (Recreate, or maxUnavailable reaching all replicas without surge).', false, b));
  if (plan.pdb) leaves.push(leaf('pdbBlocksEviction', 'Accept a PodDisruptionBudget that allows no eviction (kubectl drain would never finish).', false, b));
  if (plan.mesh.linkerdWait) leaves.push(leaf('meshDrain', 'Accept a Linkerd proxy wait at or above the grace period.', false, b));
  if (plan.readinessGateNamespace) leaves.push(leaf('namespaceWithoutReadinessGate', 'Install into a namespace that lacks the AWS LB controller readiness-gate label (the guard checks the live namespace with lookup when namespace.create is false).', false, b));
  return group('acknowledge', 'Set one to true to install despite the guard that names it; the workload then carries kubegrace.dev/ignore for that rule, with the reason.', leaves);
}

function stringMapSchema(): JsonObject {
  return { type: 'object', additionalProperties: { type: 'string' } };
}

function pullSecretsSchema(): JsonObject {
  return { type: 'array', items: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }] } };
}

function tscList(podSpec: JsonObject): Json[] {
  return Array.isArray(podSpec.topologySpreadConstraints) ? podSpec.topologySpreadConstraints : [];
}

/** The values key of a container knob (`containers.<key>`), from its ref. */
export function containerValuesKey(c: ContainerKnob): string | undefined {
  const m = /^\(index \$w\.containers "(.*)"\)$/.exec(c.ref);
  return m ? m[1] : undefined;
}

/**
 * Values keys of the workloads: the camelCase name (without the cdk8s hash); workloads that would share
 * one all add their kind, then their namespace, then their full metadata.name, so a key depends on the
 * workloads alone, never on the order of the manifests. A numeric suffix only as the last resort.
 */
export function workloadKeys(ws: Workload[]): Map<Workload, string> {
  const forms = (w: Workload): string[] => {
    const ns = w.obj.namespace ?? '';
    return [camelKey(keyName(w.obj)), camelKey(`${keyName(w.obj)}-${w.kind}`), camelKey(`${keyName(w.obj)}-${w.kind}-${ns}`), camelKey(`${w.obj.name}-${w.kind}-${ns}`)];
  };
  const all = new Map(ws.map((w) => [w, forms(w)]));
  const level = new Map(ws.map((w) => [w, 0]));
  for (;;) {
    const byKey = new Map<string, Workload[]>();
    for (const w of ws) {
      const k = all.get(w)![level.get(w)!];
      byKey.set(k, [...(byKey.get(k) ?? []), w]);
    }
    let bumped = false;
    for (const group of byKey.values()) {
      if (group.length < 2) continue;
      for (const w of group) {
        if (level.get(w)! < 3) {
          level.set(w, level.get(w)! + 1);
          bumped = true;
        }
      }
    }
    if (!bumped) break;
  }
  const keys = new Map<Workload, string>();
  const taken = new Set<string>();
  for (const w of ws) {
    const root = all.get(w)![level.get(w)!];
    let k = root;
    for (let n = 2; taken.has(k); n++) k = `${root}${n}`;
    taken.add(k);
    keys.set(w, k);
  }
  return keys;
}

/** Builds the plans and values of a chart from parsed objects. */
export function analyze(objects: KObject[]): ChartAnalysis {
  const graph = new ObjectGraph(objects);
  const byObject = new Map<string, WorkloadPlan>();
  const pdbOwner = new Map<string, WorkloadPlan>();
  const hpaOwner = new Map<string, WorkloadPlan>();
  const lbService = new Map<string, WorkloadPlan>();
  const adaptiveSet = adaptiveFeatures(objects);
  const minKube = minimumKube(objects, adaptiveSet);
  const older: Partial<Record<FeatureName, string>> = { sleepAction: 'exec [sleep, N]', nativeSidecars: 'a regular container kept up through the app\'s preStop + drain: README, "Native sidecars below Kubernetes 1.29"' };
  const adaptive = usedFeatures(objects)
    .filter((f) => adaptiveSet.includes(f))
    .map((f) => `${FEATURES[f].name} (>= ${FEATURES[f].since.join('.')}, older clusters get ${older[f] ?? 'no such field'})`);

  const candidates = graph.workloads.filter((w) => KNOB_KINDS.includes(w.kind));
  const keys = workloadKeys(candidates);

  const workloads: WorkloadPlan[] = [];
  // Names of PDBs, across namespaces: a PDB the chart adds must not share a rendered name with another one.
  const pdbNames = new Set(graph.pdbs.map((p) => p.obj.name));
  for (const w of candidates) {
    const plan = planWorkload(w, keys.get(w)!, graph, pdbNames);
    workloads.push(plan);
    byObject.set(w.obj.uid, plan);
    if (plan.pdb?.obj) pdbOwner.set(plan.pdb.obj.uid, plan);
    if (plan.hpa) hpaOwner.set(plan.hpa.obj.uid, plan);
  }
  // Services whose LB deregistration delay the constructs derived from preStop + drain.
  for (const s of graph.services) {
    const ws = graph.workloadsFor(s);
    if (ws.length !== 1) continue;
    const plan = byObject.get(ws[0].obj.uid);
    if (!plan) continue;
    const expected = recommendedDeregistration(plan);
    if (deregistrationAnnotations(s.annotations).some(([, v]) => deregistrationValue(v) === expected)) lbService.set(s.obj.uid, plan);
  }

  const primaryNamespace = mostUsedNamespace(objects);
  for (const plan of workloads) {
    const ns = graph.namespace(plan.w.obj.namespace);
    plan.readinessGateNamespace =
      plan.w.obj.namespace === primaryNamespace && ns !== undefined && isObject(get(ns.raw, 'metadata', 'labels')) && get(ns.raw, 'metadata', 'labels', AWS_LBC.readinessGateInjectLabel) === 'enabled' && awsIpFronted(graph, plan.w);
    const ack = acknowledgeGroup(plan);
    if (ack.children.length) plan.values.children.push(ack);
  }
  const dns = { type: 'string', maxLength: 63, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$' };
  const values: ValueNode[] = [
    leaf('nameOverride', 'Replaces the chart name in the object names and the app.kubernetes.io/name label.', '', dns),
    leaf('fullnameOverride', 'Replaces the release-and-chart prefix of every object name (names are `<fullname>-<object>`; an object named like the chart is `<fullname>`; prometheus-operator resources keep their names, which label their pods).', '', dns),
    group('namespace', 'The release namespace (`helm install --namespace`): every namespaced object goes there.', [
      leaf(
        'create',
        `Also create the Namespace object${primaryNamespace ? ` (with the labels the manifests gave namespace "${primaryNamespace}")` : ''}. Only for \`helm template | kubectl apply\` and GitOps tools: \`helm install\` needs the namespace to exist first (or \`--create-namespace\`).`,
        false,
        { type: 'boolean' },
      ),
    ]),
    leaf('commonLabels', 'Labels added to every object (metadata.labels; never to selectors). An object\'s own labels win.', {}, { type: 'object', additionalProperties: { type: 'string' } }),
    {
      ...group('global', 'Values shared with parent and sibling charts.', [
        leaf('imageRegistry', 'Registry that replaces the registry of every image (e.g. a mirror); "" keeps each image\'s own.', '', { type: 'string' }),
        leaf('imagePullSecrets', 'Names of Secrets for pulling images, added to every workload.', [], pullSecretsSchema()),
      ]),
      closed: false,
    },
    leaf('imagePullSecrets', 'Names of Secrets for pulling images, for every workload (with global.imagePullSecrets and each workload\'s own).', [], pullSecretsSchema()),
    leaf('podAnnotations', 'Annotations for the pods of every workload (a workload\'s own podAnnotations win).', {}, stringMapSchema()),
    leaf('podLabels', 'Labels for the pods of every workload (never in selectors; a workload\'s own podLabels win).', {}, stringMapSchema()),
    leaf('nodeSelector', 'nodeSelector of every workload that sets none of its own.', {}, stringMapSchema()),
    leaf('tolerations', 'Tolerations of every workload that sets none of its own.', [], { type: 'array', items: { type: 'object' } }),
    leaf('affinity', 'Affinity of every workload that sets none of its own.', {}, { type: 'object' }),
    leaf('priorityClassName', 'PriorityClass of every workload that sets none of its own.', '', { type: 'string' }),
    group('workloads', 'Rollout and termination settings per workload, keyed by the workload name in camelCase (metadata.name without the cdk8s hash).', workloads.map((p) => p.values)),
  ];
  const shortNames = new Map<string, string>();
  for (const o of objects) shortNames.set(o.uid, o.name);
  for (const [uid, plan] of [...pdbOwner.entries(), ...hpaOwner.entries()]) shortNames.set(uid, plan.name);
  // Short names must stay unique per kind, across namespaces too (a release puts every namespaced object
  // into its one namespace); where they clash, the original names stay (refusals.ts refuses what still clashes).
  const seen = new Map<string, string[]>();
  for (const o of objects) {
    const k = `${o.kind}/${shortNames.get(o.uid)}`;
    seen.set(k, [...(seen.get(k) ?? []), o.uid]);
  }
  for (const uids of seen.values()) if (uids.length > 1) for (const uid of uids) shortNames.set(uid, objects.find((o) => o.uid === uid)!.name);
  return { objects, graph, workloads, byObject, pdbOwner, hpaOwner, lbService, values, minKube, adaptive, primaryNamespace, shortNames };
}

/** The namespace most namespaced objects name (ties: the first seen). */
function mostUsedNamespace(objects: KObject[]): string | undefined {
  const count = new Map<string, number>();
  for (const o of objects) {
    const ns = get(o.raw, 'metadata', 'namespace');
    if (typeof ns === 'string' && ns && !isClusterScoped(o.kind)) count.set(ns, (count.get(ns) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [ns, n] of count) if (best === undefined || n > count.get(best)!) best = ns;
  if (best === undefined) {
    const nsObj = objects.find((o) => o.kind === 'Namespace');
    return nsObj?.name;
  }
  return best;
}

/** Whether AWS LB controller IP targets front the workload and its pod template has no gate of its own. */
function awsIpFronted(graph: ObjectGraph, w: Workload): boolean {
  if (servedStateOf(graph, w) === 'unserved') return false;
  const gates = w.podSpec.readinessGates;
  if (Array.isArray(gates) && gates.some((g) => typeof get(g, 'conditionType') === 'string' && String(get(g, 'conditionType')).startsWith(AWS_LBC.readinessGatePrefix))) return false;
  return lbFronts(graph, w).some((f) => AWS_IP_KINDS.has(f.kind));
}

/** `deregistration_delay.timeout_seconds=N` annotations of a Service (AWS LB controller). */
export const DEREGISTRATION = /(^|,)\s*deregistration_delay\.timeout_seconds=(\d+)/;
const TG_ATTRIBUTES = ['service.beta.kubernetes.io/aws-load-balancer-target-group-attributes', 'alb.ingress.kubernetes.io/target-group-attributes'];

export function deregistrationAnnotations(annotations: Record<string, string>): [string, string][] {
  return TG_ATTRIBUTES.filter((k) => annotations[k] !== undefined).map((k) => [k, annotations[k]]);
}

function deregistrationValue(v: string): number | undefined {
  const m = DEREGISTRATION.exec(v);
  return m ? Number(m[2]) : undefined;
}

/** What the constructs write as the deregistration delay: recommendedGrace(preStop, drain) (constructs/deployment.ts). */
function recommendedDeregistration(plan: WorkloadPlan): number {
  return recommendedGrace(plan.defaults.preStop, plan.defaults.drain);
}

/** The first Linkerd native-sidecar switch set to "true" in pod-template annotations, if any. */
function linkerdNativeKey(ann: JsonObject): string | undefined {
  return LINKERD.nativeSidecar.find((k) => ann[k] === 'true');
}

/**
 * Native-mode mesh proxies (pod-template annotations) the chart turns classic below 1.29, and where
 * the classic drain goes. Istio's proxy config is rewritten only in its block-YAML form: a
 * `terminationDrainDuration` already derived (istioDrain) or written is replaced below 1.29, else the
 * key is added first; a JSON-form config is left as written (no fallback for it).
 */
function meshNativeFallback(ann: JsonObject, mesh: MeshDerivation): MeshDerivation['nativeFallback'] {
  const out: NonNullable<MeshDerivation['nativeFallback']> = {};
  const lk = linkerdNativeKey(ann);
  if (lk && ann[LINKERD.waitBeforeExit] === undefined) out.linkerd = { key: lk };
  if (ann[ISTIO.nativeSidecar] === 'true' && !mesh.istioDrain) {
    const pc = ann[ISTIO.proxyConfig];
    if (pc === undefined) out.istio = { before: 'terminationDrainDuration: ', after: 's\n' };
    else if (typeof pc === 'string' && !/^\s*[{[]/.test(pc)) {
      const m = /^([\s\S]*?terminationDrainDuration:\s*)(\d+(?:\.\d+)?[a-zµ]*)([\s\S]*)$/.exec(pc);
      out.istio = m ? { before: m[1], after: `s${m[3]}`, original: pc } : { before: 'terminationDrainDuration: ', after: `s\n${pc}`, original: pc };
    }
  }
  return out.linkerd || out.istio ? out : undefined;
}

/** Durations as the flag values the chart writes (Go durations, whole seconds). */
function secondsText(n: number): string {
  return `${Math.ceil(n)}s`;
}

/** The native sidecars of a workload and the classic fallback each gets below Kubernetes 1.29. */
function nativeSidecarPlans(w: Workload, key: string, knobs: ContainerKnob[]): NativeSidecarPlan[] {
  const inits = w.podSpec.initContainers;
  if (!Array.isArray(inits)) return [];
  const hint = parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]);
  const out: NativeSidecarPlan[] = [];
  for (const knob of knobs) {
    if (knob.list !== 'initContainers') continue;
    const raw = inits[knob.index];
    const view = w.sidecars.find((v) => v.raw === raw);
    if (!view || !isObject(raw)) continue;
    const drain = sidecarDrainSeconds(hint, view);
    const base = { index: knob.index, name: knob.name, ref: knob.ref, valuesPath: `workloads.${key}.containers.${containerValuesKey(knob)}`, drain };
    const image = typeof raw.image === 'string' ? raw.image : '';
    const match = image ? drainFlagProgram(splitImage(image)) : undefined;
    const args = raw.args;
    const stringArgs = Array.isArray(args) && args.every((a) => typeof a === 'string') ? (args as string[]) : args === undefined ? [] : undefined;
    if (match && stringArgs) {
      const split = splitDrainArgs(stringArgs, match.program);
      const p = match.program;
      if (!split.unreadable) {
        const flags = { program: p, kept: split.kept, extraAcceptSeconds: split.acceptSeconds ?? 0, drainSeconds: split.drainSeconds ?? drain };
        const flagWords = `${p.acceptFlag} (keep accepting connections through the app's preStop + drain) and ${p.drainFlag} (then wait up to ${secondsText(flags.drainSeconds)} for open connections)`;
        if (match.versionOk) {
          out.push({ ...base, flags, modes: ['drainFlags', 'execSleep', 'stopAtOnce', 'refuse'], defaultMode: 'drainFlags', why: `${p.title} ${match.version!.join('.')} (>= ${p.minVersion.join('.')}) has ${flagWords}` });
        } else {
          const tag = splitImage(image).tag;
          const why = match.version
            ? `${p.title} ${match.version.join('.')} is older than ${p.minVersion.join('.')}, the first release with ${p.acceptFlag}`
            : `the image tag ${tag ? `"${tag}"` : '(none)'} does not say whether this ${p.title} is ${p.minVersion.join('.')} or newer (the first release with ${p.acceptFlag}); set drainFlags if it is`;
          out.push({ ...base, flags, modes: ['drainFlags', 'execSleep', 'stopAtOnce', 'refuse'], defaultMode: 'refuse', why });
        }
        continue;
      }
    }
    out.push({
      ...base,
      modes: ['execSleep', 'stopAtOnce', 'refuse'],
      defaultMode: 'refuse',
      why: `no drain setting is known for ${image ? `image ${image}` : 'this container'}, and a preStop sleep needs a sleep binary in the image, which the manifests do not tell`,
    });
  }
  return out;
}

function classicFallbackLeaf(n: NativeSidecarPlan): ValueNode {
  const words: Record<ClassicFallback, string> = {
    drainFlags: n.flags ? `drainFlags (${n.flags.program.acceptFlag} = the app's preStop + drain, ${n.flags.program.drainFlag} ${secondsText(n.flags.drainSeconds)})` : 'drainFlags',
    execSleep: 'execSleep (a preStop exec [sleep, N], N = the app\'s preStop + drain: only for images with a sleep binary)',
    stopAtOnce: 'stopAtOnce (no drain: it may stop before the app has drained)',
    refuse: 'refuse (the chart fails to render below 1.29, naming this value)',
  };
  return leaf(
    'classicFallback',
    `How "${n.name}" runs on Kubernetes < 1.29, which has no native sidecars: as a regular container that gets SIGTERM with the app, kept up by ${n.modes.map((m) => words[m]).join(', or ')}. Default ${n.defaultMode}: ${n.why}. Ignored on >= 1.29.`,
    n.defaultMode,
    enumSchema(n.modes),
  );
}

function planWorkload(w: Workload, key: string, graph: ObjectGraph, pdbNames: Set<string>): WorkloadPlan {
  const kind = w.kind as KnobKind;
  const raw = w.obj.raw;
  const spec = (raw.spec ?? {}) as JsonObject;
  const what = describeObj(w.obj);
  const children: ValueNode[] = [];
  const ns = get(raw, 'metadata', 'namespace');
  const plan: WorkloadPlan = {
    key,
    kind,
    name: w.obj.name,
    namespace: typeof ns === 'string' && ns ? ns : undefined,
    what,
    obj: w.obj,
    w,
    values: group(key, `${what}`, children),
    minReadyPresent: spec.minReadySeconds !== undefined,
    strategyPresent: kind === 'Deployment' ? spec.strategy !== undefined : spec.updateStrategy !== undefined,
    stsMaxUnavailable: kind === 'StatefulSet' && get(spec, 'updateStrategy', 'rollingUpdate', 'maxUnavailable') !== undefined,
    gracePresent: w.graceSet,
    containers: [],
    nativeSidecars: [],
    fixedPreStops: [],
    drain: { knob: false, declared: false, constant: DEFAULT_DRAIN_SECONDS },
    addend: 0,
    addendParts: [],
    mesh: { linkerdWait: false },
    defaults: { preStop: 0, drain: DEFAULT_DRAIN_SECONDS, grace: w.grace },
    served: likelyServed(graph, w),
    exclusiveClaim: graph.claimsOf(w).some((c) => claimExclusivity(c) !== 'shared'),
    readinessGateNamespace: false,
    pod: { annotationsPresent: isObject(get(raw, 'spec', 'template', 'metadata', 'annotations')), securityContextPresent: isObject(get(raw, 'spec', 'template', 'spec', 'securityContext')) },
  };

  // Replicas (or the HPA's range, when an HPA owns the count).
  const hpa = graph.hpaFor(w);
  if (kind !== 'DaemonSet') {
    if (w.replicasSet || !hpa) {
      plan.replicas = { present: w.replicasSet };
      children.push(leaf('replicas', `Pod replicas (spec.replicas). The PDB guard checks the disruption budget against it${hpa ? '; the HPA changes it at run time' : ''}.`, w.replicas ?? DEFAULTS.replicas, intSchema(0)));
    }
  }
  if (hpa) {
    plan.hpa = { obj: hpa.obj, minPresent: hpa.minReplicasSet };
    children.push(
      group('autoscaling', `HorizontalPodAutoscaler ${hpa.obj.name}: its replica range. The PDB guard counts minReplicas (the HPA may scale down to it at any time).`, [
        leaf('minReplicas', 'spec.minReplicas of the HPA.', hpa.minReplicas, intSchema(1)),
        leaf('maxReplicas', 'spec.maxReplicas of the HPA; at least minReplicas.', hpa.maxReplicas ?? hpa.minReplicas, intSchema(1)),
      ]),
    );
  }

  // Images and resources: the first main container at the top, the others under `containers`.
  const used = new Set<string>();
  plan.containers = containerKnobs(w, used);
  plan.nativeSidecars = nativeSidecarPlans(w, key, plan.containers);
  const imageGroup = (c: ContainerKnob): ValueNode[] => {
    const out: ValueNode[] = [];
    const cr = (get(spec, 'template', 'spec', c.list) as JsonObject[])[c.index];
    if (c.image) {
      const parts = splitImage(cr.image as string);
      out.push(
        group('image', `Image of container "${c.name}".`, [
          leaf('registry', 'Image registry ("" for Docker Hub); global.imageRegistry replaces it when set.', parts.registry, { type: 'string', pattern: '^([a-zA-Z0-9.-]+(:[0-9]+)?)?$' }),
          leaf('repository', 'Image repository.', parts.repository, { type: 'string', minLength: 1 }),
          leaf('tag', 'Image tag ("" for none); a number is taken as written (quote versions like "1.10", which YAML reads as 1.1).', parts.tag, { type: ['string', 'number'], pattern: '^([\\w][\\w.-]{0,127})?$', minimum: 0 }),
          leaf('digest', 'Image digest (`sha256:…`); written after the tag when set.', parts.digest, { type: 'string', pattern: '^([a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,})?$' }),
          leaf('pullPolicy', 'imagePullPolicy ("" leaves it to the API default).', typeof cr.imagePullPolicy === 'string' ? cr.imagePullPolicy : '', enumSchema(['', 'Always', 'IfNotPresent', 'Never'])),
        ]),
      );
    }
    out.push(leaf('resources', `Resource requests and limits of container "${c.name}".`, isObject(cr.resources) ? cr.resources : {}, resourcesSchema()));
    out.push(leaf('securityContext', `securityContext of container "${c.name}" ({} for none; a map you set merges with this default, as Helm merges values: set a key to null to drop it).`, isObject(cr.securityContext) ? cr.securityContext : {}, { type: 'object' }));
    out.push(leaf('extraEnv', `Environment variables (EnvVar objects: name with value or valueFrom) appended to container "${c.name}".`, [], { type: 'array', items: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] } }));
    return out;
  };
  if (plan.containers.length) children.push(...imageGroup(plan.containers[0]));
  if (plan.containers.length > 1) {
    children.push(
      group(
        'containers',
        'The other containers of the pod (further main containers, native sidecars, init containers), keyed by container name in camelCase.',
        plan.containers.slice(1).map((c) => {
          const native = plan.nativeSidecars.find((n) => c.list === 'initContainers' && n.index === c.index);
          const children = imageGroup(c);
          if (native) children.push(classicFallbackLeaf(native));
          return group(containerValuesKey(c)!, `Container "${c.name}" (${c.list === 'containers' ? 'main container' : native ? 'native sidecar' : 'init container'}).`, children);
        }),
      ),
    );
  }

  // Pod-level values people expect from a chart (helm create, bitnami).
  const podSpec = (get(spec, 'template', 'spec') ?? {}) as JsonObject;
  const obj = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});
  children.push(
    leaf('podAnnotations', 'Annotations added to the pods (pod template metadata).', {}, { type: 'object', additionalProperties: { type: 'string' } }),
    leaf('podLabels', 'Labels added to the pods (never to selectors).', {}, { type: 'object', additionalProperties: { type: 'string' } }),
    leaf('nodeSelector', `Node labels the pods must run on${isObject(podSpec.nodeSelector) ? ' (replaces the synthesized nodeSelector when set)' : ''}.`, {}, { type: 'object', additionalProperties: { type: 'string' } }),
    leaf('tolerations', `Tolerations of the pods${Array.isArray(podSpec.tolerations) ? ' (replace the synthesized ones when set)' : ''}.`, [], { type: 'array', items: { type: 'object' } }),
    leaf('affinity', `Node and pod affinity of the pods${isObject(podSpec.affinity) ? ' (replaces the synthesized affinity when set)' : ''}.`, {}, { type: 'object' }),
    leaf('topologySpreadConstraints', `Further topology spread constraints, after ${tscList(podSpec).length ? 'the ones of `spread`' : 'none'}.`, [], { type: 'array', items: { type: 'object' } }),
    leaf('priorityClassName', `PriorityClass of the pods (${typeof podSpec.priorityClassName === 'string' ? `"" keeps ${podSpec.priorityClassName}` : '"" for none'}).`, '', { type: 'string' }),
    leaf('imagePullSecrets', 'Names of Secrets for pulling the images (added to the synthesized ones, global.imagePullSecrets and imagePullSecrets).', [], pullSecretsSchema()),
    leaf('serviceAccountName', `ServiceAccount the pods run as (${typeof podSpec.serviceAccountName === 'string' ? `"" keeps ${podSpec.serviceAccountName}` : '"" for the namespace default'}).`, '', { type: 'string' }),
    leaf('podSecurityContext', 'securityContext of the pods ({} for none).', obj(podSpec.securityContext), { type: 'object' }),
  );

  // Rollout.
  if (kind === 'Deployment') {
    const st = isObject(spec.strategy) ? spec.strategy : {};
    const type = typeof st.type === 'string' ? st.type : 'RollingUpdate';
    const ru = get(st, 'rollingUpdate');
    children.push(
      group('strategy', 'Rollout strategy (spec.strategy). The guard refuses maxSurge and maxUnavailable both 0.', [
        leaf('type', 'RollingUpdate, or Recreate (every old pod stops before a new one starts: an outage on every rollout).', type, enumSchema(['RollingUpdate', 'Recreate'])),
        leaf('maxSurge', 'Pods created above replicas during a rollout: an integer or a percentage ("25%", rounded up).', (get(ru, 'maxSurge') as Json) ?? DEFAULTS.maxSurge, intOrPercentSchema()),
        leaf('maxUnavailable', 'Pods that may be unavailable during a rollout: an integer or a percentage (rounded down). 0 keeps full capacity.', (get(ru, 'maxUnavailable') as Json) ?? DEFAULTS.maxUnavailable, intOrPercentSchema({ maxPercent100: true })),
      ]),
    );
  } else if (kind === 'DaemonSet') {
    const st = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
    const ru = get(st, 'rollingUpdate');
    children.push(
      group('updateStrategy', 'Rollout strategy (spec.updateStrategy). maxSurge > 0 starts the new pod on a node before the old one stops; the guard refuses maxSurge and maxUnavailable both 0.', [
        leaf('type', 'RollingUpdate, or OnDelete (pods are replaced only when deleted by hand).', typeof st.type === 'string' ? st.type : 'RollingUpdate', enumSchema(['RollingUpdate', 'OnDelete'])),
        leaf('maxSurge', 'Nodes that run an old and a new pod at once during a rollout: an integer or a percentage.', (get(ru, 'maxSurge') as Json) ?? 0, intOrPercentSchema({ maxPercent100: true })),
        leaf('maxUnavailable', 'Nodes whose pod may be unavailable during a rollout: an integer or a percentage.', (get(ru, 'maxUnavailable') as Json) ?? 1, intOrPercentSchema({ maxPercent100: true })),
      ]),
    );
  } else {
    const st = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
    const ru = get(st, 'rollingUpdate');
    const sts: ValueNode[] = [
      leaf('type', 'RollingUpdate, or OnDelete (pods are replaced only when deleted by hand).', typeof st.type === 'string' ? st.type : 'RollingUpdate', enumSchema(['RollingUpdate', 'OnDelete'])),
      leaf('partition', 'Only pods with an ordinal >= partition are updated (a canary); 0 updates all. At or above replicas, updates never land.', (get(ru, 'partition') as Json) ?? 0, intSchema(0)),
    ];
    if (plan.stsMaxUnavailable) {
      sts.push(leaf('maxUnavailable', 'Pods updated at once (MaxUnavailableStatefulSet gate; ignored where it is off): an integer >= 1 or a percentage.', get(ru, 'maxUnavailable') as Json, { ...intOrPercentSchema({ maxPercent100: true }), minimum: 1 }));
    }
    children.push(group('updateStrategy', 'Rollout strategy (spec.updateStrategy).', sts));
  }
  children.push(leaf('minReadySeconds', 'Seconds a new pod must stay Ready before it counts as available and the rollout moves on.', (spec.minReadySeconds as Json) ?? 0, intSchema(0)));
  if (kind === 'Deployment') {
    plan.progressDeadlinePresent = spec.progressDeadlineSeconds !== undefined;
    children.push(leaf('progressDeadlineSeconds', 'Seconds a rollout step may take before the Deployment reports ProgressDeadlineExceeded; the guard requires it above minReadySeconds.', (spec.progressDeadlineSeconds as Json) ?? DEFAULTS.progressDeadlineSeconds, intSchema(1)));
  }

  // Termination.
  children.push(leaf('terminationGracePeriodSeconds', 'Seconds between the start of termination and SIGKILL; must cover preStop + drain (+ native sidecars). Checked by the guard.', w.grace, intSchema(1)));
  const targets: PreStopTarget[] = [];
  let preStopSeconds: number | undefined;
  for (const c of w.containers) {
    const t = preStopTarget(c);
    if (t && (preStopSeconds === undefined || t.seconds === preStopSeconds)) {
      preStopSeconds = t.seconds;
      targets.push(t.target);
      continue;
    }
    const d = classifyPreStop(get(c.raw, 'lifecycle', 'preStop'));
    if (d.kind !== 'none' && d.seconds !== undefined) plan.fixedPreStops.push(d.seconds);
  }
  if (preStopSeconds !== undefined) {
    const describe = describeHook(targets[0]);
    plan.preStop = { seconds: preStopSeconds, targets, describe };
    children.push(
      group('preStop', 'The preStop delay: the old pod keeps serving while endpoint removal reaches proxies and load balancers.', [
        leaf('delaySeconds', `Seconds ${describe} waits before SIGTERM (main containers ${targets.map((t) => `"${w.containers[t.index].name}"`).join(', ')}); 0 removes the hook. Must stay below terminationGracePeriodSeconds.`, preStopSeconds, intSchema(0)),
      ]),
    );
  }
  const metaDrain = get(raw, 'metadata', 'annotations', HINT.drainSeconds);
  const tplDrain = get(raw, 'spec', 'template', 'metadata', 'annotations', HINT.drainSeconds);
  const drainText = typeof tplDrain === 'string' ? tplDrain : typeof metaDrain === 'string' ? metaDrain : undefined;
  const where = typeof tplDrain === 'string' ? 'template' : typeof metaDrain === 'string' ? 'metadata' : undefined;
  if (drainText === undefined || (DRAIN_INT.test(drainText) && drainText === String(Number(drainText)))) {
    const d = drainText === undefined ? DEFAULT_DRAIN_SECONDS : Number(drainText);
    plan.drain = { knob: true, where: where ?? 'metadata', declared: drainText !== undefined, constant: d };
    children.push(leaf('drainSeconds', `Seconds the app needs after SIGTERM to finish in-flight work (the ${HINT.drainSeconds} annotation the linter and the guard read${drainText === undefined ? '; written only when not the default 10' : ''}).`, d, intSchema(0)));
  } else {
    const d = Number.parseFloat(drainText);
    plan.drain = { knob: false, declared: true, constant: Number.isFinite(d) ? d : DEFAULT_DRAIN_SECONDS };
  }
  const addends = shutdownAddends(graph, w);
  plan.addend = addends.reduce((a, x) => a + x.seconds, 0);
  plan.addendParts = addends.map((a) => `${a.source} ${a.seconds}s`);
  plan.defaults = { preStop: Math.max(0, preStopSeconds ?? 0, ...plan.fixedPreStops), drain: plan.drain.constant, grace: w.grace };

  // Disruption budget: the one PDB that selects only this workload, or an optional new one.
  if (kind !== 'DaemonSet') {
    const pdbs = graph.pdbsFor(w);
    const own: PdbView | undefined = pdbs.length === 1 && graph.workloadsForPdb(pdbs[0]).length === 1 ? pdbs[0] : undefined;
    const pdbSpec = own ? ((own.obj.raw.spec ?? {}) as JsonObject) : undefined;
    if (own || pdbs.length === 0) {
      let generatedName: string | undefined;
      if (!own) {
        const candidates = [w.obj.name, `${w.obj.name}-pdb`];
        for (let n = 2; candidates.every((c) => pdbNames.has(c)); n++) candidates.push(`${w.obj.name}-pdb-${n}`);
        generatedName = candidates.find((c) => !pdbNames.has(c))!;
        pdbNames.add(generatedName);
      }
      plan.pdb = {
        obj: own?.obj,
        generatedName,
        minAvailablePresent: pdbSpec?.minAvailable !== undefined,
        maxUnavailablePresent: pdbSpec?.maxUnavailable !== undefined,
        policyPresent: pdbSpec?.unhealthyPodEvictionPolicy !== undefined,
      };
      const policyDefault = own ? (typeof pdbSpec?.unhealthyPodEvictionPolicy === 'string' ? pdbSpec.unhealthyPodEvictionPolicy : '') : 'AlwaysAllow';
      children.push(
        group('pdb', `PodDisruptionBudget ${own ? own.obj.name : `${generatedName} (not in the manifests: the chart can add it)`}. Set exactly one of minAvailable and maxUnavailable (the other null); the guard refuses a budget that allows no eviction for the replicas.`, [
          leaf('enabled', own ? 'Create the PodDisruptionBudget.' : 'Create a PodDisruptionBudget for this workload.', own !== undefined, { type: 'boolean' }),
          leaf('minAvailable', 'Pods that must stay available during voluntary disruptions: an integer or a percentage (rounded up), or null.', own ? ((pdbSpec?.minAvailable as Json) ?? null) : null, intOrPercentSchema({ nullable: true, maxPercent100: true }), true),
          leaf('maxUnavailable', 'Pods that may be evicted at once: an integer or a percentage (rounded up), or null.', own ? ((pdbSpec?.maxUnavailable as Json) ?? null) : 1, intOrPercentSchema({ nullable: true, maxPercent100: true }), true),
          leaf('unhealthyPodEvictionPolicy', 'Whether unhealthy pods may be evicted regardless of the budget: AlwaysAllow (recommended), IfHealthyBudget, or "" for the API default. Written only on Kubernetes >= 1.27.', policyDefault, enumSchema(['', 'IfHealthyBudget', 'AlwaysAllow'])),
        ]),
      );
    }
  }

  // Spreading over zones and nodes.
  const tsc = w.podSpec.topologySpreadConstraints;
  if (kind !== 'DaemonSet' && Array.isArray(tsc) && tsc.length > 0) {
    const uniform = uniformSpread(tsc);
    plan.spread = { uniform };
    const first = tsc[0] as JsonObject;
    const spreadChildren: ValueNode[] = [leaf('enabled', 'Write the topology spread constraints.', true, { type: 'boolean' })];
    if (uniform) {
      spreadChildren.push(
        leaf('maxSkew', 'Largest allowed difference in pod count between two topology domains.', first.maxSkew as number, intSchema(1)),
        leaf('whenUnsatisfiable', 'ScheduleAnyway (prefer) or DoNotSchedule (require; with surge this can block a rollout).', first.whenUnsatisfiable as string, enumSchema(['ScheduleAnyway', 'DoNotSchedule'])),
        leaf('topologyKeys', 'Node labels to spread over, one constraint each.', (tsc as JsonObject[]).map((t) => t.topologyKey as string), { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } }),
      );
    }
    children.push(group('spread', 'Topology spread constraints of the pods (zones and nodes).', spreadChildren));
  }

  // Mesh annotations the constructs derive from preStop + drain.
  const tplAnn = get(raw, 'spec', 'template', 'metadata', 'annotations');
  const pre = plan.defaults.preStop;
  const drain = plan.defaults.drain;
  // Derived only where the manifest holds exactly what the constructs compute (constructs/mesh.ts).
  const stay = Mesh.linkerd().proxyStaySeconds(pre, drain);
  if (isObject(tplAnn)) {
    if (tplAnn[LINKERD.waitBeforeExit] === String(stay)) plan.mesh.linkerdWait = true;
    const sgp = tplAnn[LINKERD.shutdownGracePeriod];
    if (typeof sgp === 'string') {
      const native = tplAnn[LINKERD.nativeSidecar[0]] === 'true';
      if (sgp === Mesh.linkerd({ nativeSidecar: native }).graceAnnotations(pre, drain, w.grace, true)[LINKERD.shutdownGracePeriod]) plan.mesh.linkerdShutdownGrace = { native };
    }
    const pc = tplAnn[ISTIO.proxyConfig];
    if (typeof pc === 'string') {
      const m = /^([\s\S]*?terminationDrainDuration:\s*)(\d+)(s[\s\S]*)$/.exec(pc);
      if (m && Number(m[2]) === stay) plan.mesh.istioDrain = { before: m[1], after: m[3] };
    }
    const fallback = meshNativeFallback(tplAnn, plan.mesh);
    if (fallback) plan.mesh.nativeFallback = fallback;
  }
  return plan;
}
