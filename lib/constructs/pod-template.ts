import { ApiObject, Chart } from 'cdk8s';
import { servedStateOf } from '../model/traffic';
import * as kplus from 'cdk8s-plus-27';
import { KubeVersion } from '../engine/version';
import { HINT, ObjectGraph } from '../model/graph';
import { parseText } from '../model/parse';
import { stringMap } from '../model/selector';
import { isObject, Json, JsonObject } from '../model/types';
import { get, Workload } from '../model/workload';
import { trafficContainers } from '../rules/probe-util';
import { DEFAULT_SIDECAR_DRAIN_SECONDS, SIDECAR_DRAIN_HINT, shutdownAddends } from '../timeline/addends';
import { Addend, containerBudget, drainSeconds, GRACE_MARGIN_SECONDS, recommendedGrace } from '../timeline/budget';
import { isProgramHook, podPreStopDelay, PRESTOP_SECONDS_HINT } from '../timeline/prestop';
import { Mesh } from './mesh';
import { ManifestOverlay } from './overlay';
import { ReadinessGate } from './load-balancer';
import { NativeSidecarProps, nativeSidecarJson } from './sidecar';
import { topologySpreadConstraints, TopologySpreadOptions } from './spread';
import { requireFeature, supports } from './version';

/** The preStop delay for in-cluster clients; one value with the fixer's (lib/timeline/prestop). */
export { DEFAULT_PRESTOP_SECONDS } from '../timeline/prestop';
/** minReadySeconds behind an external load balancer, whose target registration lags readiness (ROLL-003). */
export const LOAD_BALANCER_MIN_READY_SECONDS = 10;

/** Termination options shared by the graceful workloads. */
export interface GracefulPodOptions {
  /**
   * Target Kubernetes version (X.Y). Picks version-gated output (the preStop `sleep` action on
   * >= 1.30, `exec sleep` before; `matchLabelKeys` and `unhealthyPodEvictionPolicy` on >= 1.27) and
   * refuses what the target cannot run (native sidecars before 1.29).
   * @default - the `kubegrace.dev/kubernetesVersion` context value, else the newest minor the rules know (1.37)
   */
  readonly kubernetesVersion?: string;
  /**
   * preStop delay written on every main container that declares a port and has no preStop hook
   * of its own: it keeps the old process serving while endpoint removal reaches proxies and load
   * balancers. 0 writes no hook.
   * @default 10, or the load balancer's propagation window when the Service has one
   */
  readonly preStopSeconds?: number;
  /**
   * How long the containers' own preStop hooks of unknown duration run: a program such as
   * `Handler.fromCommand(['/bin/drain', '--wait', '25'])` (any exec that is not a bare sleep) or an
   * httpGet hook. A number applies to every such hook, `{ app: 25, worker: 40 }` to one container
   * each. Written as the `kubegrace.dev/prestop-seconds` hint, so the grace period here, the
   * linter (`grace-period-budget`, `native-sidecar-grace-budget`) and `kubegrace explain` all count
   * the same duration. `preStopSeconds` does not apply to a container with its own hook.
   * @default - none: synthesis refuses a main container with such a hook unless `terminationGracePeriod` is set explicitly
   */
  readonly customPreStopSeconds?: number | { readonly [container: string]: number };
  /**
   * Seconds the app needs after SIGTERM to finish in-flight work; written as the
   * `kubegrace.dev/drain-seconds` hint and counted in the grace period.
   * @default 10
   */
  readonly drainSeconds?: number;
  /**
   * Native sidecars (init containers with `restartPolicy: Always`), placed before any other init
   * container. Needs Kubernetes >= 1.29.
   * @default []
   */
  readonly sidecars?: NativeSidecarProps[];
  /**
   * The service mesh whose proxy is injected; its drain annotations follow the app's preStop + drain.
   * @default - no mesh annotations
   */
  readonly mesh?: Mesh;
  /**
   * Pod readiness gates (`ReadinessGate.awsLoadBalancer(...)`, `ReadinessGate.gkeNeg()`).
   * @default - those of the Service's load balancer, if any
   */
  readonly readinessGates?: ReadinessGate[];
}

