/**
 * Which rules the admission policies carry, and how: for each exported rule, the CEL of every
 * condition that can be judged from the admitted object alone; for every other rule, why not.
 * The rules' own logic stays in lib/rules; test/admission proves the two agree by running both.
 */
import { lintSources } from '../engine/run';
import { Rule, Severity } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { WORKLOAD_KINDS } from '../model/workload';
import {
  ADDEND_VARIABLES,
  bind,
  addendSeconds,
  ann,
  DRAIN_SECONDS,
  execSleepSeconds,
  ExportError,
  MAX_SUMMED_SIDECARS,
  hintedPreStopSeconds,
  PRESTOP_HINT_VARIABLES,
  str,
} from './cel';

export interface CelVariable {
  name: string;
  expression: string;
}

/** One condition of a rule as a validation: `expression` is true when the object is fine. */
export interface ValidationSpec {
  /** The severity the rule reports for this condition (before the policy maps it). */
  severity: Severity;
  kinds: readonly string[];
  variables: CelVariable[];
  expression: string;
  messageExpression: string;
}

/** A safe repair (section 12) as JSON patches; `patch` evaluates to a list of JSONPatch. */
export interface MutationSpec {
  kinds: readonly string[];
  variables: CelVariable[];
  /** True when the repair applies (the rest of the time the policy does nothing). */
  condition: string;
  patch: string;
  description: string;
}

export interface ExportContext {
  params: Record<string, unknown>;
  version: KubeVersion;
  rule: Rule;
}

export interface RuleAdmission {
  /** Conditions exported as ValidatingAdmissionPolicies; absent when none can be. */
  validate?: (ctx: ExportContext) => ValidationSpec[];
  /** What the validations judge, when it is less than the whole rule. */
  restriction?: string;
  /** Why the rule (or its other conditions) is not validated at admission. */
  notValidated?: string;
  mutate?: (ctx: ExportContext) => MutationSpec;
  /** What the mutation can and cannot see. */
  mutateNote?: string;
}

const WORKLOADS = WORKLOAD_KINDS;
const ALL_CONTAINERS = '(variables.mains + variables.inits)';
const RUNNING = '(variables.mains + variables.sidecars)';

function prefix(ruleId: string, severity: Severity): string {
  return `'kubegrace ${ruleId} (${severity}): '`;
}

/** "container "x": " for the first container matching `pred` (a CEL predicate on `c`). */
function firstName(list: string, pred: string): string {
  return `'container "' + ${list}.filter(c, ${pred})[0].name + '"'`;
}

/** A non-negative double as whole seconds text. */
function secs(x: string): string {
  return `string(int(${x})) + 's'`;
}

/** ceil() of a non-negative double (CEL has no ceil in the libraries used here). */
function ceil(x: string): string {
  return `(int(${x}) + (double(int(${x})) < ${x} ? 1 : 0))`;
}

/** Σ of a list of numbers without a fold: unrolled over the first `bound` entries (the caller guards the size). */
function sumUnrolled(list: string, bound: number, zero: string): string {
  const terms: string[] = [];
  for (let i = 0; i < bound; i++) terms.push(`(size(${list}) > ${i} ? ${list}[${i}] : ${zero})`);
  return terms.join(' + ');
}

/** The largest entry of a list (or `none` when empty), with a nested scan the caller bounds by `size(list) <= bound`. */
function maxGuarded(list: string, bound: number, none: string): string {
  return `size(${list}) == 0 || size(${list}) > ${bound} ? ${none} : ${list}.filter(x, ${list}.all(y, y <= x))[0]`;
}

const SERVED_HINT = `${ann('kubegrace.dev/served')}.trim().lowerAscii() == 'true'`;

/**
 * Whether the linter judges the rule only on served workloads, asked of the linter itself: a
 * Deployment whose preStop sleep outlasts its grace period, alone in the input with no hint. When
 * it reports nothing, the exported policy judges only workloads with `kubegrace.dev/served: "true"`
 * (the one way an admitted object can say it is served).
 */
export function judgesOnlyServed(rule: Rule, version: KubeVersion): boolean {
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: probe}
spec:
  selector: {matchLabels: {app: probe}}
  template:
    metadata: {labels: {app: probe}}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: app
        image: example/app:1
        lifecycle: {preStop: {exec: {command: ["sleep", "40"]}}}
