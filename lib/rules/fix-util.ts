import { FixEdit } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ObjectGraph } from '../model/graph';
import { Json, JsonObject } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { shutdownAddends } from '../timeline/addends';
import { containerBudget, recommendedGrace } from '../timeline/budget';

/** Whether the preStop sleep action is on by default (PodLifecycleSleepAction beta, 1.30). */
export function sleepActionAvailable(version: KubeVersion): boolean {
  return version.atLeast(1, 30);
}

/**
 * The version-appropriate preStop delay handler: the sleep action on >= 1.30 (needs nothing in the
 * image), else `exec sleep N` (needs a sleep binary in the image, so only a proposal).
 */
export function preStopHandler(version: KubeVersion, seconds: number): { handler: JsonObject; safety: 'safe' | 'proposal'; text: string } {
  if (sleepActionAvailable(version)) return { handler: { sleep: { seconds } }, safety: 'safe', text: `preStop sleep ${seconds}s` };
  return { handler: { exec: { command: ['sleep', String(seconds)] } }, safety: 'proposal', text: `preStop exec ["sleep", "${seconds}"] (the image needs a sleep binary)` };
}

/**
 * The grace period the workload needs (max over main containers of preStop + drain + addend +
 * margin, lib/timeline/budget.ts), with some containers' preStop delay replaced by `preStopOverride`
 * (container pointer -> seconds), as it will be after a fix. Containers with an unknown delay count
 * only when overridden. An exec sleep that cannot run in the image (`shellLess` patterns) counts as 0 s.
 */
export function neededGrace(graph: ObjectGraph, w: Workload, preStopOverride: Map<string, number> = new Map(), waitPatterns?: string[], shellLess?: readonly string[]): number {
  const addends = shutdownAddends(graph, w);
  let need = 0;
  for (const c of w.containers) {
    const b = containerBudget(w, c, addends, waitPatterns, graph, shellLess);
    const s = preStopOverride.get(c.pointer) ?? (b.preStop.kind === 'none' ? 0 : b.preStop.seconds);
    if (s === undefined) continue;
    // A program that keeps serving after SIGTERM (CoreDNS's lameduck) drains only after that.
    need = Math.max(need, recommendedGrace(s + b.servesAfter, b.drain, b.addend));
  }
  return need;
}

/**
 * The main containers whose preStop hook runs for a time nothing tells (a custom program without a
 * \`kubegrace.dev/prestop-seconds\` hint), unless overridden: neededGrace does not count them.
 */
export function unknownPreStops(graph: ObjectGraph, w: Workload, preStopOverride: Map<string, number> = new Map(), waitPatterns?: string[]): ContainerView[] {
  const addends = shutdownAddends(graph, w);
  return w.containers.filter((c) => {
    if (preStopOverride.has(c.pointer)) return false;
    const b = containerBudget(w, c, addends, waitPatterns, graph);
    return b.preStop.kind !== 'none' && b.preStop.seconds === undefined;
  });
}

/** The edit that raises terminationGracePeriodSeconds to `seconds`; never lowers an existing value. */
export function raiseGraceEdit(w: Workload, seconds: number): FixEdit | undefined {
  if (w.grace !== 0 && w.grace >= seconds) return undefined;
  return { op: 'set', pointer: `${w.podSpecPointer}/terminationGracePeriodSeconds`, value: seconds };
}

/** The edits that give a container a preStop delay, replacing any hook it has. */
export function setPreStopEdits(c: ContainerView, handler: JsonObject): FixEdit[] {
  return [{ op: 'set', pointer: `${c.pointer}/lifecycle/preStop`, value: handler }];
}

/** A copy of a JSON value (fix values must not alias the linted objects). */
export function copyJson<T extends Json>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** The labels of the pod template, as a plain object for a selector. */
export function templateMatchLabels(w: Workload): JsonObject {
  const labels = get(w.obj.raw, ...(w.templatePointer ?? '').split('/').filter(Boolean), 'metadata', 'labels');
  return labels && typeof labels === 'object' && !Array.isArray(labels) ? copyJson(labels) : {};
}