/**
 * The termination budget of a synthesized workload: what the grace period has to cover and what
 * was written. `gracePeriodSeconds = max over main containers of recommendedGrace(preStop, drain,
 * addend)`, the timeline function the `grace-period-budget` rule judges with.
 */
export interface GraceBudget {
  /** The longest preStop delay of the main containers (0 without hooks, or when unknown). */
  readonly preStopSeconds: number;
  readonly drainSeconds: number;
  /** Sum of the addends. */
  readonly addendSeconds: number;
  /** Mesh, load balancer and native-sidecar shutdown costs. */
  readonly addends: Addend[];
  readonly marginSeconds: number;
  /** `terminationGracePeriodSeconds` as written. */
  readonly gracePeriodSeconds: number;
  /** The grace period the model recommends; equal to gracePeriodSeconds unless it was set explicitly. */
  readonly recommendedGracePeriodSeconds: number;
  /** False when `terminationGracePeriod` was set explicitly. */
  readonly computed: boolean;
}

/** The preStop hook that delays SIGTERM by `seconds`, in the form the target version supports. */
export function preStopHandler(seconds: number, version: KubeVersion): JsonObject {
  if (!Number.isInteger(seconds) || seconds <= 0) throw new Error(`preStop delay must be a whole number of seconds > 0 (got ${seconds})`);
  return supports(version, 'sleepAction') ? { sleep: { seconds } } : { exec: { command: ['sleep', String(seconds)] } };
}

/** Kinds of other objects whose content the shutdown addends may depend on. */
const RELATED_KINDS = new Set(['Service', 'Ingress', 'TargetGroupBinding', 'Namespace', 'PersistentVolumeClaim', 'HorizontalPodAutoscaler', 'PodDisruptionBudget']);

function clone<T extends Json>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function asArray(v: Json | undefined): JsonObject[] {
  return Array.isArray(v) ? (v.filter(isObject) as JsonObject[]) : [];
}

export interface PodTemplateConfig {
  readonly kind: 'Deployment' | 'StatefulSet' | 'DaemonSet';
  readonly version: KubeVersion;
  readonly preStopSeconds: number;
  /** Whether preStopSeconds was given explicitly (then it must land on a container). @default false */
  readonly preStopSecondsExplicit?: boolean;
  /** The declared duration of custom preStop hooks (GracefulPodOptions.customPreStopSeconds). @default - none */
  readonly customPreStopSeconds?: number | { readonly [container: string]: number };
  /** Set when the grace period was given explicitly: then it is kept. @default - computed */
  readonly explicitGraceSeconds?: number;
  /** @default - no mesh */
  readonly mesh?: Mesh;
  /** Topology spread, with matchLabelKeys when the kind and version allow. @default - none */
  readonly spread?: { readonly options: TopologySpreadOptions; readonly matchLabelKeys?: string[] };
}

/**
 * The termination-aware part of a pod template, shared by the graceful workloads. Its `finalize`
 * runs as a `ManifestOverlay` transform at synthesis, after every container is known: it writes the
 * preStop hooks, native sidecars, readiness gates, mesh annotations and topology spread, then the
 * grace period from the same timeline functions the rules use.
 */
export class GracefulPodTemplate {
  private readonly sidecars: NativeSidecarProps[] = [];
  private readonly gates: ReadinessGate[] = [];
  private last?: { budget: GraceBudget; graph: ObjectGraph; workload: Workload; preStopWritten: number };

  constructor(
    private readonly owner: kplus.Workload,
    readonly config: PodTemplateConfig,
  ) {
    if (config.mesh?.nativeSidecar) {
      requireFeature(config.version, 'nativeSidecars', this.what, `use ${config.mesh.name === 'linkerd' ? 'Mesh.linkerd' : 'Mesh.istio'}({ nativeSidecar: false }) or raise kubernetesVersion`);
    }
    checkCustomPreStop(config.customPreStopSeconds, this.what);
    ManifestOverlay.of(owner).addTransform((m) => this.finalize(m));
    owner.node.addValidation({ validate: () => this.validate() });
  }