`;
  const r = lintSources([{ file: 'probe.yaml', text }], { rules: [rule], policy: { name: 'probe', rules: new Map(), customRules: [] }, version });
  return r.findings.length === 0;
}

/** Variables of grace-period-budget: per main container its preStop seconds, the drain and the addend. */
function budgetVariables(waitPatterns: string[]): CelVariable[] {
  return [
    ...PRESTOP_HINT_VARIABLES,
    { name: 'preStops', expression: `variables.mains.map(c, ${hintedPreStopSeconds('c', waitPatterns)})` },
    { name: 'drainDeclared', expression: annHasDrain() },
    { name: 'drain', expression: DRAIN_SECONDS },
    ...ADDEND_VARIABLES,
    { name: 'addend', expression: `size(variables.sidecars) > ${MAX_SUMMED_SIDECARS} ? -1.0 : ${addendSeconds()}` },
  ];
}

function annHasDrain(): string {
  const k = "'kubegrace.dev/drain-seconds'";
  return `(has(variables.podMeta.annotations) && ${k} in variables.podMeta.annotations) || (has(object.metadata.annotations) && ${k} in object.metadata.annotations)`;
}

function waitPatternsOf(ctx: ExportContext): string[] {
  const p = ctx.params.waitPatterns;
  if (!Array.isArray(p) || !p.every((x) => typeof x === 'string')) throw new ExportError('grace-period-budget: waitPatterns must be a list of strings');
  return p as string[];
}

/** Translates an image pattern to CEL: RE2 has no lookaround, so a leading `^(?!X)` becomes `!matches('^X')`. */
export function imagePattern(p: string, image: string): string {
  try {
    new RegExp(p);
  } catch {
    throw new ExportError(`image pattern ${JSON.stringify(p)} is not a regular expression; the linter matches it literally, which the policy cannot express`);
  }
  const m = /^\^\(\?!([^()]*)\)(.*)$/.exec(p);
  if (m && !/\(\?[=!<]/.test(m[2])) return `(!${image}.matches(${str('^' + m[1])}) && ${image}.matches(${str('^' + m[2])}))`;
  if (/\(\?[=!<]/.test(p)) throw new ExportError(`image pattern ${JSON.stringify(p)} uses lookaround, which RE2 (the API server's regex engine) does not support`);
  return `${image}.matches(${str(p)})`;
}

/** A label selector (`sel`, a CEL path) matching the pod template's labels (lib/model/selector matches). */
function selectsOwn(sel: string): string {
  const L = 'variables.labels';
  const expr =
    `e.operator == 'In' ? (e.key in ${L} && has(e.values) && ${L}[e.key] in e.values) : ` +
    `e.operator == 'NotIn' ? (!(e.key in ${L}) || !has(e.values) || !(${L}[e.key] in e.values)) : ` +
    `e.operator == 'Exists' ? e.key in ${L} : e.operator == 'DoesNotExist' ? !(e.key in ${L}) : false`;
  return `(has(${sel}) && (!has(${sel}.matchLabels) || ${sel}.matchLabels.all(k, k in ${L} && ${L}[k] == ${sel}.matchLabels[k])) && (!has(${sel}.matchExpressions) || ${sel}.matchExpressions.all(e, ${expr})))`;
}

/** An IntOrString rollout field resolved for `replicas` (section 4): percentages round up or down; unreadable is 0. */
function resolved(v: string, replicas: string, up: boolean): string {
  return bind(
    v,
    'iv',
    `type(iv) == int ? iv : type(iv) == string && iv.trim().matches('^[0-9]+%$') ? (int(iv.trim().substring(0, size(iv.trim()) - 1)) * ${replicas}${up ? ' + 99' : ''}) / 100 : 0`,
  );
}

