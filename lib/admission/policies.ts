/**
 * Builds the ValidatingAdmissionPolicy / MutatingAdmissionPolicy objects and their bindings from
 * the catalog, for a resolved kubegrace policy and a target Kubernetes version. Pure: no I/O.
 */
import { builtinCatalog } from '../catalog';
import { ResolvedPolicy, RuleSetting } from '../engine/policy';
import { Rule, Severity } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { JsonObject } from '../model/types';
import { ADMISSION, CelVariable, ExportContext, MutationSpec, ValidationSpec } from './catalog';
import { ExportError, notSuppressed, NOT_OWNED, WORKLOAD_VARIABLES } from './cel';
import { admissionApis, AdmissionApis } from './versions';

export type ValidationAction = 'Deny' | 'Warn' | 'Audit';
export type ExportMode = 'validate' | 'mutate' | 'both';

/** Severity to validationActions (DESIGN: error Deny, warning Warn, info Audit). */
export const DEFAULT_ACTIONS: Record<Severity, ValidationAction> = { error: 'Deny', warning: 'Warn', info: 'Audit' };

export interface ExportOptions {
  rules: Rule[];
  policy: ResolvedPolicy;
  version: KubeVersion;
  mode: ExportMode;
  /** One action for every validation policy instead of the severity mapping. */
  action?: ValidationAction;
}

/** One exported validation: the objects plus what the tests need to evaluate and compare it. */
export interface ExportedValidation {
  ruleId: string;
  /** The rule's condition severity this policy stands for. */
  conditionSeverity: Severity;
  /** The severity after the policy's settings (what `kubegrace lint` would report). */
  severity: Severity;
  action: ValidationAction;
  kinds: readonly string[];
  policy: JsonObject;
  binding: JsonObject;
}

export interface ExportedMutation {
  ruleId: string;
  kinds: readonly string[];
  policy: JsonObject;
  binding: JsonObject;
}

export interface ExportResult {
  version: string;
  apis: AdmissionApis;
  validations: ExportedValidation[];
  mutations: ExportedMutation[];
  /** Rules enabled in the policy that were not exported, with the reason. */
  skipped: { ruleId: string; reason: string }[];
}

const RESOURCES: Record<string, { group: string; version: string; resource: string }> = {
  Pod: { group: '', version: 'v1', resource: 'pods' },
  Deployment: { group: 'apps', version: 'v1', resource: 'deployments' },
  StatefulSet: { group: 'apps', version: 'v1', resource: 'statefulsets' },
  DaemonSet: { group: 'apps', version: 'v1', resource: 'daemonsets' },
  ReplicaSet: { group: 'apps', version: 'v1', resource: 'replicasets' },
  Job: { group: 'batch', version: 'v1', resource: 'jobs' },
  CronJob: { group: 'batch', version: 'v1', resource: 'cronjobs' },
  PodDisruptionBudget: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' },
};

/** resourceRules for the kinds, grouped by API group (CREATE and UPDATE: what gets applied). */
export function resourceRules(kinds: readonly string[]): JsonObject[] {
  const byGroup = new Map<string, { version: string; resources: string[] }>();
  for (const k of kinds) {
    const r = RESOURCES[k];
    if (!r) throw new Error(`no resource known for kind ${k}`);
    let g = byGroup.get(r.group);
    if (!g) byGroup.set(r.group, (g = { version: r.version, resources: [] }));
    g.resources.push(r.resource);
  }
  return [...byGroup.entries()].map(([group, g]) => ({ apiGroups: [group], apiVersions: [g.version], operations: ['CREATE', 'UPDATE'], resources: g.resources }));
}

function applySetting(sev: Severity, s: RuleSetting | undefined): Severity {
  if (!s) return sev;
  if (s.severity) return s.severity;
  return s.remap?.[sev] ?? sev;
}

const LABELS = { 'app.kubernetes.io/managed-by': 'kubegrace' };

function isWorkloadSpec(kinds: readonly string[]): boolean {
  return !kinds.includes('PodDisruptionBudget');
}

function matchConditions(ruleId: string, kinds: readonly string[]): JsonObject[] {
  const workload = isWorkloadSpec(kinds);
  const out: JsonObject[] = [];
  if (workload) out.push({ name: 'not-managed-by-a-controller', expression: NOT_OWNED });
  out.push({ name: 'not-suppressed', expression: notSuppressed(ruleId, workload) });
  return out;
}

function variablesOf(spec: { kinds: readonly string[]; variables: CelVariable[] }): JsonObject[] {
  const all = isWorkloadSpec(spec.kinds) ? [...WORKLOAD_VARIABLES, ...spec.variables] : spec.variables;
  return all.map((v) => ({ name: v.name, expression: v.expression }));
}