  private get what(): string {
    return `Graceful${this.config.kind} ${this.owner.node.path}`;
  }

  addSidecar(s: NativeSidecarProps): void {
    requireFeature(this.config.version, 'nativeSidecars', `${this.what}: sidecar "${s.name}"`, 'run it as a regular container (addContainer) or raise kubernetesVersion');
    if (this.sidecars.some((x) => x.name === s.name)) throw new Error(`${this.what}: a sidecar named "${s.name}" already exists`);
    if (s.drainSeconds !== undefined && !(s.drainSeconds >= 0)) throw new Error(`${this.what}: sidecar "${s.name}": drainSeconds must be >= 0`);
    nativeSidecarJson(s); // validates the probes now rather than at synthesis
    this.sidecars.push(s);
  }

  addReadinessGate(g: ReadinessGate): void {
    if (!this.gates.some((x) => x.conditionType === g.conditionType)) this.gates.push(g);
  }

  get readinessGates(): ReadinessGate[] {
    return [...this.gates];
  }

  /** The budget as of the latest synthesis (synthesizes the workload). */
  budget(): GraceBudget {
    ApiObject.of(this.owner).toJson();
    return this.last!.budget;
  }

  private finalize(m: JsonObject): void {
    const tpl = get(m, 'spec', 'template');
    if (!isObject(tpl)) throw new Error(`${this.what}: synthesized without spec.template`);
    if (!isObject(tpl.metadata)) tpl.metadata = {};
    const meta = tpl.metadata as JsonObject;
    const ps = tpl.spec as JsonObject;
    const containers = asArray(ps.containers);

    // preStop delay on the containers that serve ports, unless they have a hook of their own.
    let preStopWritten = 0;
    if (this.config.preStopSeconds > 0) {
      for (const c of containers) {
        if (asArray(c.ports).length === 0 || get(c, 'lifecycle', 'preStop') !== undefined) continue;
        c.lifecycle = { ...(isObject(c.lifecycle) ? c.lifecycle : {}), preStop: preStopHandler(this.config.preStopSeconds, this.config.version) };
        preStopWritten++;
      }
    }

    // The declared duration of the containers' own hooks, as the hint every reader uses.
    const custom = this.config.customPreStopSeconds;
    if (custom !== undefined) {
      const wm = isObject(m.metadata) ? m.metadata : (m.metadata = {});
      const ann = isObject(wm.annotations) ? wm.annotations : (wm.annotations = {});
      ann[PRESTOP_SECONDS_HINT] = typeof custom === 'number' ? String(custom) : Object.entries(custom).map(([k, v]) => `${k}=${v}`).join(',');
    }

    // Native sidecars first, so the main containers and later init containers start behind them.
    if (this.sidecars.length) {
      const init = asArray(ps.initContainers);
      const taken = new Set([...containers, ...init].map((c) => c.name));
      for (const s of this.sidecars) {
        if (taken.has(s.name)) throw new Error(`${this.what}: sidecar "${s.name}" has the name of another container`);
      }
      ps.initContainers = [...this.sidecars.map(nativeSidecarJson), ...init];
    }

    if (this.gates.length) {
      const gates = asArray(ps.readinessGates);
      for (const g of this.gates) if (!gates.some((x) => x.conditionType === g.conditionType)) gates.push({ conditionType: g.conditionType });
      ps.readinessGates = gates;
    }

    if (this.config.spread && ps.topologySpreadConstraints === undefined) {
      const labels = get(m, 'spec', 'selector', 'matchLabels');
      const matchLabels: Record<string, string> = {};
      if (isObject(labels)) for (const [k, v] of Object.entries(labels)) matchLabels[k] = String(v);
      ps.topologySpreadConstraints = topologySpreadConstraints(matchLabels, this.config.spread.matchLabelKeys, this.config.spread.options);
    }

    // The app's shutdown time, from the hooks as written and the drain and preStop hints (the timeline's own readers).
    const annotations = { ...stringMap(get(m, 'metadata', 'annotations')), ...stringMap(meta.annotations) };
    const pod = containers.map((c) => ({ raw: c, name: String(c.name) }));
    const preStop = Math.max(0, ...pod.map((c) => podPreStopDelay(c, annotations, undefined, pod).seconds ?? 0));
    const drain = drainSeconds({ annotations });

    const mesh = this.config.mesh;
    if (mesh) {
      meta.annotations = { ...(isObject(meta.annotations) ? meta.annotations : {}), ...mesh.podAnnotations(preStop, drain) };
      const labels = mesh.podLabels();
      if (Object.keys(labels).length) meta.labels = { ...(isObject(meta.labels) ? meta.labels : {}), ...labels };
    }
    // Each native sidecar's drain, as the hint the addends read (name=seconds).
    if (this.sidecars.length) {
      const wm = isObject(m.metadata) ? m.metadata : (m.metadata = {});
      const ann = isObject(wm.annotations) ? wm.annotations : (wm.annotations = {});
      if (ann[SIDECAR_DRAIN_HINT] === undefined) {
        ann[SIDECAR_DRAIN_HINT] = this.sidecars.map((s) => `${s.name}=${s.drainSeconds ?? DEFAULT_SIDECAR_DRAIN_SECONDS}`).join(',');
      }
    }
    const view = this.graphOf(m);

    // Everything else that must fit in the grace period: native sidecars, injected native mesh
    // proxies, load balancers (the addends the grace-period-budget rule adds).
    const w = view.workload;
    const addends: Addend[] = shutdownAddends(view.graph, w);
    const budgets = w.containers.map((c) => containerBudget(w, c, addends, undefined, view.graph));
    const addend = addends.reduce((a, x) => a + x.seconds, 0);
    const recommended = Math.max(recommendedGrace(0, drain, addend), ...budgets.map((b) => recommendedGrace((b.preStop.seconds ?? 0) + b.servesAfter, b.drain, b.addend)));
    const explicit = this.config.explicitGraceSeconds;
    if (explicit === undefined) ps.terminationGracePeriodSeconds = recommended;
    if (mesh) {
      const pattern = (w.annotations[HINT.connectionPattern] ?? '').trim().toLowerCase();
      Object.assign(meta.annotations as JsonObject, mesh.graceAnnotations(preStop, drain, explicit ?? recommended, pattern === 'long-lived' || pattern === 'fan-in'));
    }
    const budget: GraceBudget = {
      preStopSeconds: preStop,
      drainSeconds: drain,
      addendSeconds: addend,
      addends,
      marginSeconds: GRACE_MARGIN_SECONDS,
      gracePeriodSeconds: explicit ?? recommended,
      recommendedGracePeriodSeconds: recommended,
      computed: explicit === undefined,
    };
    this.last = { budget, graph: view.graph, workload: w, preStopWritten };
  }

