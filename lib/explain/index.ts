/**
 * `kubegrace explain` without I/O: lint the sources with the same engine and policy as
 * `kubegrace lint` (so the picture carries the linter's findings), then build a timeline for each
 * selected workload.
 */
import { ResolvedPolicy } from '../engine/policy';
import { isHelmTestHook } from '../rules/lb-util';
import { lintSources, LintResult } from '../engine/run';
import { Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { variantWorlds } from '../engine/worlds';
import { ObjectGraph } from '../model/graph';
import { Source } from '../model/sources';
import { InputError, KObject } from '../model/types';
import { Workload } from '../model/workload';
import { explainWorkload, ExplainOptions, Timeline } from './model';
import { shellLessPatterns } from '../timeline/shell-less';

export * from './model';
export { rolloutPlan, startupEstimate } from './rollout';
export type { RolloutPlan } from './rollout';
export { simulateRollout, simulationText, SimulateInputError, checkSimulateInput } from './simulate';
export type { Simulation, SimulateInput } from './simulate';
export { timelineText, timelinesText } from './text';
export { timelinesSvg, xmlSafe } from './svg';

/** kubectl-style short names accepted in --object. */
const KIND_ALIASES: Record<string, string> = {
  deploy: 'deployment',
  deployments: 'deployment',
  sts: 'statefulset',
  statefulsets: 'statefulset',
  ds: 'daemonset',
  daemonsets: 'daemonset',
  rs: 'replicaset',
  replicasets: 'replicaset',
  po: 'pod',
  pods: 'pod',
  jobs: 'job',
  cj: 'cronjob',
  cronjobs: 'cronjob',
};

const WORKLOAD_KINDS_LOWER = new Set(['deployment', 'statefulset', 'daemonset', 'replicaset', 'pod', 'job', 'cronjob']);

/**
 * Whether a string reads as a workload reference (`deploy/web`, `Deployment/shop/web`): the kind a
 * workload kind or its kubectl short name. (`kubegrace explain FILE Deployment/web` takes it for a
 * path; the error then says to pass it as --object.)
 */
export function looksLikeWorkloadRef(spec: string): boolean {
  const parts = spec.split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) return false;
  const kindIn = parts[0].toLowerCase();
  return WORKLOAD_KINDS_LOWER.has(KIND_ALIASES[kindIn] ?? kindIn) || WORKLOAD_KINDS_LOWER.has(kindIn.replace(/s$/, ''));
}

/** "Deployment/web" or "Deployment/shop/web" (namespace when it is not "default"). */
export function workloadRef(w: Workload): string {
  const ns = w.obj.namespace && w.obj.namespace !== 'default' ? `${w.obj.namespace}/` : '';
  return `${w.kind}/${ns}${w.obj.name}`;
}

/** Workloads matching `KIND/NAME` or `KIND/NAMESPACE/NAME` (kind case-insensitive, kubectl short names accepted). */
export function selectWorkloads(workloads: Workload[], spec: string): Workload[] {
  const parts = spec.split('/');
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === '')) return [];
  const kindIn = parts[0].toLowerCase();
  const kind = KIND_ALIASES[kindIn] ?? kindIn;
  const name = parts[parts.length - 1];
  const ns = parts.length === 3 ? parts[1] : undefined;
  return workloads.filter((w) => w.kind.toLowerCase() === kind && w.obj.name === name && (ns === undefined || (w.obj.namespace ?? 'default') === ns));
}

export interface ExplainRunOptions {
  rules: Rule[];
  policy: ResolvedPolicy;
  version: KubeVersion;
  /** `KIND/NAME`: only that workload. */
  object?: string;
}

export interface ExplainRun {
  lint: LintResult;
  /** Every workload that can be explained, in input order (controller-owned ones excluded). */
  workloads: Workload[];
  /** The selected workloads' timelines (empty when --object matches nothing). */
  timelines: Timeline[];
  errors: InputError[];
}

function params(policy: ResolvedPolicy, rules: Rule[], id: string): Record<string, unknown> {
  const rule = rules.find((r) => r.meta.id === id);
  return { ...(rule?.meta.defaults ?? {}), ...(policy.rules.get(id)?.params ?? {}) };
}

/** The workloads `pick` gives in each world, each once (the first world that holds it), in input order. */
function collectFrom(worlds: ObjectGraph[], pick: (g: ObjectGraph) => Workload[], graphOf: Map<Workload, ObjectGraph>, seen: Set<KObject>, order: Map<KObject, number>): Workload[] {
  const out: Workload[] = [];
  for (const g of worlds) {
    for (const w of pick(g)) {
      if (seen.has(w.obj)) continue;
      seen.add(w.obj);
      graphOf.set(w, g);
      out.push(w);
    }
  }
  return out.sort((a, b) => order.get(a.obj)! - order.get(b.obj)!);
}

export function explainSources(sources: Source[], opts: ExplainRunOptions, extraErrors: InputError[] = []): ExplainRun {
  const lint = lintSources(sources, { rules: opts.rules, policy: opts.policy, version: opts.version }, extraErrors);
  // As the lint: a workload is explained in its world of variants (engine/worlds.ts), the first
  // that holds it when its file has no variants (one world, all the objects, when no file has).
  const objects = lint.parsed.flatMap((p) => p.objects);
  const order = new Map(objects.map((o, i) => [o, i]));
  const graphOf = new Map<Workload, ObjectGraph>();
  const seen = new Set<KObject>();
  const worlds = variantWorlds(objects).map((w) => new ObjectGraph(w, { version: opts.version }));
  const workloads = collectFrom(worlds, (g) => g.workloads, graphOf, seen, order);
  const owned = collectFrom(worlds, (g) => g.ownedWorkloads, graphOf, seen, order);
  // (A Helm test hook's pod exists only while `helm test` runs: drawn only when --object names it; review round 24.)
  const selected = opts.object === undefined ? workloads.filter((w) => !isHelmTestHook(w.obj)) : selectWorkloads([...workloads, ...owned], opts.object);
  const waitPatterns = params(opts.policy, opts.rules, 'grace-period-budget').waitPatterns;
  const linkerd = params(opts.policy, opts.rules, 'linkerd-proxy-drain').nativeDefault;
  const istio = params(opts.policy, opts.rules, 'istio-proxy-drain').istioNativeDefault;
  const sidecarParams = params(opts.policy, opts.rules, 'native-sidecar-grace-budget');
  const shellLess = shellLessPatterns(params(opts.policy, opts.rules, 'prestop-sleep-action'));
  const eo: ExplainOptions = {
    findings: lint.findings,
    ruleSettings: opts.policy.rules,
    waitPatterns: Array.isArray(waitPatterns) ? (waitPatterns as string[]) : undefined,
    linkerdNativeDefault: typeof linkerd === 'boolean' ? linkerd : undefined,
    istioNativeDefault: typeof istio === 'boolean' ? istio : undefined,
    maxSidecarPreStopSleepSeconds: typeof sidecarParams.maxSidecarPreStopSleepSeconds === 'number' ? sidecarParams.maxSidecarPreStopSleepSeconds : undefined,
    exitPatterns: Array.isArray(sidecarParams.exitPatterns) ? (sidecarParams.exitPatterns as string[]) : undefined,
    shellLessImagePatterns: shellLess,
  };
  return { lint, workloads, timelines: selected.map((w) => explainWorkload(graphOf.get(w)!, w, opts.version, eo)), errors: lint.errors };
}
