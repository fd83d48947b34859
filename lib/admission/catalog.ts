/**
 * Which rules the admission policies carry, and how: for each exported rule, the CEL of every
 * condition that can be judged from the admitted object alone; for every other rule, why not.
 * The rules' own logic stays in lib/rules; test/admission proves the two agree by running both.
 */
import { Catalog } from '../catalog';
import { lintSources } from '../engine/run';
import { Rule, Severity } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { METRICS_PORT, OPERATOR_PORT } from '../model/graph';
import { PAUSE_IMAGE, SHELL_PROGRAM, SLEEP_FOREVER_SCRIPT, SLEEP_PROGRAM, TAIL_PROGRAM } from '../model/idle';
import { WORKLOAD_KINDS } from '../model/workload';
import { OPEN_LABEL_NAMESPACES, WELL_KNOWN_NODE_LABELS } from '../rules/mesh-util';
import { ACCELERATOR_PATTERNS } from '../rules/surge-resource-deadlock';
import { PROCESS_CHECK_SCRIPT, SHELL as PROCESS_CHECK_SHELL, SHELL_C as PROCESS_CHECK_SHELL_C } from '../rules/liveness-equals-readiness';
import { HEALTH_PROBE_BIND, HEALTH_SIDECAR_IMAGE, LOOPBACK_HOST, LOOPBACK_PROBE_BIND, SPLIT_HOST_FLAGS, SPLIT_PORT_FLAGS } from '../rules/probe-port';
import { VACUOUS_EXEC } from '../rules/readiness-probe-missing';
import { PLATFORM_KEYS } from '../rules/spread-blocks-surge';
import { DEFAULT_WAIT_PATTERNS } from '../timeline/prestop';
import { shellLessPatterns } from '../timeline/shell-less';
import {
  ADDEND_VARIABLES,
  annHas,
  bind,
  addendSeconds,
  ann,
  answersFromStart,
  DRAIN_SECONDS,
  SERVES_AFTER_SECONDS,
  execSleepSeconds,
  ExportError,
  goDurationSeconds,
  preStopSeconds,
  MAX_JUDGED_CONTAINERS,
  MAX_SUMMED_SIDECARS,
  hintedPreStopSeconds,
  decodeStopFirst,
  PRESTOP_HINT_VARIABLES,
  singleVersionMatch,
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
  /**
   * Further validations of the same policy, for another condition of the rule at the same severity
   * (each an expression of its own, so each keeps its own cost; the policy fires when any fails).
   */
  more?: { expression: string; messageExpression: string }[];
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
  /** Another rule's params (its defaults merged with the policy's), as the linter's RuleContext.paramsOf. */
  paramsOf(ruleId: string): Record<string, unknown>;
  version: KubeVersion;
  rule: Rule;
  /** The policy's catalog of well-known workloads (its preStop programs have known delays). */
  catalog: Catalog;
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

/**
 * A container that does no work a termination can interrupt (lib/model/idle.ts isIdleContainer, the
 * same patterns): the pause image with its own entrypoint, or `sleep infinity`, `tail -f /dev/null`,
 * or `sh -c` with only one of those, as its whole command line. A CEL predicate on `c`.
 */
function idle(c = 'c'): string {
  const argv = `(${c}.command + (has(${c}.args) ? ${c}.args : []))`;
  const noCommand = `(!has(${c}.command) || size(${c}.command) == 0)`;
  const noArgs = `(!has(${c}.args) || size(${c}.args) == 0)`;
  return (
    `(${noCommand} ? (${noArgs} && has(${c}.image) && ${c}.image.matches(${str(PAUSE_IMAGE.source)})) : ` +
    `size(${argv}) == 2 ? (${argv}[0].matches(${str(SLEEP_PROGRAM.source)}) && ${argv}[1] in ['infinity', 'inf']) : ` +
    `size(${argv}) == 3 && (${argv}[0].matches(${str(TAIL_PROGRAM.source)}) ? (${argv}[1] == '-f' && ${argv}[2] == '/dev/null') : ` +
    `(${argv}[0].matches(${str(SHELL_PROGRAM.source)}) && ${argv}[1] == '-c' && ${argv}[2].matches(${str(SLEEP_FOREVER_SCRIPT.source)}))))`
  );
}

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

/** lb-util isHelmTestHook: every phase of the object's helm.sh/hook annotation is a test one. */
const HELM_TEST_HOOK = "(has(object.metadata.annotations) && 'helm.sh/hook' in object.metadata.annotations && object.metadata.annotations['helm.sh/hook'].split(',').filter(x, x.trim() != '').size() > 0 && object.metadata.annotations['helm.sh/hook'].split(',').filter(x, x.trim() != '').all(x, x.trim().startsWith('test')))";

/**
 * lb-util passingHelmHook: a helm.sh/hook object that is not a servingHelmHook (a Deployment,
 * StatefulSet, DaemonSet or ReplicaSet hook of some phase other than pre-delete and post-delete,
 * not all test phases, without hook-succeeded in its helm.sh/hook-delete-policy).
 */
const HELM_HOOK_PHASES = "object.metadata.annotations['helm.sh/hook'].split(',').filter(x, x.trim() != '')";
const HELM_PASSING_HOOK =
  "(has(object.metadata.annotations) && 'helm.sh/hook' in object.metadata.annotations && !(" +
  "object.kind in ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'] && " +
  `${HELM_HOOK_PHASES}.exists(x, !(x.trim() in ['pre-delete', 'post-delete'])) && !${HELM_HOOK_PHASES}.all(x, x.trim().startsWith('test')) && ` +
  "!('helm.sh/hook-delete-policy' in object.metadata.annotations && object.metadata.annotations['helm.sh/hook-delete-policy'].split(',').exists(x, x.trim() == 'hook-succeeded'))))";

/**
 * lb-util recreatedHelmHook: a serving Helm hook (not HELM_PASSING_HOOK) of an upgrade or rollback
 * phase whose delete policy includes before-hook-creation or is absent (Helm's default), which Helm
 * deletes and creates anew at each of those phases. Phases and policies lower-cased, as Helm reads them.
 */
const HELM_RECREATED_HOOK =
  "(has(object.metadata.annotations) && 'helm.sh/hook' in object.metadata.annotations && !" + HELM_PASSING_HOOK + " && " +
  `${HELM_HOOK_PHASES}.exists(x, x.trim().lowerAscii() in ['pre-upgrade', 'post-upgrade', 'pre-rollback', 'post-rollback']) && ` +
  "(!('helm.sh/hook-delete-policy' in object.metadata.annotations) || object.metadata.annotations['helm.sh/hook-delete-policy'].split(',').exists(x, x.trim().lowerAscii() == 'before-hook-creation')))";

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

/** Variables of grace-period-budget: the hint, the drain and the addend (per main container: budgetRows). */
function budgetVariables(): CelVariable[] {
  return [
    ...PRESTOP_HINT_VARIABLES,
    { name: 'drainDeclared', expression: annHasDrain() },
    { name: 'drain', expression: DRAIN_SECONDS },
    // The user's kubegrace.dev/serves-after-sigterm-seconds hint: time the app keeps serving after SIGTERM (lib/timeline/serves-after-sigterm.ts).
    { name: 'servesAfter', expression: SERVES_AFTER_SECONDS },
    ...ADDEND_VARIABLES,
    { name: 'addend', expression: `size(variables.sidecars) > ${MAX_SUMMED_SIDECARS} ? -1.0 : ${addendSeconds()}` },
  ];
}

/**
 * Each main container's name, its preStop seconds `s` and, for a hook that signals the app before it
 * sleeps, that sleep `w` (else -1.0): a map of mixed types (dyn). lib/timeline/schedule reads the
 * drain of such a container as at least its sleep (ROW_DRAIN).
 */
function budgetRows(waitPatterns: string[], catalog: Catalog, shellLess: string): CelVariable {
  return {
    name: 'rows',
    expression: `size(variables.mains) > ${MAX_JUDGED_CONTAINERS} ? [] : variables.mains.map(c, ${bind(hintedPreStopSeconds('c', waitPatterns, catalog, shellLess, true), 'ps', `{'name': dyn(c.name), ${decodeStopFirst('ps')}}`)})`,
  };
}

/** The drain of row `r` (budgetRows): the workload's, or the sleep of a signal-first hook when longer. */
const ROW_DRAIN = '(r.w > variables.drain ? r.w : variables.drain)';

function annHasDrain(): string {
  const k = "'kubegrace.dev/drain-seconds'";
  return `(has(variables.podMeta.annotations) && ${k} in variables.podMeta.annotations) || (has(object.metadata.annotations) && ${k} in object.metadata.annotations)`;
}

/**
 * prestop-sleep-action's shellLessImagePatterns as a CEL predicate on `c.image`: grace-period-budget
 * counts an exec sleep in such an image as no hook, as the linter does (lib/timeline/shell-less).
 */
function shellLessImageOf(ctx: ExportContext): string {
  return shellLessPatterns(ctx.paramsOf('prestop-sleep-action'))
    .map((p) => imagePattern(p, 'c.image'))
    .join(' || ') || 'false';
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

/**
 * Variables of spread-blocks-surge: the resolved rollout and the indexes of the blocking constraints
 * and terms; with `hostPorts`, whether the pod binds host ports (validation only: the repair adds
 * matchLabelKeys, which host ports do not concern).
 */
function spreadVariables(version: KubeVersion, hostPorts = false): CelVariable[] {
  const ru = 'object.spec.strategy.rollingUpdate';
  const hasRu = 'has(object.spec.strategy) && has(object.spec.strategy.rollingUpdate)';
  const idx = `[${Array.from({ length: 16 }, (_, i) => i).join(', ')}]`;
  const affinityKeysOn = version.atLeast(1, 31);
  const vars: CelVariable[] = [
    { name: 'labels', expression: 'has(variables.podMeta.labels) ? variables.podMeta.labels : {}' },
    { name: 'replicas', expression: 'has(object.spec.replicas) ? object.spec.replicas : 1' },
    { name: 'rolling', expression: "!has(object.spec.strategy) || !has(object.spec.strategy.type) || object.spec.strategy.type in ['RollingUpdate', '']" },
    { name: 'rawSurge', expression: resolved(`${hasRu} && has(${ru}.maxSurge) ? ${ru}.maxSurge : dyn('25%')`, 'variables.replicas', true) },
    { name: 'rawUnavailable', expression: resolved(`${hasRu} && has(${ru}.maxUnavailable) ? ${ru}.maxUnavailable : dyn('25%')`, 'variables.replicas', false) },
    { name: 'surge', expression: 'variables.rawSurge < 0 ? 0 : variables.rawSurge' },
    { name: 'unavailable', expression: 'variables.rawSurge == 0 && variables.rawUnavailable == 0 ? 1 : variables.rawUnavailable < 0 ? 0 : variables.rawUnavailable' },
    { name: 'surgeOnly', expression: "object.kind == 'Deployment' && variables.rolling && variables.replicas > 0 && variables.surge >= 1 && variables.unavailable == 0" },
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
  if (!hostPorts) return vars;
  return [
    ...vars,
    // lib/rules/spread-blocks-surge oneReplicaAnyNode: one replica that may run on any node needs only a
    // second node for its surge pod (an info there, so no warning here), on hostname terms and host ports.
    {
      name: 'anyNode',
      expression:
        `variables.replicas == 1 && (!has(variables.podSpec.nodeSelector) || variables.podSpec.nodeSelector.all(k, k in ${JSON.stringify(PLATFORM_KEYS).replace(/"/g, "'")})) && !(has(variables.podSpec.affinity) && has(variables.podSpec.affinity.nodeAffinity) && has(variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution))`,
    },
    { name: 'termWarns', expression: `variables.terms.map(t, ${blockingTerm('t', affinityKeysOn)} && !(variables.anyNode && t.topologyKey == 'kubernetes.io/hostname'))` },
    // DoNotSchedule constraints on a reserved key that is no well-known node label (any workload kind).
    { name: 'unknownKeys', expression: `variables.tsc.filter(c, (!has(c.whenUnsatisfiable) || c.whenUnsatisfiable == 'DoNotSchedule') && has(c.topologyKey) && type(c.topologyKey) == string && ${unknownReservedKey('c.topologyKey')})` },
    // lib/rules/mesh-util hostPortBindings: a hostPort > 0, or any declared port under hostNetwork (defaulted to a host port).
    { name: 'hostNetwork', expression: 'has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true' },
    {
      name: 'hostPorts',
      expression: `${RUNNING}.exists(c, has(c.ports) && c.ports.exists(p, (has(p.hostPort) && type(p.hostPort) == int && p.hostPort > 0) || (variables.hostNetwork && has(p.containerPort) && type(p.containerPort) == int)))`,
    },
  ];
}

/**
 * lib/rules/mesh-util unknownReservedKey (without the key it likely meant): a key with a prefix under
 * kubernetes.io or exactly k8s.io, not a well-known node label, outside the namespaces where admins and
 * projects name node labels.
 */
function unknownReservedKey(k: string): string {
  const known = `[${[...WELL_KNOWN_NODE_LABELS].map(str).join(', ')}]`;
  const open = [...OPEN_LABEL_NAMESPACES.withSubdomains.flatMap((n) => [`d == ${str(n)}`, `d.endsWith(${str(`.${n}`)})`]), ...OPEN_LABEL_NAMESPACES.exact.map((n) => `d == ${str(n)}`)].join(' || ');
  return `(${k}.indexOf('/') > 0 && !(${k} in ${known}) && [${k}.substring(0, ${k}.indexOf('/'))].map(d, (d == 'kubernetes.io' || d == 'k8s.io' || d.endsWith('.kubernetes.io')) && !(${open}))[0])`;
}

/** A DoNotSchedule spread constraint selecting the own pods without matchLabelKeys: [pod-template-hash] (counts from 1.27, below every target here). */
function blockingConstraint(c: string): string {
  return `((!has(${c}.whenUnsatisfiable) || ${c}.whenUnsatisfiable == 'DoNotSchedule') && ${selectsOwn(`${c}.labelSelector`)} && !(has(${c}.matchLabelKeys) && 'pod-template-hash' in ${c}.matchLabelKeys))`;
}

/** A required hostname or zone anti-affinity term selecting the own pods, without matchLabelKeys where they count (>= 1.31). */
function blockingTerm(t: string, keysOn: boolean): string {
  return `(has(${t}.topologyKey) && ${t}.topologyKey in ['kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'] && ${selectsOwn(`${t}.labelSelector`)}${keysOn ? ` && !(has(${t}.matchLabelKeys) && 'pod-template-hash' in ${t}.matchLabelKeys)` : ''})`;
}

/** A JS regular expression used case-insensitively, as an RE2 pattern literal (`(?i)` flag). */
function ci(re: RegExp): string {
  return str(`(?i)${re.source}`);
}

/** A user-given pattern matched case-insensitively (RE2 has no lookaround: refused, as in imagePattern). */
function ciPattern(p: string, what: string): string {
  try {
    new RegExp(p);
  } catch {
    throw new ExportError(`${what}: ${JSON.stringify(p)} is not a regular expression`);
  }
  if (/\(\?[=!<]/.test(p)) throw new ExportError(`${what}: ${JSON.stringify(p)} uses lookaround, which RE2 (the API server's regex engine) does not support`);
  return str(`(?i)${p}`);
}

/**
 * lib/model/traffic likelyServed for a workload admitted alone (no Service, no Namespace: the
 * linter's `unknown` state): the `kubegrace.dev/served` hint when written ("true", any case, after
 * trimming), else whether a main container or native sidecar other than a mesh proxy declares a TCP
 * port not named like a metrics or operator port (graph declaredTrafficContainers).
 */
function likelyServedAlone(): string {
  const port = `has(p.containerPort) && (!has(p.protocol) || p.protocol == 'TCP') && !(has(p.name) && (p.name.matches(${ci(METRICS_PORT)}) || p.name.matches(${ci(OPERATOR_PORT)})))`;
  return `(${annHas('kubegrace.dev/served')} ? ${SERVED_HINT} : ${RUNNING}.exists(c, c.name != 'istio-proxy' && c.name != 'linkerd-proxy' && has(c.ports) && c.ports.exists(p, ${port})))`;
}

/**
 * likelyServedAlone, or (without the hint) a Moleculer node served through its message broker:
 * lib/rules/rollout-full-outage brokerNode, a main container whose environment variable TRANSPORTER
 * has a literal value, trimmed, that starts with a Moleculer transporter URL scheme (review round 35,
 * report p55 item 2). For the availability rules only (rollout-full-outage, replicas-not-spread).
 */
function availabilityServedAlone(): string {
  const transporter = `variables.mains.exists(c, has(c.env) && c.env.exists(e, has(e.name) && e.name == 'TRANSPORTER' && has(e.value) && e.value.trim().matches(${str('^(nats|mqtts?|rediss?|amqps?|amqp10|kafka|tcp)://')})))`;
  return `(${likelyServedAlone()} || (!${annHas('kubegrace.dev/served')} && ${transporter}))`;
}

/** A regular expression's metacharacters escaped (for building RE2 patterns from literal names). */
function reEscape(x: string): string {
  return x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * lib/rules/surge-resource-deadlock scarcityOf(k) == 'accelerator' with the default lists, for a
 * resource name `k`: not a standard resource (isStandardResource) and matching an accelerator
 * pattern; each side is one RE2 match, so a resource name costs two string scans.
 */
export function acceleratorName(k: string): string {
  const standard = '^(cpu|memory|ephemeral-storage|storage|pods)$|^hugepages-|^attachable-volumes-|^requests\\.|(^|\\.)kubernetes\\.io/|^[^/]*$';
  const accel = ACCELERATOR_PATTERNS.map((p) => (p.endsWith('*') ? `^${reEscape(p.slice(0, -1))}` : `^${reEscape(p)}$`)).join('|');
  return `(!${k}.matches(${str(standard)}) && ${k}.matches(${str(accel)}))`;
}

/** A resource amount above zero as lib/rules/surge-resource-deadlock units() reads it (numbers, or digits with k/M/G/Ki/Mi/Gi). */
function positiveAmount(v: string): string {
  return `(type(${v}) == int ? ${v} > 0 : type(${v}) == double ? ${v} > 0.0 : type(${v}) == string && ${v}.matches(${str('^\\s*[0-9]+(\\.[0-9]+)?\\s*(k|M|G|Ki|Mi|Gi)?\\s*$')}) && ${v}.matches('[1-9]'))`;
}

/** Some container (main, sidecar or init) requests an accelerator (surge-resource-deadlock scarceRequests: requests, else limits). */
const REQUESTS_ACCELERATOR =
  `${ALL_CONTAINERS}.exists(c, has(c.resources) && ((has(c.resources.requests) && c.resources.requests.exists(k, ${acceleratorName('k')} && ${positiveAmount('c.resources.requests[k]')})) || ` +
  `(has(c.resources.limits) && c.resources.limits.exists(k, ${acceleratorName('k')} && !(has(c.resources.requests) && k in c.resources.requests) && ${positiveAmount('c.resources.limits[k]')}))))`;

/** An IntOrString written as literal zero (`0`, `"0%"`), as lib/model/intstr isLiteralZero. */
function literalZero(v: string): string {
  return bind(v, 'lz', "type(lz) == int ? lz == 0 : type(lz) == string && lz.trim().matches('^0+%$')");
}

/** An IntOrString the linter can read (an int or a percentage), as lib/model/intstr parseIntOrPercent. */
function readableIntOrPercent(v: string): string {
  return bind(v, 'rv', "type(rv) == int || (type(rv) == string && rv.trim().matches('^[0-9]+%$'))");
}

/** Variables of rollout-full-outage: the Deployment's rollout resolved for spec.replicas (section 4). */
function outageVariables(): CelVariable[] {
  const ru = 'object.spec.strategy.rollingUpdate';
  const hasRu = 'has(object.spec.strategy) && has(object.spec.strategy.rollingUpdate)';
  return [
    { name: 'replicas', expression: 'has(object.spec.replicas) ? object.spec.replicas : 1' },
    { name: 'rolling', expression: "!has(object.spec.strategy) || !has(object.spec.strategy.type) || object.spec.strategy.type in ['RollingUpdate', '']" },
    { name: 'surgeSet', expression: `${hasRu} && has(${ru}.maxSurge)` },
    { name: 'unavailableSet', expression: `${hasRu} && has(${ru}.maxUnavailable)` },
    { name: 'maxSurge', expression: `variables.surgeSet ? ${ru}.maxSurge : dyn('25%')` },
    { name: 'maxUnavailable', expression: `variables.unavailableSet ? ${ru}.maxUnavailable : dyn('25%')` },
    { name: 'rawSurge', expression: resolved('variables.maxSurge', 'variables.replicas', true) },
    { name: 'rawUnavailable', expression: resolved('variables.maxUnavailable', 'variables.replicas', false) },
    { name: 'surge', expression: 'variables.rawSurge < 0 ? 0 : variables.rawSurge' },
    { name: 'unavailable', expression: 'variables.rawSurge == 0 && variables.rawUnavailable == 0 ? 1 : variables.rawUnavailable < 0 ? 0 : variables.rawUnavailable' },
    { name: 'bothZero', expression: `variables.surgeSet && variables.unavailableSet && ${literalZero('variables.maxSurge')} && ${literalZero('variables.maxUnavailable')}` },
    { name: 'claims', expression: 'has(variables.podSpec.volumes) && variables.podSpec.volumes.exists(v, has(v.persistentVolumeClaim) && has(v.persistentVolumeClaim.claimName))' },
  ];
}

/**
 * Variables of rollout-full-outage for a DaemonSet (lib/rules/rollout-full-outage
 * daemonSetFullOutageDecision): RollingUpdate (the default; "" is the default too, as enumOr),
 * maxSurge 0 or absent, and maxUnavailable "100%" (parseIntOrPercent: digits and %, trimmed), the
 * one value that reaches every node whatever their number.
 */
function dsOutageVariables(): CelVariable[] {
  const us = 'object.spec.updateStrategy';
  const ru = `${us}.rollingUpdate`;
  const hasRu = `has(${us}) && has(${ru})`;
  return [
    { name: 'dsRolling', expression: `!has(${us}) || !has(${us}.type) || ${us}.type in ['RollingUpdate', '']` },
    { name: 'dsSurgeSet', expression: `${hasRu} && has(${ru}.maxSurge)` },
    { name: 'dsSurgeZero', expression: `!variables.dsSurgeSet || ${literalZero(`${ru}.maxSurge`)}` },
    { name: 'dsEveryNode', expression: `${hasRu} && has(${ru}.maxUnavailable) && type(${ru}.maxUnavailable) == string && ${ru}.maxUnavailable.trim().matches('^0*100%$')` },
  ];
}

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;

/** A probe handler's named-port check of lib/rules/probe-port problemOf, for handler `t` of probe `k` of container `c`. */
function probePortProblem(k: string, t: 'httpGet' | 'tcpSocket'): string {
  const h = `c.${k}.${t}`;
  const base = `has(c.${k}) && has(${h}) && has(${h}.port)${t === 'httpGet' ? ` && !(has(${h}.host) && ${h}.host != '')` : ''}`;
  return `(${base} && type(${h}.port) == string && !(has(c.ports) && c.ports.exists(p, has(p.containerPort) && has(p.name) && p.name == ${h}.port)))`;
}

function probePortTerms(): { pred: string; field: string; port: string; k: string; t: string }[] {
  const out: { pred: string; field: string; port: string; k: string; t: string }[] = [];
  for (const k of PROBES) {
    for (const t of ['httpGet', 'tcpSocket'] as const) out.push({ pred: probePortProblem(k, t), field: `${k} ${t}.port`, port: `c.${k}.${t}.port`, k, t });
  }
  return out;
}

/**
 * The named-port terms of lib/rules/probe-port by severity (review round 34, report p49 item A): the
 * linter groups one container's probes by their bad port, and a group of names is an error when a
 * readiness or startup probe is in it, a warning when only the liveness probe is (its result is
 * thrown away: liveness silently disabled); a string of digits is an error on any probe (the pod is
 * rejected). The warning term: a liveness name that no readiness or startup handler of the
 * container (without a host, for httpGet) also uses; such a handler with the same name is bad too,
 * so only the names are compared (no second scan of the ports).
 */
function namedProbePortTerms(): { error: ReturnType<typeof probePortTerms>; warning: ReturnType<typeof probePortTerms> } {
  const named = probePortTerms();
  const digits = (port: string) => `${port}.matches('^[0-9]+$')`;
  const others = named.filter((x) => x.k !== 'livenessProbe');
  const sameName = (port: string) =>
    others
      .map((o) => {
        const h = `c.${o.k}.${o.t}`;
        return `(has(c.${o.k}) && has(${h}) && has(${h}.port)${o.t === 'httpGet' ? ` && !(has(${h}.host) && ${h}.host != '')` : ''} && type(${h}.port) == string && ${h}.port == ${port})`;
      })
      .join(' || ');
  return {
    error: named.map((x) => (x.k === 'livenessProbe' ? { ...x, pred: `(${x.pred} && ${digits(x.port)})` } : x)),
    warning: named.filter((x) => x.k === 'livenessProbe').map((x) => ({ ...x, pred: `(${x.pred} && !${digits(x.port)} && !(${sameName(x.port)}))` })),
  };
}

/**
 * A probe handler without a host on a port bound to a loopback address only (lib/rules/probe-port
 * problemOf, 'loopback'), for handler `t` of probe `k` of container `c`: the port is a number in
 * variables.loopbackPorts, or a name that `c` declares with such a containerPort. `value` is the
 * port number it resolves to (used once the predicate holds).
 */
function loopbackTerm(k: string, t: 'httpGet' | 'tcpSocket' | 'grpc'): { pred: string; field: string; port: string; value: string; t: string } {
  const h = `c.${k}.${t}`;
  const base = `has(c.${k}) && has(${h}) && has(${h}.port)${t === 'grpc' ? '' : ` && !(has(${h}.host) && ${h}.host != '')`}`;
  const named = `has(c.ports) && c.ports.exists(p, has(p.name) && p.name == ${h}.port && has(p.containerPort) && p.containerPort in variables.loopbackPorts)`;
  const pred = t === 'grpc' ? `(${base} && type(${h}.port) == int && ${h}.port in variables.loopbackPorts)` : `(${base} && (type(${h}.port) == int ? ${h}.port in variables.loopbackPorts : type(${h}.port) == string && ${named}))`;
  const value = t === 'grpc' ? `${h}.port` : `(type(${h}.port) == int ? ${h}.port : c.ports.filter(p, has(p.name) && p.name == ${h}.port)[0].containerPort)`;
  return { pred, field: `${k} ${t}.port`, port: `${h}.port`, value, t };
}

/**
 * variables.siblingProbed of probe-port's warning (lib/rules/probe-port selfProbedPorts): every
 * running container's declared ports that one of its own probes (without a host) targets, by number
 * or by the port's name, as `|name:port|` entries in one string, leaving out the kubernetes-csi
 * livenessprobe sidecar (HEALTH_SIDECAR_IMAGE). A liveness port is a sibling's when the string holds
 * `:port|` and the probing container does not declare the port (so the entry is another
 * container's): a string test, not a scan of the other containers per container.
 */
function siblingProbedPorts(): string {
  // The ports of the container's own probe handlers without a host, read once per container as
  // text: '#N' for a number, the name for a name ('' for none), then each declared port looked up.
  const targets = PROBES.flatMap((k) =>
    (['httpGet', 'tcpSocket', 'grpc'] as const).map((t) => {
      const h = `o.${k}.${t}`;
      return `(has(o.${k}) && has(${h}) && has(${h}.port)${t === 'grpc' ? '' : ` && !(has(${h}.host) && ${h}.host != '')`} ? (type(${h}.port) == int ? '#' + string(${h}.port) : ${t === 'grpc' ? "''" : `string(${h}.port)`}) : '')`;
    }),
  ).join(', ');
  const own = bind(`[${targets}]`, 'sv', `o.ports.filter(p, has(p.containerPort) && ('#' + string(p.containerPort) in sv || (has(p.name) && p.name != '' && p.name in sv))).map(p, o.name + ':' + string(p.containerPort)).join('|')`);
  return `'|' + ${RUNNING}.filter(o, has(o.ports) && !(has(o.image) && o.image.matches(${str(HEALTH_SIDECAR_IMAGE.source)}))).map(o, ${own}).join('|') + '|'`;
}

/**
 * A liveness handler without a host on a port number that container `c` does not declare and that
 * another container declares and probes itself (lib/rules/probe-port siblingProblem), not a health
 * probe listen flag's port.
 */
function siblingTerms(): { pred: string; field: string; port: string }[] {
  return (['httpGet', 'tcpSocket', 'grpc'] as const).map((t) => {
    const h = `c.livenessProbe.${t}`;
    const pred = `(has(c.livenessProbe) && has(${h}) && has(${h}.port)${t === 'grpc' ? '' : ` && !(has(${h}.host) && ${h}.host != '')`} && type(${h}.port) == int && !(has(c.ports) && c.ports.exists(p, has(p.containerPort) && p.containerPort == ${h}.port)) && !(${h}.port in variables.healthProbeBindPorts) && variables.siblingProbed.contains(':' + string(${h}.port) + '|'))`;
    return { pred, field: `livenessProbe ${t}.port`, port: `${h}.port` };
  });
}

/**
 * The entries of variables.loopbackBinds for separate loopback host and port flags (lib/rules/probe-port
 * splitLoopbackBind): per running container, its command and args joined with U+001F, each
 * `SEP--flag SEP` made `SEP--flag=` (the value is the next element, as the linter reads it), split
 * again; every host flag loopback, every port flag the same number, which the container declares as
 * a containerPort (an entry with p '' otherwise, filtered out). Linear in the container's arguments and ports.
 */
function splitLoopbackBinds(): string {
  const sep = '\\x1f';
  const names = [...SPLIT_HOST_FLAGS, ...SPLIT_PORT_FLAGS];
  const norm = names.reduce((e, n) => `${e}.replace('${sep}${n}${sep}', '${sep}${n}=')`, `('${sep}' + ((has(c.command) ? c.command : []) + (has(c.args) ? c.args : [])).join('${sep}') + '${sep}')`);
  const re = (ns: string[], value = '') => str(`^(${ns.join('|')})=${value}`);
  // (Host flags whole, each matched once against a loopback value; port flags compared by their value's suffix.)
  const body = bind(
    `e.filter(a, a.matches(${re(SPLIT_HOST_FLAGS)}))`,
    'hs',
    bind(
      `e.filter(a, a.matches(${re(SPLIT_PORT_FLAGS)}))`,
      'ps',
      bind(
        `size(ps) > 0 ? ps[0].substring(ps[0].indexOf('=') + 1) : ''`,
        'pv',
        `size(hs) > 0 && hs.all(a, a.matches(${re(SPLIT_HOST_FLAGS, LOOPBACK_HOST.source.slice(1))})) && pv.matches('^[0-9]{1,5}$') && ps.all(x, x.endsWith('=' + pv)) && has(c.ports) && c.ports.exists(q, has(q.containerPort) && q.containerPort == int(pv)) ? ` +
          bind(
            `hs[0].substring(hs[0].indexOf('=') + 1).replace('[', '').replace(']', '')`,
            'hh',
            `{'c': c.name, 'a': hs[0] + ' ' + ps[0], 'p': string(int(pv)), 'h': hh == 'localhost' ? '127.0.0.1' : hh, 'f': hs[0].split('=')[0] + '=0.0.0.0'}`,
          ) +
          " : {'c': c.name, 'a': '', 'p': '', 'h': '', 'f': ''}",
      ),
    ),
  );
  return `${RUNNING}.map(c, ${bind(`${norm}.split('${sep}')`, 'e', body)}).filter(b, b.p != '')`;
}

/** "<field> <port>" of the first term that holds for `c` (a chain of conditionals; the caller knows one does). */
function firstTerm(terms: { pred: string; field: string; port: string }[], quote: boolean): string {
  let out = "''";
  for (const t of [...terms].reverse()) out = `(${t.pred} ? ${str(t.field + ' ')} + ${quote ? `'"' + string(${t.port}) + '"'` : `string(${t.port})`} : ${out})`;
  return out;
}

/** Variables of daemonset-surge: the update strategy as lib/rules/daemonset-surge reads it. */
function dsVariables(patterns: string[]): CelVariable[] {
  const us = 'object.spec.updateStrategy';
  const ru = `${us}.rollingUpdate`;
  const hasRu = `has(${us}) && has(${ru})`;
  const imageName = "c.image.split('@')[0].split('/')[size(c.image.split('@')[0].split('/')) - 1].split(':')[0]";
  const match = patterns.map((p) => `x.text.lowerAscii().matches(${ciPattern(p, 'daemonset-surge nodeProxyPatterns')})`).join(' || ') || 'false';
  return [
    { name: 'dsRolling', expression: `!has(${us}) || !has(${us}.type) || ${us}.type == 'RollingUpdate'` },
    { name: 'surgeSet', expression: `${hasRu} && has(${ru}.maxSurge)` },
    { name: 'surgeZero', expression: `!variables.surgeSet || ${literalZero(`${ru}.maxSurge`)}` },
    { name: 'unavailableReadable', expression: `!(${hasRu} && has(${ru}.maxUnavailable)) || ${readableIntOrPercent(`${ru}.maxUnavailable`)}` },
    {
      name: 'candidates',
      expression:
        `[{'label': 'name "' + (has(object.metadata.name) ? object.metadata.name : '') + '"', 'text': has(object.metadata.name) ? object.metadata.name : ''}] + ` +
        `variables.mains.map(c, {'label': 'container "' + c.name + '"', 'text': c.name}) + ` +
        `variables.mains.filter(c, has(c.image) && c.image != '').map(c, {'label': 'image "' + c.image + '"', 'text': ${imageName}})`,
    },
    { name: 'proxyMatches', expression: `variables.candidates.filter(x, ${match})` },
    { name: 'hostNetwork', expression: 'has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true' },
    { name: 'hostPorts', expression: `${RUNNING}.exists(c, has(c.ports) && c.ports.exists(p, has(p.hostPort) || (variables.hostNetwork && has(p.containerPort))))` },
  ];
}

const LK = {
  inject: 'linkerd.io/inject',
  wait: 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds',
  shutdownGrace: 'config.linkerd.io/shutdown-grace-period',
  shutdownGraceEnv: 'LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD',
  native: ['config.linkerd.io/proxy-enable-native-sidecar', 'config.beta.linkerd.io/proxy-enable-native-sidecar', 'config.alpha.linkerd.io/proxy-enable-native-sidecar'],
};

/**
 * Variables of linkerd-proxy-drain: lib/timeline/mesh linkerdMesh for a workload admitted alone
 * (no Namespace: only the pod template's and the object's annotations), and the app containers'
 * shutdowns (lib/rules/mesh-util appShutdowns: main containers other than mesh proxies whose preStop
 * delay is known, none counting 0).
 */
function linkerdVariables(nativeDefault: boolean, catalog: Catalog): CelVariable[] {
  const proxyEnv = `(has(variables.lkProxy[0].env) ? variables.lkProxy[0].env.filter(e, e.name == ${str(LK.shutdownGraceEnv)} && has(e.value)) : [])`;
  let mode = nativeDefault ? "'native'" : "'classic'";
  for (const k of [...LK.native].reverse()) mode = `(${annHas(k)} ? (${ann(k)}.trim() == 'true' ? 'native' : 'classic') : ${mode})`;
  let modeBad = "''";
  for (const k of [...LK.native].reverse()) modeBad = `(${annHas(k)} ? (${ann(k)}.trim() in ['true', 'false'] ? '' : ${str(k)}) : ${modeBad})`;
  const inject = `${ann(LK.inject)}.trim()`;
  const evidence = `((has(variables.podMeta.annotations) && variables.podMeta.annotations.exists(k, k.startsWith('config.linkerd.io/') || k.startsWith('config.alpha.linkerd.io/') || k.startsWith('config.beta.linkerd.io/'))) || (has(object.metadata.annotations) && object.metadata.annotations.exists(k, k.startsWith('config.linkerd.io/') || k.startsWith('config.alpha.linkerd.io/') || k.startsWith('config.beta.linkerd.io/'))))`;
  return [
    ...PRESTOP_HINT_VARIABLES,
    { name: 'lkProxy', expression: "variables.sidecars.filter(c, c.name == 'linkerd-proxy') + variables.mains.filter(c, c.name == 'linkerd-proxy')" },
    { name: 'lkNativeProxy', expression: "variables.sidecars.exists(c, c.name == 'linkerd-proxy')" },
    { name: 'lkDisabled', expression: `${annHas(LK.inject)} && ${inject} == 'disabled'` },
    { name: 'lkHostNetwork', expression: 'has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true' },
    {
      name: 'lkInjected',
      expression: `size(variables.lkProxy) > 0 || (!variables.lkHostNetwork && !variables.lkDisabled && ((${annHas(LK.inject)} && ${inject} in ['enabled', 'ingress']) || ${evidence}))`,
    },
    { name: 'lkMode', expression: `size(variables.lkProxy) > 0 ? (variables.lkNativeProxy ? 'native' : 'classic') : ${mode}` },
    { name: 'lkModeBad', expression: `size(variables.lkProxy) > 0 ? '' : ${modeBad}` },
    { name: 'lkWaitSet', expression: annHas(LK.wait) },
    { name: 'lkWaitFromProxy', expression: 'size(variables.lkProxy) > 0 && !variables.lkNativeProxy' },
    { name: 'lkWaitBad', expression: `!variables.lkWaitFromProxy && variables.lkWaitSet && !${ann(LK.wait)}.trim().matches('^[0-9]+$')` },
    {
      name: 'lkWait',
      expression:
        `variables.lkWaitFromProxy ? ${bind(preStopSeconds('variables.lkProxy[0]', DEFAULT_WAIT_PATTERNS, catalog), 'pw', 'pw >= 0.0 ? pw : 0.0')} : ` +
        `variables.lkWaitSet && !variables.lkWaitBad ? double(${ann(LK.wait)}.trim()) : 0.0`,
    },
    {
      name: 'lkSgpSource',
      expression: `size(variables.lkProxy) > 0 && size(${proxyEnv}) > 0 ? [${str(LK.shutdownGraceEnv)}, ${proxyEnv}[0].value] : ${annHas(LK.shutdownGrace)} ? [${str(LK.shutdownGrace)}, ${ann(LK.shutdownGrace)}] : []`,
    },
    { name: 'lkSgpRead', expression: `size(variables.lkSgpSource) == 0 ? 120.0 : ${goDurationSeconds('variables.lkSgpSource[1]')}` },
    { name: 'lkSgp', expression: 'variables.lkSgpRead < 0.0 ? 120.0 : variables.lkSgpRead' },
    { name: 'lkLongLived', expression: `${ann('kubegrace.dev/connection-pattern')}.trim().lowerAscii() in ['long-lived', 'fan-in']` },
    { name: 'drain', expression: DRAIN_SECONDS },
    {
      name: 'lkApps',
      expression: `size(variables.mains) > ${MAX_JUDGED_CONTAINERS} ? [] : variables.mains.filter(c, c.name != 'linkerd-proxy' && c.name != 'istio-proxy').map(c, ${hintedPreStopSeconds('c', DEFAULT_WAIT_PATTERNS, catalog)}).filter(s, s != -2.0)`,
    },
    { name: 'lkHooks', expression: 'variables.lkApps.filter(s, s >= 0.0)' },
    { name: 'lkLongestPreStop', expression: maxGuarded('variables.lkHooks', 32, '-1.0') },
    // The longest app shutdown (preStop, 0 without a hook, + drain); 0 without app containers.
    { name: 'lkLongestTotal', expression: `size(variables.lkApps) == 0 ? 0.0 : ${maxGuarded('variables.lkApps.map(s, s < 0.0 ? 0.0 : s)', 32, '0.0')} + variables.drain` },
    { name: 'lkProblems', expression: `variables.lkModeBad != '' || variables.lkWaitBad || (size(variables.lkSgpSource) > 0 && variables.lkSgpRead < 0.0)` },
  ];
}

/** Linkerd's classic-mode error: the proxy's wait reaches the grace period (MESH-LINKERD-001). */
const LK_WAIT_EXCEEDS = "variables.lkMode == 'classic' && variables.lkWait > 0.0 && variables.lkWait >= double(variables.grace)";

export const ADMISSION: Record<string, RuleAdmission> = {
  'grace-period-budget': {
    restriction:
      'judged from the workload alone: native sidecars in the manifest and mesh proxies whose native mode an annotation requests count as addends; a Namespace-level mesh injection does not (the policy does not read the Namespace); up to 16 native sidecars are summed, beyond that the warning is not judged; pods with more than 40 main containers are not judged (a bound on the cost of one evaluation); preStop programs of the policy\'s catalog of well-known workloads get their known delays, as in the linter; a program\'s own time serving after SIGTERM (the catalog\'s serves-after-sigterm entries: Traefik\'s flag per entry point needs capture groups, CoreDNS\'s lameduck is in another object, the fixed times of Knative\'s activator and webhooks and of the Percona XtraDB Cluster operator, the KEDA HTTP interceptor\'s KEDA_HTTP_SHUTDOWN_DELAY, Skipper\'s -wait-for-healthcheck-interval, the SeaweedFS volume server\'s -preStopSeconds, VictoriaMetrics\' and VictoriaLogs\' -http.shutdownDelay, the 15s quiesce of MongoDB 5.0+ replica-set members and mongos, the 110s wait of Langfuse web and the Tyk Gateway\'s TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS are not carried) is not counted (the kubegrace.dev/serves-after-sigterm-seconds hint is), nor is a drain the catalog reads from the program\'s own settings (Traefik\'s graceTimeOut, the KEDA interceptor\'s KEDA_HTTP_DRAIN_TIMEOUT, the AWS Node Termination Handler\'s NODE_TERMINATION_GRACE_PERIOD, which the linter judges even without a hook: the policy takes kubegrace.dev/drain-seconds, else 10s); Go durations with fractions or units below a second in hints are not read; nor is a PID 1 that never receives SIGTERM (tail, sleep, a shell held above the app: the linter\'s info and warning read shell scripts)',
    validate: (ctx) => {
      const patterns = waitPatternsOf(ctx);
      const served = judgesOnlyServed(ctx.rule, ctx.version);
      const gate = served ? `!(${SERVED_HINT}) || ` : '';
      const shellLess = shellLessImageOf(ctx);
      const vars = budgetVariables();
      const errPred = 'r.s >= 0.0 && r.s >= double(variables.grace)';
      const withRows = budgetRows(patterns, ctx.catalog, shellLess);
      const warnPred =
        `(r.s >= 0.0 || (r.s == -1.0 && (variables.drainDeclared || variables.servesAfter > 0.0))) && !(${errPred}) && ` +
        `variables.addend >= 0.0 && (r.s < 0.0 ? 0.0 : r.s) + variables.servesAfter + ${ROW_DRAIN} + variables.addend > double(variables.grace)`;
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
            `${secs(`(variables.rows.filter(r, ${warnPred})[0].s < 0.0 ? 0.0 : variables.rows.filter(r, ${warnPred})[0].s)`)} + (variables.servesAfter > 0.0 ? ' + serving after SIGTERM ' + ${secs('variables.servesAfter')} : '') + ' + drain ' + ${secs(bind(`variables.rows.filter(r, ${warnPred})[0]`, 'r', ROW_DRAIN))} + ' + addend ' + ${secs('variables.addend')} + ` +
            `' exceeds terminationGracePeriodSeconds ' + string(variables.grace) + 's: raise it to preStop + drain + addend + 5s')`,
        },
      ];
    },
    mutate: (ctx) => {
      const patterns = waitPatternsOf(ctx);
      const shellLess = shellLessImageOf(ctx);
      const vars = budgetVariables();
      const rows = budgetRows(patterns, ctx.catalog, shellLess);
      // neededGrace: the largest main-container preStop + drain (0 without a hook; unknown delays skipped;
      // the drain at least the sleep of a hook that signals the app first).
      const known: CelVariable = { name: 'known', expression: `variables.rows.filter(r, r.s != -2.0).map(r, (r.s < 0.0 ? 0.0 : r.s) + ${ROW_DRAIN})` };
      const maxS: CelVariable = {
        name: 'maxPreStop',
        // A max without a list library: bounded at 32 containers with a hook, so the nested scan stays small.
        expression: 'size(variables.known) == 0 || size(variables.known) > 32 ? -1.0 : variables.known.filter(x, variables.known.all(y, y <= x))[0]',
      };
      const need: CelVariable = { name: 'need', expression: `variables.maxPreStop < 0.0 || variables.addend < 0.0 ? 0 : ${ceil('variables.maxPreStop + variables.servesAfter + variables.addend + 5.0')}` };
      const err = 'variables.rows.exists(r, r.s >= 0.0 && r.s >= double(variables.grace))';
      const warn = `variables.rows.exists(r, (r.s >= 0.0 || (r.s == -1.0 && (variables.drainDeclared || variables.servesAfter > 0.0))) && (r.s < 0.0 ? 0.0 : r.s) + variables.servesAfter + ${ROW_DRAIN} + variables.addend > double(variables.grace))`;
      const path = "object.kind == 'Pod' ? '/spec/terminationGracePeriodSeconds' : object.kind == 'CronJob' ? '/spec/jobTemplate/spec/template/spec/terminationGracePeriodSeconds' : '/spec/template/spec/terminationGracePeriodSeconds'";
      return {
        kinds: WORKLOADS,
        variables: [...vars, rows, known, maxS, need],
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
        // (Pods of idle containers only, the pause image or a sleep forever, are not reported.)
        expression: `variables.grace != 0 || ${RUNNING}.all(c, ${idle()})`,
        messageExpression: `${prefix('zero-grace-period', 'error')} + 'terminationGracePeriodSeconds is 0 on a StatefulSet: the replacement with the same identity and volume can start while the old pod still runs; remove the field (default 30s) or set it to preStop + drain + 5s'`,
      },
      {
        severity: 'warning',
        kinds: WORKLOADS.filter((k) => k !== 'StatefulSet' && k !== 'Job' && k !== 'CronJob'),
        variables: [],
        // (Nor a Helm test hook, which exists only while helm test runs, nor a bare Pod that runs to
        // completion, an info in the linter like a Job's pod.)
        expression: `variables.grace != 0 || ${RUNNING}.all(c, ${idle()}) || ${HELM_TEST_HOOK} || (object.kind == 'Pod' && has(variables.podSpec.restartPolicy) && variables.podSpec.restartPolicy in ['Never', 'OnFailure'])`,
        messageExpression: `${prefix('zero-grace-period', 'warning')} + 'terminationGracePeriodSeconds is 0: ' + (${RUNNING}.exists(c, has(c.lifecycle) && has(c.lifecycle.preStop)) ? 'its preStop hooks are skipped and the app gets only 2s between SIGTERM and SIGKILL; remove the field (default 30s) or set it to preStop + drain + 5s' : 'the app gets only 2s between SIGTERM and SIGKILL; remove the field (default 30s) or set it to drain + 5s')`,
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
      // A liveness check that only looks for a file of a configMap/secret/projected/downwardAPI
      // volume cannot fail at start (lib/rules/startup-probe.ts presetFileCheck, checkedFile).
      const L = 'c.livenessProbe.exec.command';
      const form = `(size(${L}) == 2 && ${L}[0].matches('^(/usr)?(/bin/)?cat$') || size(${L}) == 3 && ${L}[0].matches('^(/usr)?(/bin/)?test$') && ${L}[1].matches('^-[efrs]$') || size(${L}) == 4 && ${L}[0] == '[' && ${L}[1].matches('^-[efrs]$') && ${L}[3] == ']')`;
      const file = `(size(${L}) == 2 ? ${L}[1] : ${L}[2])`;
      const preset =
        `(has(c.livenessProbe.exec) && has(${L}) && ${form} && ${file}.startsWith('/') && !${file}.matches('(^|/)\\.\\.(/|$)') && has(c.volumeMounts) && ` +
        `c.volumeMounts.exists(vm, !has(vm.subPath) && vm.name in variables.presetVolumes && ${file}.startsWith(vm.mountPath.endsWith('/') ? vm.mountPath : vm.mountPath + '/')))`;
      // Nor one that only looks for a process: pgrep, pidof, kill -0, postfix status (and `! master -t`
      // in a script), direct or the whole sh -c script
      // (lib/rules/liveness-equals-readiness.ts isProcessExistenceCheck).
      const processCheck =
        `(has(c.livenessProbe.exec) && has(${L}) && size(${L}) > 0 && (` +
        `(${L}[0].matches(${str(String.raw`^(?:[\w./-]*/)?(?:pgrep|pidof)$`)}) && size(${L}) > 1) || ` +
        `(${L}[0].matches(${str(String.raw`^(?:[\w./-]*/)?postfix$`)}) && size(${L}) == 2 && ${L}[1] == 'status') || ` +
        `(${L}[0].matches(${str(String.raw`^(?:[\w./-]*/)?kill$`)}) && size(${L}) > 2 && ${L}[1] == '-0' && ${L}.filter(a, a.matches('^[0-9]+$')).size() == size(${L}) - 2) || ` +
        `(size(${L}) == 3 && ${L}[0].matches(${str(PROCESS_CHECK_SHELL.source)}) && ${L}[1].matches(${str(PROCESS_CHECK_SHELL_C.source)}) && ${L}[2].trim().matches(${str(PROCESS_CHECK_SCRIPT.source)}))))`;
      // Nor one the catalog marks as passing from the listener start (lib/catalog answersFromStart:
      // Prometheus' and Thanos' /-/healthy, Hazelcast's node-state).
      const fromStart = answersFromStart('c', 'livenessProbe', ctx.catalog);
      // Nor a delay shorter than the liveness period (lib/rules/startup-probe.ts: no start allowance;
      // review round 35, report p55 item 3).
      const period = `(has(c.livenessProbe.periodSeconds) ? c.livenessProbe.periodSeconds : 10)`;
      const pred = `has(c.livenessProbe) && has(c.livenessProbe.initialDelaySeconds) && c.livenessProbe.initialDelaySeconds >= ${Math.ceil(t)} && c.livenessProbe.initialDelaySeconds >= ${period} && !has(c.startupProbe) && !${preset} && !${processCheck}${fromStart === 'false' ? '' : ` && !${fromStart}`}`;
      return [
        {
          severity: 'info',
          kinds: WORKLOADS,
          variables: [
            {
              name: 'presetVolumes',
              expression: 'has(variables.podSpec.volumes) ? variables.podSpec.volumes.filter(v, has(v.configMap) || has(v.secret) || has(v.projected) || has(v.downwardAPI)).map(v, v.name) : []',
            },
            // (The containers judged, once: the expression and the message read them, within the CEL cost limit.)
            { name: 'delayed', expression: `${RUNNING}.filter(c, ${pred})` },
          ],
          expression: 'size(variables.delayed) == 0',
          messageExpression: `${prefix('startup-probe', 'info')} + 'container "' + variables.delayed[0].name + '": livenessProbe waits initialDelaySeconds ' + string(variables.delayed[0].livenessProbe.initialDelaySeconds) + 's instead of using a startupProbe; add a startupProbe with the same check'`,
        },
      ];
    },
  },
  'statefulset-partition': {
    restriction: 'judged against spec.replicas: an HPA\'s maxReplicas (which the linter uses when an HPA targets the StatefulSet) is not visible at admission',
    validate: () => {
      const rolling = "(!has(object.spec.updateStrategy) || !has(object.spec.updateStrategy.type) || object.spec.updateStrategy.type in ['RollingUpdate', ''])";
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
    restriction: 'judged against spec.replicas: an HPA\'s minReplicas (which the linter uses when an HPA targets the StatefulSet) is not visible at admission; the error for an etcd StatefulSet whose readiness needs the quorum (it never starts under OrderedReady) is the linter\'s only',
    validate: (ctx) => {
      const min = typeof ctx.params.minReplicas === 'number' ? ctx.params.minReplicas : 2;
      const pmp = "(has(object.spec.podManagementPolicy) && object.spec.podManagementPolicy != '' ? object.spec.podManagementPolicy : 'OrderedReady')";
      const type = "(has(object.spec.updateStrategy) && has(object.spec.updateStrategy.type) && object.spec.updateStrategy.type != '' ? object.spec.updateStrategy.type : 'RollingUpdate')";
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
      'the warnings (required anti-affinity and host ports with a surge-only rollout, judged for Deployments, but not one replica that may run on any node, which needs only a second node: the linter\'s info; a DoNotSchedule constraint on a reserved key that is no well-known node label, for every workload kind), the surge judged against spec.replicas: when an HPA targets the Deployment the linter resolves the surge with its minReplicas, which is not visible at admission. The info on a DoNotSchedule spread constraint without matchLabelKeys is not validated (the mutating policy adds matchLabelKeys: [pod-template-hash] to it). The minDomains conditions are not validated: the API server rejects minDomains without DoNotSchedule itself, and the info concerns versions before 1.27',
    validate: (ctx) => [
      {
        severity: 'warning',
        kinds: WORKLOADS,
        variables: spreadVariables(ctx.version, true),
        expression: '!(variables.surgeOnly && (variables.termWarns.exists(b, b) || (variables.hostPorts && !variables.anyNode))) && size(variables.unknownKeys) == 0',
        messageExpression:
          `${prefix('spread-blocks-surge', 'warning')} + (size(variables.unknownKeys) > 0 ? ` +
          `'a DoNotSchedule topologySpreadConstraint spreads over ' + variables.unknownKeys[0].topologyKey + ', a key under the prefixes Kubernetes reserves that is not a well-known node label: kube-scheduler rejects every node without it, so unless the nodes were labelled with it every pod stays Pending; use a label the nodes carry (topology.kubernetes.io/zone, kubernetes.io/hostname)' : ` +
          `variables.termWarns.exists(b, b) ? ` +
          `'a required pod anti-affinity on a node or zone key counts old and new pods together while the rollout surges ' + string(variables.surge) + ' pod(s) and takes none down first: the surge pod stays Pending when there are no more nodes (zones) than replicas, and the rollout stalls; add matchLabelKeys: [pod-template-hash]' : ` +
          `'the pod binds host ports while the rollout surges ' + string(variables.surge) + ' pod(s) and takes none down first: the surge pod cannot run on a node that still runs an old pod, so with no spare node it stays Pending and the rollout stalls; set strategy.rollingUpdate to {maxSurge: 0, maxUnavailable: 1}, or keep a spare node')`,
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
      // (Not a policy/v1beta1 budget outside a Helm render, which the linter counts as not served from 1.25:
      // rollout-util budgetProblem. The API server of a cluster with admission policies serves no v1beta1 anyway.
      // Nor one with both minAvailable and maxUnavailable, which the API server rejects: review round 34, report p51 item 8.)
      condition:
        "!has(object.spec.unhealthyPodEvictionPolicy) && !(has(object.spec.minAvailable) && has(object.spec.maxUnavailable)) && !(object.apiVersion == 'policy/v1beta1' && !(has(object.metadata.labels) && ('helm.sh/chart' in object.metadata.labels || ('app.kubernetes.io/managed-by' in object.metadata.labels && object.metadata.labels['app.kubernetes.io/managed-by'] == 'Helm'))))",
      patch: "[JSONPatch{op: 'add', path: '/spec/unhealthyPodEvictionPolicy', value: 'AlwaysAllow'}]",
      description: 'set unhealthyPodEvictionPolicy: AlwaysAllow on PodDisruptionBudgets that do not set it',
    }),
    mutateNote:
      'a PodDisruptionBudget is admitted without the pods it selects, so the policy cannot tell a data store (where section 12 keeps IfHealthyBudget, and the linter offers no repair) from a stateless app: it repairs every PDB that leaves the field unset. Opt a data store\'s PDB out with kubegrace.dev/ignore: pdb-unhealthy-eviction-policy, or set IfHealthyBudget explicitly (never changed)',
  },
  'rollout-full-outage': {
    restriction:
      'both conditions, the Helm hook one (a served Deployment, StatefulSet, DaemonSet or ReplicaSet whose helm.sh/hook names an upgrade or rollback phase, deleted before-hook-creation: Helm deletes and recreates it at every upgrade, and admission sees each creation with its annotations) and the strategy one, judged as the linter judges the workload alone: served when kubegrace.dev/served is "true", and without the hint when a main container or native sidecar (not a mesh proxy) declares a TCP port not named like a metrics or operator port (the linter\'s decision for a workload with no Service in the input, reproduced exactly), or when a main container sets TRANSPORTER to a Moleculer transporter URL (nats://, redis://, amqp://, ...): a Moleculer node its callers reach through the message broker, served whatever the Services say, as in the linter. What admission cannot see: the Services (a Deployment no Service routes to but that declares a port is judged served: annotate kubegrace.dev/served: "false"), an HPA\'s minReplicas (spec.replicas is used), and the PersistentVolumeClaims (every PVC volume counts as exclusive, so such Deployments are skipped, as the linter skips a PVC it does not see). A program of a catalog single-version entry with overlapStalls (Flux source-controller with leader election: its new pod is not Ready while an old one runs) is skipped, as in the linter. DaemonSets rolling with maxUnavailable "100%" (maxSurge 0 or absent) are judged the same way from the DaemonSet alone; a DaemonSet that Services reach only with internalTrafficPolicy: Local, which the linter leaves to daemonset-surge, cannot be told apart and is judged served; the linter\'s info for a catalog single-version program (the Longhorn manager) is not exported, so the policy passes it',
    validate: (ctx) => {
      const fmt = (set: string, v: string) => `(variables.${set} ? string(variables.${v}) : '25% (default)')`;
      return [
        {
          severity: 'warning',
          kinds: ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'],
          variables: [
            ...outageVariables(),
            ...dsOutageVariables(),
            { name: 'served', expression: availabilityServedAlone() },
            { name: 'accelerator', expression: REQUESTS_ACCELERATOR },
            { name: 'singleVersion', expression: singleVersionMatch(ctx.catalog) },
            { name: 'overlapStalls', expression: singleVersionMatch(ctx.catalog, (e) => !!e.overlapStalls) },
            { name: 'hookRecreated', expression: HELM_RECREATED_HOOK },
          ],
          // (A recreated hook gets only the hook condition: Helm never rolls it with its strategy. A
          // DaemonSet: maxUnavailable "100%" and no surge, not a single-version program, whose outage the
          // linter reports as info. A Deployment: the strategy condition.)
          expression:
            "!variables.served || variables.replicas <= 0 || (!variables.hookRecreated && (object.kind == 'DaemonSet' ? (!variables.dsRolling || !variables.dsSurgeZero || !variables.dsEveryNode || variables.singleVersion) : (object.kind != 'Deployment' || !variables.rolling || variables.bothZero || variables.unavailable < variables.replicas || variables.claims || variables.accelerator || variables.overlapStalls)))",
          messageExpression:
            `${prefix('rollout-full-outage', 'warning')} + (variables.hookRecreated ? 'a Helm hook (helm.sh/hook: ' + object.metadata.annotations['helm.sh/hook'] + ') deleted before-hook-creation (written, or Helm\\'s default): on every helm upgrade or rollback it names, Helm deletes this ' + object.kind + ', so all its pods terminate, and only then creates it again: no ready endpoint until the new pods are Ready, a full outage each time, whatever the replicas and the update strategy say; render it as a normal object (without helm.sh/hook), or accept the outage' : object.kind == 'DaemonSet' ? ` +
            `'updateStrategy.rollingUpdate maxUnavailable ' + string(object.spec.updateStrategy.rollingUpdate.maxUnavailable) + ' with ' + (variables.dsSurgeSet ? 'maxSurge ' + string(object.spec.updateStrategy.rollingUpdate.maxSurge) : 'maxSurge absent (default 0)') + ` +
            `': the DaemonSet controller deletes the pod of every node at once (the percentage is of the nodes that run it, rounded up), before any replacement is ready, so each rollout takes down every pod behind its Services until the new pods are Ready, a full outage; set updateStrategy.rollingUpdate.maxUnavailable to a bound below every node (1, the default, or a percentage such as 10% on large clusters), so that the pods of the other nodes keep serving while some restart' : ` +
            `'replicas ' + string(variables.replicas) + ' with maxSurge ' + ${fmt('surgeSet', 'maxSurge')} + ' and maxUnavailable ' + ${fmt('unavailableSet', 'maxUnavailable')} + ` +
            `' (resolved: surge ' + string(variables.surge) + ', unavailable ' + string(variables.unavailable) + '): ' + ` +
            `(variables.replicas == 1 ? 'the only pod is removed before its replacement is ready' : 'all ' + string(variables.replicas) + ' pods can be removed before any replacement is ready') + ` +
            `', a full outage for the whole startup time; ' + (variables.singleVersion ? 'the pod runs a program whose old and new versions, or two instances, must not run side by side (catalog single-version entry, e.g. Kibana, SonarQube DCE application nodes, Celery beat): use strategy.type Recreate, not surge first' : variables.replicas == 1 && variables.surgeSet && variables.surge == 0 ? 'if the program can run two at once, set strategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} (surge first); if it must not (a controller without leader election), keep it and accept the outage' : 'set strategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} (surge first)')) + ` +
            `(${annHas('kubegrace.dev/served')} ? '' : ' (no kubegrace.dev/served annotation, but a container declares a TCP port: assumed served; annotate kubegrace.dev/served: "false" if nothing routes to it)')`,
        },
      ];
    },
    mutateNote: 'none: surge-first is a strategy change, a proposal in section 12, not a safe repair',
  },
  'probe-port': {
    restriction:
      'the error and the warning, judged from the admitted object alone; cost: the three probes are unrolled (no comprehension over probes) and each handler port is looked up in its own container\'s ports, so a policy evaluation scans each declared port at most 12 (error: 6 for the names, and 6 in a validation of its own for the ports bound to a loopback address, read once into a variable from the listen flags) or 6 (warning: 2 for the liveness names, compared with the other probes\' names without another scan; 3 for the liveness port numbers against the container\'s own ports, and once for the ports each container probes itself, read into one string variable in which a liveness port is looked up as text) times: linear in the total number of declared ports, never containers x containers',
    notValidated:
      'the info (a probe on a port number the container does not declare, "often a typo"): the linter leaves out a port that the container\'s own env or args name as one it listens on (lib/model/listen-ports namedListenPort: DD_HEALTH_PORT=5556, --port=N, ADDR=:N, with its exclusions of client flags, dialed host and port pairs and the names of the other containers), a reading with no exact translation into the CEL subset within the cost limit, so that condition is the linter\'s only',
    validate: () => {
      const { error: named, warning: livenessNamed } = namedProbePortTerms();
      const namedPred = named.map((t) => t.pred).join(' || ');
      const livenessPred = livenessNamed.map((t) => t.pred).join(' || ');
      // What the kubelet does with a name it cannot resolve (rules/probe-port unresolvedConsequence).
      const unresolved = `'not a port name of this container: the kubelet cannot resolve it, so every check errors ("probe errored and resulted in unknown state") and the kubelet throws the result away: '`;
      const sibling = siblingTerms();
      const siblingPred = sibling.map((t) => t.pred).join(' || ');
      const first = (pred: string, body: string) => bind(`${RUNNING}.filter(c, ${pred})[0]`, 'c', body);
      const lb = PROBES.flatMap((k) => (['httpGet', 'tcpSocket', 'grpc'] as const).map((t) => loopbackTerm(k, t)));
      const lbPred = lb.map((t) => t.pred).join(' || ');
      // The listen flag that binds the probe's port (the first container's), and the advice: under
      // hostNetwork host: 127.0.0.1 (not for grpc, which has no host); else listen on all interfaces.
      // (The first term that holds is found once, as its index i; the rest selects by i.)
      const byIndex = (pick: (t: (typeof lb)[number]) => string, none: string) => lb.reduceRight((out, t, i) => `(i == ${i} ? ${pick(t)} : ${out})`, none);
      const lbMessage = bind(
        lb.reduceRight((out, t, i) => `(${t.pred} ? ${i} : ${out})`, '-1'),
        'i',
        bind(
          `variables.loopbackBinds.filter(b, b.p == string(${byIndex((t) => t.value, '-1')}))[0]`,
          'b',
          `'container "' + c.name + '": ' + ${byIndex((t) => `${str(t.field + ' ')} + string(${t.port})`, "''")} + ' is a port ' + (b.c == c.name ? 'the container itself listens' : 'container "' + b.c + '" listens') + ' on only at a loopback address (' + b.a + '): without a host the kubelet probes the pod\\'s IP' + ` +
            `(variables.hostNetwork ? ' (the node\\'s IP, hostNetwork: true)' : '') + ', where nothing accepts on that port, so the probe fails every time; ' + ` +
            `(variables.hostNetwork ? (${byIndex((t) => (t.t === 'grpc' ? 'true' : 'false'), 'false')} ? 'grpc has no host: make it listen on all interfaces (' + b.f + ')' : 'set ' + ${byIndex((t) => str(t.t), "''")} + '.host: ' + b.h + ' (under hostNetwork the kubelet shares the node\\'s loopback), or make it listen on all interfaces (' + b.f + ')') : ` +
            `'make it listen on all interfaces (' + b.f + '): the kubelet cannot reach the pod\\'s loopback, and host: 127.0.0.1 would probe the node\\'s own loopback')`,
        ),
      );
      return [
        {
          severity: 'error',
          kinds: WORKLOADS,
          variables: [
            {
              // rules/probe-port loopbackBinds: the first health probe listen flag of each container's args when it binds a loopback host only: the container, the flag, its port (as text) and the host a probe under hostNetwork should set (rules/probe-port loopbackHost).
              name: 'loopbackBinds',
              expression:
                `${RUNNING}.filter(c, has(c.args) && c.args.exists(a, a.matches(${str(HEALTH_PROBE_BIND.source)}))).map(c, ` +
                `${bind(`c.args.filter(a, a.matches(${str(HEALTH_PROBE_BIND.source)}))[0]`, 'a', bind(`a.matches(${str(LOOPBACK_PROBE_BIND.source)}) ? a.split(':')[size(a.split(':')) - 1] : ''`, 'p', `{'c': c.name, 'a': a, 'p': p, 'h': p != '' ? ${bind("a.split('=')[1]", 'v', bind("v.substring(0, v.lastIndexOf(':')).replace('[', '').replace(']', '')", 'hh', "hh == 'localhost' ? '127.0.0.1' : hh"))} : '', 'f': a.split('=')[0] + '=:' + p}`))}).filter(b, b.p != '') + ` +
                splitLoopbackBinds(),
            },
            { name: 'loopbackPorts', expression: "variables.loopbackBinds.map(b, int(b.p))" },
            { name: 'hostNetwork', expression: 'has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true' },
          ],
          expression: `!${RUNNING}.exists(c, ${namedPred})`,
          messageExpression:
            `${prefix('probe-port', 'error')} + ` +
            first(
              namedPred,
              `'container "' + c.name + '": ' + ${firstTerm(named, true)} + ': ' + ` +
                `(${named.map((t) => `(${t.pred} && ${t.port}.matches('^[0-9]+$'))`).join(' || ')} ? 'the API accepts a string only as a port name (IANA_SVC_NAME, with at least one letter), so the pod is rejected; write the number without quotes' : ` +
                `${unresolved} + (${named.filter((t) => t.k === 'startupProbe').map((t) => t.pred).join(' || ')} ? 'the container never counts as started, so its liveness and readiness probes never run and the pod never becomes Ready, nor is it restarted: it stays not Ready for good' : 'readiness stays at its initial failure and the pod never becomes Ready') + ' (no Service routes to it, and a rollout stalls); use a declared port name or number, or declare {name: <name>, containerPort: N}')`,
            ),
          // A probe without a host on a port bound to a loopback address only: a validation of its
          // own, so that neither expression grows (rules/probe-port problemOf, 'loopback').
          more: [
            {
              expression: `size(variables.loopbackPorts) == 0 || !${RUNNING}.exists(c, ${lbPred})`,
              messageExpression: `${prefix('probe-port', 'error')} + ${first(lbPred, lbMessage)}`,
            },
          ],
        },
        {
          // A name that only a liveness probe uses: the liveness check is silently disabled.
          severity: 'warning',
          kinds: WORKLOADS,
          variables: [
            {
              // rules/probe-port healthProbeBindPorts: the port of the first health probe listen flag of each container's args (after the last '=', then the last ':'), else -1.
              name: 'healthProbeBindPorts',
              expression: `${RUNNING}.map(c, has(c.args) ? ${bind(`c.args.filter(a, a.matches(${str(HEALTH_PROBE_BIND.source)}))`, 'hf', `size(hf) > 0 ? ${bind("hf[0].split('=')", 'he', bind("he[size(he) - 1].split(':')", 'hc', 'int(hc[size(hc) - 1])'))} : -1`)} : -1)`,
            },
            // rules/probe-port selfProbedPorts, as `|name:port|` entries.
            { name: 'siblingProbed', expression: siblingProbedPorts() },
          ],
          expression: `!${RUNNING}.exists(c, ${livenessPred})`,
          messageExpression:
            `${prefix('probe-port', 'warning')} + ` +
            first(livenessPred, `'container "' + c.name + '": ' + ${firstTerm(livenessNamed, true)} + ': ' + ${unresolved} + 'liveness stays at its initial success, so the kubelet never restarts the container, however it hangs: the liveness check is silently disabled; use a declared port name or number, or declare {name: <name>, containerPort: N}'`),
          // A liveness probe on a port that another container declares and probes itself (rules/probe-port
          // siblingProblem; review round 35, report p57 item 5): a validation of its own.
          more: [
            {
              expression: `!${RUNNING}.exists(c, ${siblingPred})`,
              messageExpression:
                `${prefix('probe-port', 'warning')} + ` +
                first(
                  siblingPred,
                  bind(
                    `${sibling.reduceRight((out, t) => `(${t.pred} ? ${t.port} : ${out})`, '-1')}`,
                    'sp',
                    bind(
                      `variables.siblingProbed.split('|').filter(e, e.endsWith(':' + string(sp)))[0].split(':')[0]`,
                      'on',
                      `'container "' + c.name + '": ' + ${firstTerm(sibling, false)} + ' is a port of container "' + on + '", which declares it and probes it itself, not of this container: the kubelet sends a probe without a host to the pod\\'s IP, so this probe checks "' + on + '", and whenever "' + on + '" does not answer (a slow start, a stall) the kubelet restarts "' + c.name + '", which does not fix "' + on + '", and it never checks "' + c.name + '" itself; probe a port or endpoint that "' + c.name + '" serves, or give it no liveness probe'`,
                    ),
                  ),
                ),
            },
          ],
        },
      ];
    },
  },
  'daemonset-surge': {
    restriction:
      'the warning, for DaemonSets recognised as node-level proxies by name, container name or image name (param nodeProxyPatterns); Services are not visible at admission: neither one with a Local traffic policy (which the linter also counts) nor the cluster-policy Services through which the linter sees that a proxy bound to no node port is not node-local (the policy warns there, the linter does not)',
    notValidated:
      'the error (maxSurge and maxUnavailable both non-zero) is rejected by the API server\'s own validation, which runs before validating admission; the conditions for versions before 1.22 concern clusters without ValidatingAdmissionPolicy (1.30)',
    validate: (ctx) => {
      const patterns = ctx.params.nodeProxyPatterns;
      if (!Array.isArray(patterns) || !patterns.every((p) => typeof p === 'string')) throw new ExportError('daemonset-surge: nodeProxyPatterns must be a list of strings');
      const ru = 'object.spec.updateStrategy.rollingUpdate';
      return [
        {
          severity: 'warning',
          kinds: ['DaemonSet'],
          variables: dsVariables(patterns as string[]),
          expression: '!variables.dsRolling || !variables.surgeZero || !variables.unavailableReadable || size(variables.proxyMatches) == 0 || variables.hostPorts',
          messageExpression:
            `${prefix('daemonset-surge', 'warning')} + 'a node-level proxy (' + variables.proxyMatches[0].label + ') rolls with ' + (variables.surgeSet ? 'maxSurge ' + string(${ru}.maxSurge) : 'maxSurge absent (default 0)') + ` +
            `': on each node the pod is stopped before its replacement is ready, so traffic through that node is dropped for the whole restart; set updateStrategy.rollingUpdate to {maxSurge: 1, maxUnavailable: 0} so the old and new pod overlap and hand over' + ` +
            `(variables.hostNetwork ? '; the pod uses hostNetwork: this works only if the proxy binds its listeners with SO_REUSEPORT, otherwise the new pod cannot bind, never becomes ready, and the rollout stalls' : '')`,
        },
      ];
    },
    mutateNote: 'none: surge first is a strategy change, a proposal in section 12',
  },
  'linkerd-proxy-drain': {
    restriction:
      'judged from the workload alone: injection evident on the pod template or the object (linkerd.io/inject, Linkerd config annotations, a rendered linkerd-proxy); Linkerd settings on the Namespace (which the linter reads when the Namespace is in the input) are not visible, so a workload injected only through its Namespace is not judged; pods with more than 32 app containers are not judged (cost bound)',
    validate: (ctx) => {
      const nativeDefault = ctx.params.nativeDefault === true;
      const vars = linkerdVariables(nativeDefault, ctx.catalog);
      const kinds = WORKLOADS.filter((k) => k !== 'Job' && k !== 'CronJob');
      const waitText = `'linkerd-proxy waits ' + ${secs('variables.lkWait')} + ' before exit (' + (variables.lkWaitFromProxy ? 'its preStop sleep' : ${str(LK.wait)}) + ')'`;
      const rec = ceil('(variables.lkWait > variables.lkLongestTotal ? variables.lkWait : variables.lkLongestTotal) + 5.0');
      // With a wait: the app's preStop is not below it. Without one (unset, 0 or malformed): any app preStop delay.
      const appWarn =
        "variables.grace != 0 && variables.lkMode == 'classic' && variables.lkWait < double(variables.grace) && variables.lkLongestPreStop >= 0.0 && " +
        '(variables.lkWait > 0.0 ? variables.lkLongestPreStop >= variables.lkWait : variables.lkLongestPreStop > 0.0)';
      const nativeIgnored = "variables.lkMode == 'native' && variables.lkWaitSet && variables.lkWait > 0.0";
      const longLivedOver = "variables.lkLongLived && (variables.lkMode == 'classic' ? variables.lkWait : variables.lkLongestTotal) + variables.lkSgp > double(variables.grace)";
      const bounded = '(size(variables.mains) <= 32)';
      return [
        {
          severity: 'error',
          kinds,
          variables: vars,
          expression: `!variables.lkInjected || variables.grace == 0 || !(${LK_WAIT_EXCEEDS})`,
          messageExpression:
            `${prefix('linkerd-proxy-drain', 'error')} + ${waitText} + ' >= terminationGracePeriodSeconds ' + string(variables.grace) + 's: the proxy is still sleeping at the deadline and gets 2s after SIGTERM before SIGKILL, cutting every connection; raise terminationGracePeriodSeconds to at least ' + string(${rec}) + 's or lower the wait below it'`,
        },
        {
          severity: 'warning',
          kinds,
          variables: vars,
          expression: `!variables.lkInjected || !${bounded} || !(variables.lkProblems || (${appWarn}))`,
          messageExpression:
            `${prefix('linkerd-proxy-drain', 'warning')} + (variables.lkModeBad != '' ? variables.lkModeBad + ': not "true" or "false"; Linkerd treats it as false (classic proxy)' : ` +
            `variables.lkWaitBad ? ${str(LK.wait)} + ' "' + ${ann(LK.wait)} + '" is not a whole number of seconds; Linkerd ignores it (no wait), write e.g. "20"' : ` +
            `size(variables.lkSgpSource) > 0 && variables.lkSgpRead < 0.0 ? variables.lkSgpSource[0] + ' "' + variables.lkSgpSource[1] + '" is not a Go duration; the proxy keeps its default 120s, write e.g. "30s"' : ` +
            `(variables.lkWait > 0.0 ? ${waitText} + ', but an app container has a preStop delay of ' + ${secs('variables.lkLongestPreStop')} + ' >= that: the proxy gets SIGTERM no later than the app does, so calls the app makes while it drains fail; set ' + ${str(LK.wait)} + ' above the preStop of the app (preStop + drain)' : ` +
            `'the linkerd-proxy gets SIGTERM as soon as the pod starts terminating (no wait before exit), while an app container sleeps ' + ${secs('variables.lkLongestPreStop')} + ' in its preStop to keep serving: from its SIGTERM the proxy refuses new connections, so requests that reach the pod during that preStop and the app\\'s own calls while it drains fail; set ' + ${str(LK.wait)} + ' to the preStop of the app plus its drain'))`,
        },
        {
          severity: 'info',
          kinds,
          variables: vars,
          expression: `!variables.lkInjected || variables.grace == 0 || !${bounded} || !((${nativeIgnored}) || (${longLivedOver}))`,
          messageExpression:
            `${prefix('linkerd-proxy-drain', 'info')} + (${nativeIgnored} ? ${str(LK.wait)} + ' is ignored because the proxy runs as a native sidecar, which Kubernetes stops only after the app containers exit; remove the annotation' : ` +
            `'long-lived connections (kubegrace.dev/connection-pattern): ' + (variables.lkMode == 'classic' ? 'proxy wait ' + ${secs('variables.lkWait')} : 'the shutdown of the app ' + ${secs('variables.lkLongestTotal')}) + ' + shutdown-grace-period ' + ${secs('variables.lkSgp')} + ' exceeds terminationGracePeriodSeconds ' + string(variables.grace) + 's, so SIGKILL, not the graceful close of the proxy, ends the remaining connections; lower ' + ${str(LK.shutdownGrace)} + ' or raise terminationGracePeriodSeconds')`,
        },
      ];
    },
    mutate: (ctx) => {
      const vars = linkerdVariables(ctx.params.nativeDefault === true, ctx.catalog);
      const rec = ceil('(variables.lkWait > variables.lkLongestTotal ? variables.lkWait : variables.lkLongestTotal) + 5.0');
      const path = "object.kind == 'Pod' ? '/spec/terminationGracePeriodSeconds' : '/spec/template/spec/terminationGracePeriodSeconds'";
      return {
        kinds: WORKLOADS.filter((k) => k !== 'Job' && k !== 'CronJob'),
        variables: vars,
        condition: `variables.lkInjected && variables.grace != 0 && size(variables.mains) <= 32 && ${LK_WAIT_EXCEEDS}`,
        patch: `[JSONPatch{op: 'add', path: ${path}, value: ${rec}}]`,
        description: "raise terminationGracePeriodSeconds above a classic linkerd-proxy's wait before exit (to the longer of the wait and the app's preStop + drain, + 5s)",
      };
    },
    mutateNote: 'the error only (section 12: raising the grace period is the safe repair for MESH-*); the wait, the mode and the shutdown-grace-period are the user\'s mesh configuration and are not changed',
  },
  'recreate-strategy': {
    restriction:
      'judged as the linter judges the Deployment alone: served as for rollout-full-outage (the kubegrace.dev/served hint, else a declared TCP port not named like a metrics or operator port); spec.replicas instead of an HPA\'s minReplicas; every PVC volume counts as exclusive (access modes not visible), so such Deployments are skipped; the warnings only: a program whose old and new versions must not run side by side (the catalog\'s single-version entries: Kibana, SonarQube DCE application nodes by image tag, Celery beat, the Quickwit control plane and janitor; with overlapStalls, a program whose new pod is not Ready while an old one runs: Flux source-controller and source-watcher with leader election) gets the linter\'s info under Recreate, which is not exported, so the policy passes it; under a RollingUpdate it gets the warning, as in the linter, with spec.replicas for the replicas',
    validate: (ctx) => [
      {
        severity: 'warning',
        kinds: ['Deployment'],
        // (outageVariables: replicas, the resolved rollout and claims; one policy per severity, so the
        // RollingUpdate warning is a second validation over the same variables.)
        variables: [...outageVariables(), { name: 'served', expression: likelyServedAlone() }, { name: 'singleVersion', expression: singleVersionMatch(ctx.catalog) }, { name: 'overlapStalls', expression: singleVersionMatch(ctx.catalog, (e) => !!e.overlapStalls) }],
        expression: "!has(object.spec.strategy) || !has(object.spec.strategy.type) || object.spec.strategy.type != 'Recreate' || variables.replicas < 2 || !variables.served || variables.claims || variables.singleVersion",
        messageExpression:
          `${prefix('recreate-strategy', 'warning')} + 'strategy Recreate with replicas ' + string(variables.replicas) + ' on a served workload: every pod is terminated before any new one starts, so each rollout is a full outage of termination plus startup time; use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}' + ` +
          `(${annHas('kubegrace.dev/served')} ? '' : ' (no kubegrace.dev/served annotation, but a container declares a TCP port: assumed served; annotate kubegrace.dev/served: "false" if nothing routes to it)')`,
        // A single-version program rolled with a RollingUpdate (old and new side by side); a rolling
        // update that removes every old pod first is rollout-full-outage's.
        more: [
          {
            expression: '!variables.rolling || !variables.singleVersion || variables.replicas < 1 || variables.unavailable >= variables.replicas',
            messageExpression: `${prefix('recreate-strategy', 'warning')} + 'strategy RollingUpdate with replicas ' + string(variables.replicas) + ' runs old and new pods side by side, but ' + (variables.overlapStalls ? 'a container runs a program whose new pod does not become Ready while an old one runs (a catalog single-version entry with overlapStalls, e.g. Flux source-controller with leader election, whose readiness waits for the leader-election lease the old pod holds), so the rollout stalls' + (variables.unavailable == 0 ? ' for good' : '') : 'a container runs a program that must not run that way (a catalog single-version entry: Kibana, SonarQube DCE application nodes, Celery beat, the Quickwit control plane or janitor)') + '; use strategy.type: Recreate, which starts the new pods only once every old pod is gone'`,
          },
        ],
      },
    ],
    mutateNote: 'none: a strategy change is a proposal in section 12',
  },
  'replicas-not-spread': {
    restriction:
      'judged as the linter judges the workload alone: served as for rollout-full-outage (the kubegrace.dev/served hint, else a declared TCP port not named like a metrics or operator port, or a main container\'s TRANSPORTER set to a Moleculer transporter URL, as for rollout-full-outage); spec.replicas instead of an HPA\'s minReplicas; the access modes of PersistentVolumeClaims are not visible, so a Deployment or ReplicaSet whose replicas share a ReadWriteOnce or ReadWriteOncePod claim, which the linter skips when the PVC is in its input (surge-volume-deadlock), is judged like any other',
    validate: () => {
      const keys = "['kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone']";
      const anti = 'variables.podSpec.affinity.podAntiAffinity';
      const hasAnti = `has(variables.podSpec.affinity) && has(${anti})`;
      const spreads =
        `(has(variables.podSpec.topologySpreadConstraints) && variables.podSpec.topologySpreadConstraints.exists(c, has(c.topologyKey) && c.topologyKey in ${keys} && ${selectsOwn('c.labelSelector')})) || ` +
        `(${hasAnti} && has(${anti}.requiredDuringSchedulingIgnoredDuringExecution) && ${anti}.requiredDuringSchedulingIgnoredDuringExecution.exists(t, has(t.topologyKey) && t.topologyKey in ${keys} && ${selectsOwn('t.labelSelector')})) || ` +
        `(${hasAnti} && has(${anti}.preferredDuringSchedulingIgnoredDuringExecution) && ${anti}.preferredDuringSchedulingIgnoredDuringExecution.exists(w, has(w.podAffinityTerm) && has(w.podAffinityTerm.topologyKey) && w.podAffinityTerm.topologyKey in ${keys} && ${selectsOwn('w.podAffinityTerm.labelSelector')})) || ` +
        // Host ports (mesh-util hostPortBindings): two such pods never share a node (NodePorts).
        `${RUNNING}.exists(c, has(c.ports) && c.ports.exists(p, (has(p.hostPort) && type(p.hostPort) == int && p.hostPort > 0) || (has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true && has(p.containerPort) && type(p.containerPort) == int)))`;
      const req = 'variables.podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
      const pinsOne = (list: string, key: string) => `(has(${list}) && ${list}.exists(r, r.key == '${key}' && r.operator == 'In' && has(r.values) && size(r.values) == 1))`;
      const pinned =
        "(has(variables.podSpec.nodeName) && variables.podSpec.nodeName != '') || (has(variables.podSpec.nodeSelector) && 'kubernetes.io/hostname' in variables.podSpec.nodeSelector) || " +
        `(has(variables.podSpec.affinity) && has(variables.podSpec.affinity.nodeAffinity) && has(${req}) && has(${req}.nodeSelectorTerms) && size(${req}.nodeSelectorTerms) > 0 && ` +
        `${req}.nodeSelectorTerms.all(t, ${pinsOne('t.matchExpressions', 'kubernetes.io/hostname')} || ${pinsOne('t.matchFields', 'metadata.name')}))`;
      return [
        {
          severity: 'warning',
          kinds: ['Deployment', 'StatefulSet', 'ReplicaSet'],
          variables: [
            { name: 'labels', expression: 'has(variables.podMeta.labels) ? variables.podMeta.labels : {}' },
            { name: 'replicas', expression: 'has(object.spec.replicas) ? object.spec.replicas : 1' },
            { name: 'served', expression: availabilityServedAlone() },
          ],
          expression: `variables.replicas < 2 || !variables.served || ${pinned} || ${spreads}`,
          messageExpression:
            `${prefix('replicas-not-spread', 'warning')} + 'replicas ' + string(variables.replicas) + ' but nothing spreads them across nodes or zones (' + ` +
            // Rules the template has but that do not count (another key, other pods): said so, as the linter names each.
            `((has(variables.podSpec.topologySpreadConstraints) && size(variables.podSpec.topologySpreadConstraints) > 0) || ${hasAnti} ? 'none of its topologySpreadConstraints or pod anti-affinity terms uses kubernetes.io/hostname or a zone key with a labelSelector selecting its own pods' : 'no hostname/zone topologySpreadConstraint or pod anti-affinity selecting its own pods') + ` +
            `'; the scheduler\\'s default spreading is only a soft preference): one node failure can take every replica at once, and so can a drain of that node unless a PodDisruptionBudget holds it back; add topologySpreadConstraints with topologyKey kubernetes.io/hostname, maxSkew: 1, whenUnsatisfiable: ScheduleAnyway and a labelSelector for its own pods' + ` +
            `(${annHas('kubegrace.dev/served')} ? '' : ' (no kubegrace.dev/served annotation, but a container declares a TCP port: assumed served; annotate kubegrace.dev/served: "false" if nothing routes to it)')`,
        },
      ];
    },
    mutateNote: 'none: adding a spread constraint changes scheduling, a proposal in section 12',
  },
  'readiness-probe-missing': {
    restriction:
      'judged as the linter judges the workload alone (a readinessProbe that is an exec of echo, true or printf counts as none, as in the linter): the containers that serve are those declaring a TCP port not named like a metrics or operator port (mesh proxies and idle containers, the pause image or a sleep forever, excluded), and only when no other container of the pod has a readinessProbe that can fail (the linter then reports an info, or nothing when that probe checks the container), and not for a container with a startupProbe that can fail in the only pod of a workload replaced only after it is gone (one replica of a StatefulSet or ReplicaSet, or of a Deployment whose surge resolves to 0; the linter then reports an info; an HPA, which the linter reads, is not visible at admission); with kubegrace.dev/served: "true" and no such port, a lone main container; which container a Service routes to is not visible at admission',
    validate: () => {
      const port = `has(p.containerPort) && (!has(p.protocol) || p.protocol == 'TCP') && !(has(p.name) && (p.name.matches(${ci(METRICS_PORT)}) || p.name.matches(${ci(OPERATOR_PORT)})))`;
      // (Idle containers, where nothing listens, serve nothing.)
      const traffic = (c: string) => `(${c}.name != 'istio-proxy' && ${c}.name != 'linkerd-proxy' && has(${c}.ports) && ${c}.ports.exists(p, ${port}) && !${idle(c)})`;
      const inject = `(${annHas('sidecar.istio.io/inject')} ? ${ann('sidecar.istio.io/inject')} : has(variables.podMeta.labels) && 'sidecar.istio.io/inject' in variables.podMeta.labels ? variables.podMeta.labels['sidecar.istio.io/inject'] : '')`;
      const injected = `(has(c.image) && c.image == 'auto' && (${annHas('inject.istio.io/templates')} || ${inject} == 'true'))`;
      // (No readinessProbe, or one that can never fail: an exec of echo, true or printf, as the linter's VACUOUS_EXEC.)
      const vacuous = (c: string) => `(has(${c}.readinessProbe.exec) && has(${c}.readinessProbe.exec.command) && size(${c}.readinessProbe.exec.command) > 0 && ${c}.readinessProbe.exec.command[0].matches(${str(VACUOUS_EXEC.source)}))`;
      const bad = (c: string) => `((!has(${c}.readinessProbe) || ${vacuous(c)}) && !${injected.replace(/\bc\./g, `${c}.`)})`;
      const hintSet = annHas('kubegrace.dev/served');
      // (Another running container with a readinessProbe that can fail gates the pod's readiness too: the
      // linter then reports at most an info, or nothing when that probe checks this container.)
      // Computed once (a scan per container would be containers x containers): a container judged here
      // has no readinessProbe that can fail, so any running container with one is another container.
      const gated: CelVariable = { name: 'gated', expression: `${RUNNING}.exists(o, has(o.readinessProbe) && !${vacuous('o')})` };
      // (The only pod, replaced only after it is gone, as lib/rules/prestop-missing noOverlap reads the
      // object alone: one replica of a StatefulSet or a ReplicaSet, or of a Deployment whose surge
      // resolves to 0. With a startupProbe that can fail, the linter reports an info: review round 34,
      // report p46 item 2.)
      const ru = 'object.spec.strategy.rollingUpdate';
      const surgeRaw = `has(object.spec.strategy) && has(${ru}) && has(${ru}.maxSurge) ? ${ru}.maxSurge : dyn('25%')`;
      const replicas = '(has(object.spec.replicas) ? object.spec.replicas : 1)';
      const rolling = "(!has(object.spec.strategy) || !has(object.spec.strategy.type) || object.spec.strategy.type in ['RollingUpdate', ''])";
      const sole: CelVariable = {
        name: 'sole',
        expression: `${replicas} <= 1 && (object.kind in ['StatefulSet', 'ReplicaSet'] || (object.kind == 'Deployment' && (!${rolling} || ${resolved(surgeRaw, replicas, true)} <= 0)))`,
      };
      const started = (c: string) => `(variables.sole && has(${c}.startupProbe) && !${vacuous(c).replace(/readinessProbe/g, 'startupProbe')})`;
      const lone = `(${hintSet} && ${SERVED_HINT} && !${RUNNING}.exists(c, ${traffic('c')}) && size(variables.mains) == 1 && ${bad('variables.mains[0]')} && !${idle('variables.mains[0]')} && !variables.gated && !${started('variables.mains[0]')})`;
      const pred = `${traffic('c')} && ${bad('c')} && !variables.gated && !${started('c')}`;
      return [
        {
          severity: 'warning',
          kinds: WORKLOADS.filter((k) => k !== 'Job' && k !== 'CronJob'),
          variables: [gated, sole],
          // (A Helm hook, such as a chart's test Pod, is skipped as the linter skips it: not one that serves for good.)
          expression: `${HELM_PASSING_HOOK} || (${hintSet} && !(${SERVED_HINT})) || !(${RUNNING}.exists(c, ${pred}) || ${lone})`,
          messageExpression:
            `${prefix('readiness-probe-missing', 'warning')} + 'container "' + (${RUNNING}.exists(c, ${pred}) ? ${RUNNING}.filter(c, ${pred})[0].name : variables.mains[0].name) + '": serves traffic but has no readinessProbe, or one that can never fail (an exec of echo, true or printf, which exits 0: the kubelet runs no shell): it counts as ready as soon as it starts, so it gets traffic before the app can serve and rollouts cannot tell a broken pod from a working one; add a readinessProbe on a cheap endpoint' + ` +
            `(${hintSet} ? '' : ' (no kubegrace.dev/served annotation, but it declares a TCP port: assumed served; annotate kubegrace.dev/served: "false" if nothing routes to it)')`,
        },
      ];
    },
  },
};

const NEEDS_OTHERS = 'needs other objects than the admitted one';

/** Why each rule without an ADMISSION entry is not exported (the default says so, too). */
export const NOT_EXPORTED: Record<string, string> = {
  'prestop-missing':
    'the serving containers of a workload alone are decidable (as for readiness-probe-missing), but the rule skips containers that keep accepting after SIGTERM by the catalog\'s serves-after-sigterm entries, which read per-listener flag values with capture groups (Traefik\'s requestAcceptGraceTimeout per entry point, the smallest over the entry points that carry traffic): the CEL subset used has no capture groups or find(); its error also depends on a Service with externalTrafficPolicy: Local, which admission does not see',
  'grace-exceeds-external-deadline': 'advice about cluster-level deadlines (autoscaler, node shutdown) that the policy cannot read',
  'liveness-equals-readiness': 'compares whole probe handlers (headers, query strings) and the catalog of process-local and dependency-check handlers: not expressible in the CEL subset used',
  'selector-mismatch': 'the API server\'s own validation rejects it before validating admission runs',
  'surge-volume-deadlock': `${NEEDS_OTHERS}: the PersistentVolumeClaims' access modes`,
  'min-ready-seconds': `${NEEDS_OTHERS}: served status, external load balancers, HPA replicas; and the reconnect model`,
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
  'external-traffic-local': `${NEEDS_OTHERS}: a LoadBalancer Service with externalTrafficPolicy: Local and the workloads behind it`,
  'native-sidecar': 'the error (restartPolicy: Always where native sidecars are off) concerns versions before 1.29, below the 1.30 minimum of ValidatingAdmissionPolicy; the info/warning need the catalog of shutdown-critical helpers',
  'native-sidecar-grace-budget':
    'its warning is the termination schedule (lib/timeline/schedule): native sidecars are signalled one at a time in reverse declaration order after every main container has exited, each after its own preStop, and a classic Istio proxy among the main containers drains for terminationDrainDuration from the proxy.istio.io/config annotation; that sequence is a fold over the sidecars (no fold in the CEL subset used) and that annotation is YAML inside a string (CEL cannot parse it). The sidecar-preStop conditions share the warning\'s severity, so exporting them alone would give a policy that is silent where the linter warns',
  'istio-proxy-drain':
    'every condition depends on the drain window (terminationDrainDuration, or MINIMUM_DRAIN_DURATION with EXIT_ON_ZERO_ACTIVE_CONNECTIONS) or the malformed-value checks of the proxy.istio.io/config annotation, a YAML or JSON document inside a string, which CEL cannot parse; with the annotation absent the defaults would apply, but the policy cannot tell an absent window from one it cannot read, and the default mode depends on istiod (param istioNativeDefault and the cluster version)',
  'surge-resource-deadlock': `${NEEDS_OTHERS}: HPA minReplicas decide the resolved surge; and the classification of extended resources (quantities, which the CEL subset used cannot compare)`,
  'webhook-backend-availability': `${NEEDS_OTHERS}: the webhook configuration, APIService or CustomResourceDefinition, the backing Service, workload and PDBs`,
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