  /**
   * The workload as the linter sees it: this manifest plus the chart's Services, Ingresses and
   * other objects the rules relate it to.
   */
  private graphOf(m: JsonObject): { graph: ObjectGraph; workload: Workload } {
    const chart = Chart.of(this.owner);
    const related: JsonObject[] = [];
    for (const c of chart.node.findAll()) {
      if (!ApiObject.isApiObject(c) || !RELATED_KINDS.has(c.kind)) continue;
      related.push(c.toJson() as JsonObject);
    }
    const text = [clone(m), ...related].map((x) => JSON.stringify(x)).join('\n---\n');
    const parsed = parseText(`<${this.owner.node.path}>`, text);
    const graph = new ObjectGraph(parsed.objects);
    const workload = graph.workloads.find((x) => x.obj === parsed.objects[0]);
    if (!workload) throw new Error(`${this.what}: internal error: the synthesized manifest is not a workload`);
    return { graph, workload };
  }

  /**
   * A main container's own hook of unknown duration needs `customPreStopSeconds` when the grace
   * period is computed (it would be computed from a guess); declared durations must name real
   * containers with such hooks; an explicit preStopSeconds must land on some container.
   */
  private preStopErrors(w: Workload, preStopWritten: number): string[] {
    const errors: string[] = [];
    const custom = this.config.customPreStopSeconds;
    const programs = w.containers.filter((c) => isProgramHook(podPreStopDelay(c, {})));
    for (const c of w.containers) {
      const d = podPreStopDelay(c, w.annotations, undefined, w.containers);
      if (!isProgramHook(d) || d.seconds !== undefined || this.config.explicitGraceSeconds !== undefined) continue;
      const what = d.kind === 'httpGet' ? 'an httpGet preStop hook' : `a preStop program (${(d.command ?? []).join(' ')})`;
      errors.push(
        `container "${c.name}" has ${what} whose duration kubegrace cannot know, so terminationGracePeriodSeconds would be computed from a guess: declare how long it runs with the customPreStopSeconds prop (customPreStopSeconds: 25, or { "${c.name}": 25 }), which writes the ${PRESTOP_SECONDS_HINT} hint the linter and explain read too, or set terminationGracePeriod explicitly`,
      );
    }
    if (typeof custom === 'number' && programs.length === 0) {
      errors.push(`customPreStopSeconds (${custom}) is set, but no container has a preStop hook of unknown duration (a program or httpGet) for it to describe; remove it, or use preStopSeconds for the delay kubegrace writes`);
    }
    if (custom !== undefined && typeof custom !== 'number') {
      for (const name of Object.keys(custom)) {
        if (!programs.some((c) => c.name === name)) {
          const known = programs.map((c) => `"${c.name}"`).join(', ');
          errors.push(`customPreStopSeconds names container "${name}", which has no preStop hook of unknown duration (a program or httpGet)${known ? `; containers with one: ${known}` : ''}`);
        }
      }
    }
    if (this.config.preStopSecondsExplicit && this.config.preStopSeconds > 0 && preStopWritten === 0) {
      errors.push(
        `preStopSeconds (${this.config.preStopSeconds}) was written on no container: it applies to containers that declare a port and have no preStop hook of their own${programs.length ? `; for a container's own hook declare its duration with customPreStopSeconds` : ''}`,
      );
    }
    return errors;
  }