function validationObjects(apiVersion: string, ruleId: string, spec: ValidationSpec, action: ValidationAction): { policy: JsonObject; binding: JsonObject } {
  const name = `kubegrace-${ruleId}-${spec.severity}`;
  const policy: JsonObject = {
    apiVersion,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, labels: { ...LABELS, 'kubegrace.dev/rule': ruleId } },
    spec: {
      // A CEL error must not block deployments: a linter's policy fails open (Ignore).
      failurePolicy: 'Ignore',
      matchConstraints: { resourceRules: resourceRules(spec.kinds) },
      matchConditions: matchConditions(ruleId, spec.kinds),
      variables: variablesOf(spec),
      validations: [{ expression: spec.expression, messageExpression: spec.messageExpression }, ...(spec.more ?? [])].map((v) => ({ expression: v.expression, messageExpression: v.messageExpression, reason: 'Invalid' })),
    },
  };
  const binding: JsonObject = {
    apiVersion,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name, labels: { ...LABELS, 'kubegrace.dev/rule': ruleId } },
    spec: { policyName: name, validationActions: [action] },
  };
  return { policy, binding };
}

function mutationObjects(apiVersion: string, ruleId: string, spec: MutationSpec): { policy: JsonObject; binding: JsonObject } {
  const name = `kubegrace-${ruleId}-repair`;
  const policy: JsonObject = {
    apiVersion,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name, labels: { ...LABELS, 'kubegrace.dev/rule': ruleId }, annotations: { 'kubegrace.dev/repair': spec.description } },
    spec: {
      failurePolicy: 'Ignore',
      matchConstraints: { resourceRules: resourceRules(spec.kinds) },
      matchConditions: matchConditions(ruleId, spec.kinds),
      variables: variablesOf(spec),
      // An empty patch list when nothing needs repairing: re-admission of a repaired object changes nothing.
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: `${spec.condition} ? ${spec.patch} : []` } }],
      // IfNeeded: a later mutation (a mesh injector adding a native sidecar, another policy raising
      // a preStop) changes what the repair must be; the repairs are idempotent (they only raise a
      // value to what the object needs, or set an absent field), so re-running converges.
      reinvocationPolicy: 'IfNeeded',
    },
  };
  const binding: JsonObject = {
    apiVersion,
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name, labels: { ...LABELS, 'kubegrace.dev/rule': ruleId } },
    spec: { policyName: name },
  };
  return { policy, binding };
}

/** Everything `kubegrace policy export` writes, for one policy and version. */
export function exportPolicies(opts: ExportOptions): ExportResult {
  const apis = admissionApis(opts.version);
  const result: ExportResult = { version: opts.version.toString(), apis, validations: [], mutations: [], skipped: [] };
  const wantValidate = opts.mode !== 'mutate';
  const wantMutate = opts.mode !== 'validate';
  if (wantValidate && !apis.validating) throw new ExportError(`ValidatingAdmissionPolicy needs Kubernetes >= 1.30 (admissionregistration.k8s.io/v1); --kube-version is ${opts.version.toString()}`);
  if (wantMutate && !apis.mutating) {
    if (opts.mode === 'mutate') throw new ExportError(`MutatingAdmissionPolicy needs Kubernetes >= 1.32 (v1alpha1; v1beta1 1.34, v1 1.36); --kube-version is ${opts.version.toString()}`);
  }
  for (const rule of opts.rules) {
    const id = rule.meta.id;
    const setting = opts.policy.rules.get(id);
    if (setting?.off) continue;
    const a = ADMISSION[id];
    if (!a) {
      result.skipped.push({ ruleId: id, reason: 'no admission translation (see kubegrace rules)' });
      continue;
    }
    const ctx: ExportContext = {
      params: { ...(rule.meta.defaults ?? {}), ...(setting?.params ?? {}) },
      paramsOf: (other) => ({ ...(opts.rules.find((r) => r.meta.id === other)?.meta.defaults ?? {}), ...(opts.policy.rules.get(other)?.params ?? {}) }),
      version: opts.version,
      rule,
      catalog: opts.policy.catalog ?? builtinCatalog(),
    };
    if (wantValidate && a.validate) {
      for (const spec of a.validate(ctx)) {
        const severity = applySetting(spec.severity, setting);
        const action = opts.action ?? DEFAULT_ACTIONS[severity];
        const { policy, binding } = validationObjects(apis.validating!, id, spec, action);
        result.validations.push({ ruleId: id, conditionSeverity: spec.severity, severity, action, kinds: spec.kinds, policy, binding });
      }
    }
    if (wantMutate && a.mutate && apis.mutating) {
      const spec = a.mutate(ctx);
      const { policy, binding } = mutationObjects(apis.mutating, id, spec);
      result.mutations.push({ ruleId: id, kinds: spec.kinds, policy, binding });
    }
    if ((!wantValidate || !a.validate) && (!wantMutate || !a.mutate || !apis.mutating)) result.skipped.push({ ruleId: id, reason: 'nothing to export in this mode or version' });
  }
  return result;
}