/** Variables of spread-blocks-surge: the resolved rollout and the indexes of the blocking constraints and terms. */
function spreadVariables(version: KubeVersion): CelVariable[] {
  const ru = 'object.spec.strategy.rollingUpdate';
  const hasRu = 'has(object.spec.strategy) && has(object.spec.strategy.rollingUpdate)';
  const idx = `[${Array.from({ length: 16 }, (_, i) => i).join(', ')}]`;
  const affinityKeysOn = version.atLeast(1, 31);
  return [
    { name: 'labels', expression: 'has(variables.podMeta.labels) ? variables.podMeta.labels : {}' },
    { name: 'replicas', expression: 'has(object.spec.replicas) ? object.spec.replicas : 1' },
    { name: 'rolling', expression: "!has(object.spec.strategy) || !has(object.spec.strategy.type) || object.spec.strategy.type == 'RollingUpdate'" },
    { name: 'rawSurge', expression: resolved(`${hasRu} && has(${ru}.maxSurge) ? ${ru}.maxSurge : dyn('25%')`, 'variables.replicas', true) },
    { name: 'rawUnavailable', expression: resolved(`${hasRu} && has(${ru}.maxUnavailable) ? ${ru}.maxUnavailable : dyn('25%')`, 'variables.replicas', false) },
    { name: 'surge', expression: 'variables.rawSurge < 0 ? 0 : variables.rawSurge' },
    { name: 'unavailable', expression: 'variables.rawSurge == 0 && variables.rawUnavailable == 0 ? 1 : variables.rawUnavailable < 0 ? 0 : variables.rawUnavailable' },
    { name: 'surgeOnly', expression: 'variables.rolling && variables.replicas > 0 && variables.surge >= 1 && variables.unavailable == 0' },
    { name: 'tsc', expression: 'has(variables.podSpec.topologySpreadConstraints) ? variables.podSpec.topologySpreadConstraints : []' },
    {
      name: 'terms',
      expression:
        'has(variables.podSpec.affinity) && has(variables.podSpec.affinity.podAntiAffinity) && has(variables.podSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? variables.podSpec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution : []',
    },
    // Per entry whether it blocks (lists of bools, so that the repair can address entries by index).
    { name: 'tscBlocks', expression: `variables.tsc.map(c, ${blockingConstraint('c')})` },
    { name: 'termBlocks', expression: `variables.terms.map(t, ${blockingTerm('t', affinityKeysOn)})` },
    { name: 'blockingConstraints', expression: `${idx}.filter(i, i < size(variables.tscBlocks) && variables.tscBlocks[i])` },
    { name: 'blockingTerms', expression: `${idx}.filter(i, i < size(variables.termBlocks) && variables.termBlocks[i])` },
  ];
}

/** A DoNotSchedule spread constraint selecting the own pods without matchLabelKeys: [pod-template-hash] (counts from 1.27, below every target here). */
function blockingConstraint(c: string): string {
  return `((!has(${c}.whenUnsatisfiable) || ${c}.whenUnsatisfiable == 'DoNotSchedule') && ${selectsOwn(`${c}.labelSelector`)} && !(has(${c}.matchLabelKeys) && 'pod-template-hash' in ${c}.matchLabelKeys))`;
}

/** A required hostname anti-affinity term selecting the own pods, without matchLabelKeys where they count (>= 1.31). */
function blockingTerm(t: string, keysOn: boolean): string {
  return `(has(${t}.topologyKey) && ${t}.topologyKey == 'kubernetes.io/hostname' && ${selectsOwn(`${t}.labelSelector`)}${keysOn ? ` && !(has(${t}.matchLabelKeys) && 'pod-template-hash' in ${t}.matchLabelKeys)` : ''})`;
}