  /**
   * Containers behind a Service port must have a readiness probe (PROBE-001). Only when a Service
   * of the chart (or the `kubegrace.dev/served` hint) routes to the pods: a port alone may be
   * served from elsewhere or not at all, and the linter judges that case with its own caveat.
   */
  private validate(): string[] {
    ApiObject.of(this.owner).toJson();
    const { graph, workload, preStopWritten } = this.last!;
    const errors: string[] = [...this.preStopErrors(workload, preStopWritten)];
    if (servedStateOf(graph, workload) !== 'served') return errors;
    for (const c of trafficContainers(graph, workload)) {
      if (isObject(c.raw.readinessProbe)) continue;
      const how = c.role === 'sidecar' ? 'give the sidecar a readinessProbe' : `pass readiness: Probe.fromHttpGet('/readyz') (or another check) in the container's props`;
      errors.push(`container "${c.name}" receives Service traffic but has no readiness probe: it would get requests before it can serve, and rollouts could not tell a broken pod from a working one; ${how}`);
    }
    return errors;
  }
}

function checkCustomPreStop(v: PodTemplateConfig['customPreStopSeconds'], what: string): void {
  if (v === undefined) return;
  const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (typeof v === 'number') {
    if (!ok(v)) throw new Error(`${what}: customPreStopSeconds must be a number of seconds >= 0 (got ${v})`);
    return;
  }
  if (!isObject(v as Json) || Object.keys(v).length === 0) throw new Error(`${what}: customPreStopSeconds must be seconds or a non-empty { container: seconds } map`);
  for (const [k, n] of Object.entries(v)) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(k)) throw new Error(`${what}: customPreStopSeconds: "${k}" is not a container name`);
    if (!ok(n)) throw new Error(`${what}: customPreStopSeconds: container "${k}" must be a number of seconds >= 0 (got ${String(n)})`);
  }
}