export const ADMISSION: Record<string, RuleAdmission> = {
  'grace-period-budget': {
    restriction:
      'judged from the workload alone: native sidecars in the manifest and mesh proxies whose native mode an annotation requests count as addends; a Namespace-level mesh injection does not (the policy does not read the Namespace); up to 16 native sidecars are summed, beyond that the warning is not judged; Go durations with fractions or units below a second in hints are not read',
    validate: (ctx) => {
      const patterns = waitPatternsOf(ctx);
      const served = judgesOnlyServed(ctx.rule, ctx.version);
      const gate = served ? `!(${SERVED_HINT}) || ` : '';
      const vars = budgetVariables(patterns).filter((v) => v.name !== 'preStops');
      const errPred = 'r.s >= 0.0 && r.s >= double(variables.grace)';
      // Each main container's name with its preStop seconds (a map of mixed types: dyn).
      const withRows: CelVariable = { name: 'rows', expression: `variables.mains.map(c, {'name': dyn(c.name), 's': dyn(${hintedPreStopSeconds('c', patterns)})})` };
      const warnPred =
        `(r.s >= 0.0 || (r.s == -1.0 && variables.drainDeclared)) && !(${errPred}) && ` +
        `variables.addend >= 0.0 && (r.s < 0.0 ? 0.0 : r.s) + variables.drain + variables.addend > double(variables.grace)`;
      return [
        {
          severity: 'error',
          kinds: WORKLOADS,
          variables: [...vars, withRows],
          expression: `${gate}variables.grace == 0 || !variables.rows.exists(r, ${errPred})`,
          messageExpression:
            `${prefix('grace-period-budget', 'error')} + 'container "' + variables.rows.filter(r, ${errPred})[0].name + '": preStop delay ' + ` +
            `${secs(`variables.rows.filter(r, ${errPred})[0].s`)} + ' >= terminationGracePeriodSeconds ' + string(variables.grace) + 's: the app gets only 2s after SIGTERM before SIGKILL'`,
        },
        {
          severity: 'warning',
          kinds: WORKLOADS,
          variables: [...vars, withRows],
          // A prestop-seconds hint that cannot be read is reported whatever routes to the pods.
          expression: `!variables.hookBad && (${gate}variables.grace == 0 || !variables.rows.exists(r, ${warnPred}))`,
          messageExpression:
            `${prefix('grace-period-budget', 'warning')} + (variables.hookBad ? 'kubegrace.dev/prestop-seconds cannot be read: write seconds ("25"), a duration ("25s") or name=seconds entries ("app=25,worker=40"); the hook is not judged' : 'container "' + variables.rows.filter(r, ${warnPred})[0].name + '": preStop ' + ` +
            `${secs(`(variables.rows.filter(r, ${warnPred})[0].s < 0.0 ? 0.0 : variables.rows.filter(r, ${warnPred})[0].s)`)} + ' + drain ' + ${secs('variables.drain')} + ' + addend ' + ${secs('variables.addend')} + ` +
            `' exceeds terminationGracePeriodSeconds ' + string(variables.grace) + 's: raise it to preStop + drain + addend + 5s')`,
        },
      ];
    },
    mutate: (ctx) => {
      const patterns = waitPatternsOf(ctx);
      const vars = budgetVariables(patterns);
      // neededGrace: the largest main-container preStop (0 without a hook; unknown delays skipped).
      const known: CelVariable = { name: 'known', expression: 'variables.preStops.filter(s, s != -2.0).map(s, s < 0.0 ? 0.0 : s)' };
      const maxS: CelVariable = {
        name: 'maxPreStop',
        // A max without a list library: bounded at 32 containers with a hook, so the nested scan stays small.
        expression: 'size(variables.known) == 0 || size(variables.known) > 32 ? -1.0 : variables.known.filter(x, variables.known.all(y, y <= x))[0]',
      };
      const need: CelVariable = { name: 'need', expression: `variables.maxPreStop < 0.0 || variables.addend < 0.0 ? 0 : ${ceil('variables.maxPreStop + variables.drain + variables.addend + 5.0')}` };
      const err = 'variables.preStops.exists(s, s >= 0.0 && s >= double(variables.grace))';
      const warn = `variables.preStops.exists(s, (s >= 0.0 || (s == -1.0 && variables.drainDeclared)) && (s < 0.0 ? 0.0 : s) + variables.drain + variables.addend > double(variables.grace))`;
      const path = "object.kind == 'Pod' ? '/spec/terminationGracePeriodSeconds' : object.kind == 'CronJob' ? '/spec/jobTemplate/spec/template/spec/terminationGracePeriodSeconds' : '/spec/template/spec/terminationGracePeriodSeconds'";
      return {
        kinds: WORKLOADS,
        variables: [...vars, known, maxS, need],
        condition: `variables.grace != 0 && variables.need > variables.grace && (${err} || ${warn})`,
        patch: `[JSONPatch{op: 'add', path: ${path}, value: variables.need}]`,
        description: 'raise terminationGracePeriodSeconds to the neediest main container\'s preStop + drain + addend + 5s (never lowers it)',
      };
    },
    mutateNote: 'raises the grace period whether or not a Service routes to the pods: preStop + drain must fit the grace period either way',
  },
  'zero-grace-period': {
    validate: () => [
      {
        severity: 'error',
        kinds: ['StatefulSet'],
        variables: [],
        expression: 'variables.grace != 0',
        messageExpression: `${prefix('zero-grace-period', 'error')} + 'terminationGracePeriodSeconds is 0 on a StatefulSet: the replacement with the same identity and volume can start while the old pod still runs; remove the field (default 30s) or set it to preStop + drain + 5s'`,
      },
      {
        severity: 'warning',
        kinds: WORKLOADS.filter((k) => k !== 'StatefulSet'),
        variables: [],
        expression: 'variables.grace != 0',
        messageExpression: `${prefix('zero-grace-period', 'warning')} + 'terminationGracePeriodSeconds is 0: preStop hooks are skipped and the app gets only 2s between SIGTERM and SIGKILL; remove the field (default 30s) or set it to preStop + drain + 5s'`,
      },
    ],
  },
  'prestop-handler': {
    validate: () => {
      const tcp = 'has(c.lifecycle) && has(c.lifecycle.preStop) && has(c.lifecycle.preStop.tcpSocket)';
      const http = 'has(c.lifecycle) && has(c.lifecycle.preStop) && has(c.lifecycle.preStop.httpGet) && !has(c.lifecycle.preStop.tcpSocket)';
      return [
        {
          severity: 'error',
          kinds: WORKLOADS,
          variables: [],
          expression: `!${ALL_CONTAINERS}.exists(c, ${tcp})`,
          messageExpression: `${prefix('prestop-handler', 'error')} + ${firstName(ALL_CONTAINERS, tcp)} + ': preStop tcpSocket is deprecated and fails at runtime, so it never delays SIGTERM; use lifecycle: {preStop: {sleep: {seconds: 10}}}'`,
        },
        {
          severity: 'info',
          kinds: WORKLOADS,
          variables: [],
          expression: `!${ALL_CONTAINERS}.exists(c, ${http})`,
          messageExpression: `${prefix('prestop-handler', 'info')} + ${firstName(ALL_CONTAINERS, http)} + ': preStop httpGet blocks termination until it answers, a failure only emits FailedPreStopHook, and it may be delivered more than once'`,
        },
      ];
    },
  },
  'prestop-sleep-action': {
    restriction: 'the warning (exec sleep in a shell-less image) only',
    notValidated:
      'the info condition depends on a Service routing to the container (served); the error conditions (sleep action on < 1.30, sleep.seconds out of range) are rejected by the API server\'s own validation, which runs before validating admission',
    validate: (ctx) => {
      const patterns = ctx.params.shellLessImagePatterns;
      if (!Array.isArray(patterns) || !patterns.every((p) => typeof p === 'string')) throw new ExportError('prestop-sleep-action: shellLessImagePatterns must be a list of strings');
      const img = 'c.image';
      const shellLess = (patterns as string[]).map((p) => imagePattern(p, img)).join(' || ') || 'false';
      const pred = `has(c.image) && c.image != '' && (${shellLess}) && ${execSleepSeconds('c')} >= 0.0`;
      return [
        {
          severity: 'warning',
          kinds: WORKLOADS,
          variables: [],
          expression: `!${RUNNING}.exists(c, ${pred})`,
          messageExpression: `${prefix('prestop-sleep-action', 'warning')} + ${firstName(RUNNING, pred)} + ': preStop exec sleep cannot run in the shell-less image "' + ${RUNNING}.filter(c, ${pred})[0].image + '": the hook fails and SIGTERM is sent at once; use lifecycle: {preStop: {sleep: {seconds: N}}}'`,
        },
      ];
    },
  },
  'startup-probe': {
    restriction: 'the info condition (long liveness initialDelaySeconds without a startupProbe) only',
    notValidated: 'the error condition (terminationGracePeriodSeconds on a readinessProbe) is rejected by the API server\'s own validation, which runs before validating admission',
    validate: (ctx) => {
      const t = Number(ctx.params.initialDelayThreshold);
      if (!Number.isFinite(t)) throw new ExportError('startup-probe: initialDelayThreshold must be a number');
      const pred = `has(c.livenessProbe) && has(c.livenessProbe.initialDelaySeconds) && c.livenessProbe.initialDelaySeconds >= ${Math.ceil(t)} && !has(c.startupProbe)`;
      return [
        {
          severity: 'info',
          kinds: WORKLOADS,
          variables: [],
          expression: `!${RUNNING}.exists(c, ${pred})`,
          messageExpression: `${prefix('startup-probe', 'info')} + ${firstName(RUNNING, pred)} + ': livenessProbe waits initialDelaySeconds ' + string(${RUNNING}.filter(c, ${pred})[0].livenessProbe.initialDelaySeconds) + 's instead of using a startupProbe; add a startupProbe with the same check'`,
        },
      ];
    },
  },
  'statefulset-partition': {
    restriction: 'judged against spec.replicas: an HPA\'s maxReplicas (which the linter uses when an HPA targets the StatefulSet) is not visible at admission',
    validate: () => {
      const rolling = "(!has(object.spec.updateStrategy) || !has(object.spec.updateStrategy.type) || object.spec.updateStrategy.type == 'RollingUpdate')";
      const part = '(has(object.spec.updateStrategy) && has(object.spec.updateStrategy.rollingUpdate) && has(object.spec.updateStrategy.rollingUpdate.partition) ? object.spec.updateStrategy.rollingUpdate.partition : 0)';
      const replicas = '(has(object.spec.replicas) ? object.spec.replicas : 1)';
      return [
        {
          severity: 'warning',
          kinds: ['StatefulSet'],
          variables: [],
          expression: `!${rolling} || ${part} <= 0 || ${part} < ${replicas}`,
          messageExpression: `${prefix('statefulset-partition', 'warning')} + 'rollingUpdate.partition ' + string(${part}) + ' >= replicas ' + string(${replicas}) + ': template changes never reach any pod; set partition to 0 once the staged rollout is done'`,
        },
        {
          severity: 'info',
          kinds: ['StatefulSet'],
          variables: [],
          expression: `!${rolling} || ${part} <= 0 || ${part} >= ${replicas}`,
          messageExpression: `${prefix('statefulset-partition', 'info')} + 'rollingUpdate.partition ' + string(${part}) + ' with replicas ' + string(${replicas}) + ': a staged (canary) update is left in the manifest; finish the rollout and set partition to 0'`,
        },
      ];
    },
  },
  'statefulset-ordered-ready': {
    restriction: 'judged against spec.replicas: an HPA\'s minReplicas (which the linter uses when an HPA targets the StatefulSet) is not visible at admission',
    validate: (ctx) => {
      const min = typeof ctx.params.minReplicas === 'number' ? ctx.params.minReplicas : 2;
      const pmp = "(has(object.spec.podManagementPolicy) ? object.spec.podManagementPolicy : 'OrderedReady')";
      const type = "(has(object.spec.updateStrategy) && has(object.spec.updateStrategy.type) ? object.spec.updateStrategy.type : 'RollingUpdate')";
      const replicas = '(has(object.spec.replicas) ? object.spec.replicas : 1)';
      return [
        {
          severity: 'info',
          kinds: ['StatefulSet'],
          variables: [],
          expression: `${pmp} != 'OrderedReady' || ${type} != 'RollingUpdate' || ${replicas} < ${Math.ceil(min)} || ${replicas} == 0`,
          messageExpression: `${prefix('statefulset-ordered-ready', 'info')} + 'podManagementPolicy OrderedReady with updateStrategy RollingUpdate and replicas ' + string(${replicas}) + ': a revision that never becomes Ready stops the rollout, and reverting the template does not heal it (kubernetes/kubernetes#67250); keep a runbook that reverts and then deletes the stuck pods'`,
        },
      ];
    },
  },
  'progress-deadline': {
    notValidated:
      'the error (progressDeadlineSeconds <= minReadySeconds) is rejected by the API server\'s own validation before validating admission runs, so it is exported as the repair, which runs before that validation; the warning (too short for a realistic step) is advice with cluster-specific numbers',
    mutate: (ctx) => {
      const pull = Number(ctx.params.imagePullSeconds ?? 60);
      const gate = Number(ctx.params.readinessGateSeconds ?? 60);
      if (!Number.isInteger(pull) || !Number.isInteger(gate)) throw new ExportError('progress-deadline: imagePullSeconds and readinessGateSeconds must be integers');
      // The startup-probe budget (initialDelaySeconds + failureThreshold x periodSeconds, defaults 0/3/10).
      const budget = (c: string) =>
        `((has(${c}.startupProbe.initialDelaySeconds) ? ${c}.startupProbe.initialDelaySeconds : 0) + (has(${c}.startupProbe.failureThreshold) ? ${c}.startupProbe.failureThreshold : 3) * (has(${c}.startupProbe.periodSeconds) ? ${c}.startupProbe.periodSeconds : 10))`;
      const vars: CelVariable[] = [
        { name: 'minReady', expression: 'has(object.spec.minReadySeconds) ? object.spec.minReadySeconds : 0' },
        { name: 'deadline', expression: 'has(object.spec.progressDeadlineSeconds) ? object.spec.progressDeadlineSeconds : 600' },
        { name: 'sidecarStartups', expression: `variables.sidecars.filter(c, has(c.startupProbe)).map(c, ${budget('c')})` },
        { name: 'mainStartups', expression: `variables.mains.filter(c, has(c.startupProbe)).map(c, ${budget('c')})` },
        {
          name: 'step',
          // Native sidecars start one after another (their budgets add up), main containers together (the largest counts).
          expression:
            `size(variables.sidecarStartups) > ${MAX_SUMMED_SIDECARS} || size(variables.mainStartups) > 32 ? -1 : ` +
            `variables.minReady + ${pull} + ${sumUnrolled('variables.sidecarStartups', MAX_SUMMED_SIDECARS, '0')} + (${maxGuarded('variables.mainStartups', 32, '0')}) + ` +
            `(has(variables.podSpec.readinessGates) && size(variables.podSpec.readinessGates) > 0 ? ${gate} : 0)`,
        },
        { name: 'need', expression: 'variables.step > variables.minReady + 1 ? variables.step : variables.minReady + 1' },
      ];
      return {
        kinds: ['Deployment'],
        variables: vars,
        condition: 'variables.step >= 0 && variables.deadline <= variables.minReady',
        patch: "[JSONPatch{op: 'add', path: '/spec/progressDeadlineSeconds', value: variables.need}]",
        description: 'raise progressDeadlineSeconds above minReadySeconds (to minReadySeconds + image pull + startup probes + readiness gates), which the API server would otherwise reject',
      };
    },
    mutateNote: 'runs before the API server\'s validation, so a Deployment it would reject is admitted repaired',
  },
  'spread-blocks-surge': {
    restriction:
      'the warning, judged against spec.replicas: when an HPA targets the Deployment the linter resolves the surge with its minReplicas, which is not visible at admission. The minDomains conditions are not validated: the API server rejects minDomains without DoNotSchedule itself, and the info concerns versions before 1.27',
    validate: (ctx) => [
      {
        severity: 'warning',
        kinds: ['Deployment'],
        variables: spreadVariables(ctx.version),
        expression: '!variables.surgeOnly || !(variables.tscBlocks.exists(b, b) || variables.termBlocks.exists(b, b))',
        messageExpression:
          `${prefix('spread-blocks-surge', 'warning')} + (variables.tscBlocks.exists(b, b) ? 'a DoNotSchedule topologySpreadConstraint' : 'a required pod anti-affinity on kubernetes.io/hostname') + ` +
          `' counts old and new pods together while the rollout surges ' + string(variables.surge) + ' pod(s) and takes none down first: the surge pod can stay Pending and the rollout stall; add matchLabelKeys: [pod-template-hash]'`,
      },
    ],
    mutate: (ctx) => {
      const keysOnAffinity = ctx.version.atLeast(1, 31);
      const base = '/spec/template/spec';
      const tscPatch = `variables.blockingConstraints.map(i, has(variables.tsc[i].matchLabelKeys) ? JSONPatch{op: 'add', path: '${base}/topologySpreadConstraints/' + string(i) + '/matchLabelKeys/-', value: 'pod-template-hash'} : JSONPatch{op: 'add', path: '${base}/topologySpreadConstraints/' + string(i) + '/matchLabelKeys', value: ['pod-template-hash']})`;
      const termPatch = `variables.blockingTerms.map(i, has(variables.terms[i].matchLabelKeys) ? JSONPatch{op: 'add', path: '${base}/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/' + string(i) + '/matchLabelKeys/-', value: 'pod-template-hash'} : JSONPatch{op: 'add', path: '${base}/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/' + string(i) + '/matchLabelKeys', value: ['pod-template-hash']})`;
      return {
        kinds: ['Deployment'],
        variables: spreadVariables(ctx.version),
        // Constraints and terms are addressed by index (no two-variable comprehensions): up to 16 each.
        condition: `variables.surgeOnly && size(variables.tsc) <= 16 && size(variables.terms) <= 16 && (size(variables.blockingConstraints) > 0${keysOnAffinity ? ' || size(variables.blockingTerms) > 0' : ''})`,
        patch: keysOnAffinity ? `${tscPatch} + ${termPatch}` : tscPatch,
        description: `add matchLabelKeys: [pod-template-hash] to the DoNotSchedule spread constraints${keysOnAffinity ? ' and required hostname anti-affinity terms' : ''} that block a surge-only rollout`,
      };
    },
    mutateNote: 'on 1.30 only the spread constraints are repaired (matchLabelKeys on pod affinity terms is on from 1.31; the linter proposes preferred scheduling instead, which is not a safe repair)',
  },
  'pdb-unhealthy-eviction-policy': {
    notValidated: 'advice (info) about a PodDisruptionBudget; exported as the safe repair only',
    mutate: () => ({
      kinds: ['PodDisruptionBudget'],
      variables: [],
      condition: '!has(object.spec.unhealthyPodEvictionPolicy)',
      patch: "[JSONPatch{op: 'add', path: '/spec/unhealthyPodEvictionPolicy', value: 'AlwaysAllow'}]",
      description: 'set unhealthyPodEvictionPolicy: AlwaysAllow on PodDisruptionBudgets that do not set it',
    }),
    mutateNote:
      'a PodDisruptionBudget is admitted without the pods it selects, so the policy cannot tell a data store (where section 12 keeps IfHealthyBudget, and the linter offers no repair) from a stateless app: it repairs every PDB that leaves the field unset. Opt a data store\'s PDB out with kubegrace.dev/ignore: pdb-unhealthy-eviction-policy, or set IfHealthyBudget explicitly (never changed)',
  },
};

const NEEDS_OTHERS = 'needs other objects than the admitted one';

/** Why each rule without an ADMISSION entry is not exported (the default says so, too). */
export const NOT_EXPORTED: Record<string, string> = {
  'prestop-missing': `${NEEDS_OTHERS}: which containers serve a Service port (Services)`,
  'grace-exceeds-external-deadline': 'advice about cluster-level deadlines (autoscaler, node shutdown) that the policy cannot read',
  'readiness-probe-missing': `${NEEDS_OTHERS}: which containers a Service routes to`,
  'liveness-equals-readiness': 'compares whole probe handlers (headers, query strings) and the catalog of process-local handlers: not expressible in the CEL subset used',
  'probe-port': 'a nested comprehension over containers x probes x ports, which the cost rule of the export avoids',
  'selector-mismatch': 'the API server\'s own validation rejects it before validating admission runs',
  'rollout-full-outage': `${NEEDS_OTHERS}: served status (Services) and an HPA's minReplicas`,
  'surge-volume-deadlock': `${NEEDS_OTHERS}: the PersistentVolumeClaims' access modes`,
  'min-ready-seconds': `${NEEDS_OTHERS}: served status, external load balancers, HPA replicas; and the reconnect model`,
  'recreate-strategy': `${NEEDS_OTHERS}: served status (Services) and the PVCs`,
  'statefulset-max-unavailable': 'the API server drops maxUnavailable where MaxUnavailableStatefulSet is off and rejects 0 where it is on, both before validating admission',
  'pdb-missing': `${NEEDS_OTHERS}: PodDisruptionBudgets and HPAs`,
  'pdb-blocks-eviction': `${NEEDS_OTHERS}: the replicas of the workloads a PDB selects and HPAs`,
  'pdb-selector': `${NEEDS_OTHERS}: the workloads and other PDBs a selector matches`,
  'hpa-replicas': `${NEEDS_OTHERS}: HorizontalPodAutoscalers`,
  'lb-readiness-gate': `${NEEDS_OTHERS}: Services, Ingresses, TargetGroupBindings and the Namespace`,
  'lb-deregistration-delay': `${NEEDS_OTHERS}: load-balancer Services and Ingresses`,
  'gke-neg-readiness': `${NEEDS_OTHERS}: NEG Services`,
  'service-selector-ports': `${NEEDS_OTHERS}: a Service and the workloads it selects`,
  'headless-publish-not-ready': `${NEEDS_OTHERS}: the StatefulSet's Services`,
  'external-traffic-local': `${NEEDS_OTHERS}: a LoadBalancer/NodePort Service and the workloads behind it`,
  'native-sidecar': 'the error (restartPolicy: Always where native sidecars are off) concerns versions before 1.29, below the 1.30 minimum of ValidatingAdmissionPolicy; the info/warning need the catalog of shutdown-critical helpers',
  'native-sidecar-grace-budget': 'needs the sum of all native sidecars\' drains against each main container\'s budget; not yet translated',
  'linkerd-proxy-drain': 'reads Linkerd settings from the Namespace too; not yet translated',
  'istio-proxy-drain': 'needs the proxy.istio.io/config annotation parsed as YAML, which CEL cannot do',
  'daemonset-surge': 'recognises node-level proxies from the catalog of well-known workloads; not yet translated',
  'replicas-not-spread': `${NEEDS_OTHERS}: served status and HPA minReplicas`,
  'surge-resource-deadlock': `${NEEDS_OTHERS}: HPA minReplicas decide the resolved surge; and the classification of extended resources (quantities, which the CEL subset used cannot compare)`,
  'webhook-backend-availability': `${NEEDS_OTHERS}: the webhook configuration or APIService, the backing Service, workload and PDBs`,
};

export interface AdmissionSupport {
  validate: boolean;
  mutate: boolean;
  /** Restrictions or reasons, for `kubegrace rules` and the docs. */
  note: string;
}

/** How a rule is carried into the cluster: the single source for `kubegrace rules` and the docs. */
export function admissionSupport(ruleId: string): AdmissionSupport {
  const a = ADMISSION[ruleId];
  if (!a) return { validate: false, mutate: false, note: NOT_EXPORTED[ruleId] ?? 'not exported: no CEL translation of this rule exists yet' };
  const notes = [a.restriction, a.notValidated && `not validated: ${a.notValidated}`, a.mutateNote && `repair: ${a.mutateNote}`].filter(Boolean);
  return { validate: !!a.validate, mutate: !!a.mutate, note: notes.length ? notes.join('; ') : 'every condition, judged from the admitted object alone' };
}
