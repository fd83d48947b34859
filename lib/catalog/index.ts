/**
 * The catalog of well-known workloads and programs (catalog.yaml): connection patterns, known
 * preStop programs and their real delays, programs that keep serving after SIGTERM, probes that
 * are process-local by design and probes known to check a dependency, and apps whose members need peer discovery before readiness.
 *
 * Data, not code: the YAML is validated with ajv against catalog.schema.json the first time it is
 * needed (lazily, once), and every pattern is compiled once, so matching a workload costs
 * O(containers). A policy may add entries and disable built-in ones (spec.catalog). Hints
 * (`kubegrace.dev/*` annotations) always win over the catalog: the hint-aware helpers at the end
 * of this module check them first.
 */
import type { ValidateFunction } from 'ajv';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { describeAjvErrors } from '../engine/policy';
import { isObject, Json, JsonObject } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { parseSeconds } from '../timeline/duration';
import { LAST_SLEEP } from '../timeline/prestop';

export type CatalogKind = 'connection-pattern' | 'prestop-program' | 'serves-after-sigterm' | 'process-local-probe' | 'dependency-probe' | 'peer-discovery' | 'monitoring-port' | 'single-version' | 'registers-webhooks';
export const CATALOG_KINDS: readonly CatalogKind[] = ['connection-pattern', 'prestop-program', 'serves-after-sigterm', 'process-local-probe', 'dependency-probe', 'peer-discovery', 'monitoring-port', 'single-version', 'registers-webhooks'];
export type ConnectionPattern = 'short' | 'long-lived' | 'fan-in';

export interface CatalogMatchSpec {
  /**
   * Globs on the image repository (no tag/digest); `*` matches anything; a leading `*\/` also matches
   * no prefix. A glob `*\/<Go import path>` also matches ko's default name for it (imageGlobVariants).
   */
  images?: string[];
  /**
   * Globs on the image tag (case-sensitive; `*` matches any characters, none included): a reference
   * without tag or digest has the tag `latest`; one with a digest alone has none and does not match.
   */
  tags?: string[];
  /** Container port numbers or names (connection patterns: also ports of Services routing to the pods). */
  ports?: (number | string)[];
  /** Regex on the container's command and args joined by spaces. */
  command?: string;
  /** Regex on the container's args joined by spaces. */
  args?: string;
  /**
   * The program's first release with the entry's behaviour (`X.Y.Z`): an image tag that is an older
   * version does not match; a tag that is no version (none, latest, a commit, ko://) matches.
   */
  minVersion?: string;
  /**
   * The program's first release without the entry's behaviour (`X.Y.Z`), for an entry about older
   * releases: only an image tag that is an older version matches; a later version, or a tag that is
   * no version (none, latest, a commit, ko://), taken as current, does not.
   */
  beforeVersion?: string;
}

export interface ArgDelay {
  flag: string;
  /** Read the flag from the container's command/args or from the preStop command itself. */
  from: 'container' | 'preStop';
  unit: 'seconds' | 'duration';
  /** Seconds when the flag is absent (the program's own default). */
  default: number;
}

export interface PreStopProgramSpec {
  command: string;
  delay: { seconds?: number; args?: ArgDelay[]; unknown?: true; bound?: 'exact' | 'at-least' };
  drains?: boolean;
  /** How to lengthen the delay (advice in messages): raise a flag, or run the program after a sleep. */
  adjust?: { flag?: string; unit?: 'seconds' | 'duration'; chartValue?: string; sleepBefore?: true };
  /**
   * Another container of the pod whose preStop is an httpGet to `path` on `port` (served by this
   * container's program; `portFlag` in its command/args moves it) returns only when this hook does.
   */
  awaitedBy?: { path: string; port: number; portFlag?: string };
}

export interface PerListenerSpec {
  listener: string;
  value: string;
  /** The arg that sets a listener's value, with `{name}` and `{value}` (advice in messages). */
  setting?: string;
  unit: 'seconds' | 'duration';
  default: number;
  ignore?: string[];
}

/**
 * A program's config file: the value of `flag` (or an alias) in the container's command and args,
 * else `default` (relative: from workingDir, else /); without a `default`, a container whose args
 * name no file reads none (Pinot's StartBroker without -configFileName: the program's defaults).
 */
export interface ConfigFileSpec {
  flag?: string;
  /** Other spellings of the flag (a short option: Fluent Bit's `-c` for `--config`). */
  aliases?: string[];
  default?: string;
}

/**
 * The port of a program's own monitoring server (metrics and health endpoints, no client traffic):
 * the last line of its config file matching `value`, else the first of `flags` in the container's
 * command and args, else `default` (Fluent Bit's HTTP_Port, -P, 2020).
 */
export interface MonitoringPortSpec {
  default: number;
  flags?: string[];
  /** What the flags give: a port number (the default) or a listen address whose port is read (Cluster Autoscaler's `--address :8085`). */
  flagForm?: 'port' | 'address';
  file?: ConfigFileSpec;
  comment?: string;
  value?: string;
}

/** What the catalog says is a container's monitoring port. */
export interface MonitoringPortFact {
  entry: CatalogEntry;
  /** The port number; undefined when a setting cannot be read as one. */
  port?: number;
  /** How it was read, for messages: `HTTP_Port 2020 in /fluent-bit/etc/conf/fluent-bit.conf (ConfigMap ...)`. */
  derivation: string;
}

/**
 * A value a program reads from its config file (CoreDNS's `lameduck` in the Corefile): each line
 * (comments removed) matching `value` gives one, combined by `combine`; `default` when none does.
 */
export interface ConfigValueSpec {
  file: ConfigFileSpec;
  /** Comment marker, where it starts a line or follows white space. */
  comment?: string;
  value: string;
  combine: 'sum' | 'min';
  /** `milliseconds`: an integer of milliseconds (Pinot's pinot.broker.delayShutdownTimeMs). */
  unit: 'seconds' | 'duration' | 'milliseconds';
  default: number;
  /** What to write in the file, with `{value}` (advice in messages). */
  setting?: string;
}

/**
 * A fixed time the program keeps accepting after SIGTERM, set in its code and not configurable
 * (the Knative activator's sleep of network.DefaultDrainTimeout, 45s).
 */
export interface FixedSecondsSpec {
  seconds: number;
  /**
   * `at-least` when the program may keep accepting longer; `quiet-period` when `seconds` is a quiet
   * period that each request restarts (knative.dev/pkg's Drainer): the program serves until its
   * clients stop sending and then for the period, which SIGKILL may cut at no loss once they have
   * stopped (lib/timeline/serves-after-sigterm.ts).
   */
  bound?: 'exact' | 'at-least' | 'quiet-period';
}

/**
 * A time a program reads from an environment variable of its container (the KEDA HTTP add-on
 * interceptor's KEDA_HTTP_SHUTDOWN_DELAY): the last `env` entry of that name with a literal value;
 * unset or empty, `default`; from valueFrom, a $(VAR) reference or possibly envFrom, unknown.
 */
export interface EnvValueSpec {
  env: string;
  unit: 'seconds' | 'duration';
  default: number;
  /** `unbounded`: 0 means no limit (the time is unknown). */
  zero?: 'unbounded';
  /** The chart value that sets the variable (advice in messages). */
  chartValue?: string;
}

/**
 * A time a program reads from one flag of its command and args, for the whole process (Skipper's
 * -wait-for-healthcheck-interval): the flag, else what the config file named by `configFile.flag`
 * sets (the program reads the file before its flags, so the flag wins; a file the input does not
 * hold makes the time unknown), else `default`.
 */
export interface FlagValueSpec {
  flag: string;
  unit: 'seconds' | 'duration';
  default: number;
  /** The arg that sets the value, with `{value}` (advice in messages). */
  setting?: string;
  /** A config file that can also set the value, read only when its flag names one; the last line matching `value` counts. */
  configFile?: { flag: string; comment?: string; value: string };
}

/**
 * A drain the program reads from a setting the catalog does not read (the Zeebe gateway's Spring
 * property spring.lifecycle.timeout-per-shutdown-phase, which the environment, a mounted
 * application.yaml or JVM arguments may set): counted as the program's `default`; a changed value
 * is stated with `kubegrace.dev/drain-seconds`.
 */
export interface UnreadSettingSpec {
  /** The setting, for messages and docs. */
  setting: string;
  default: number;
}

/** How a catalog entry reads what a program does after SIGTERM: per listener from its args, from its config file, fixed, from an environment variable, or from one flag. */
export type ServesAfterSigtermSpec = PerListenerSpec | ConfigValueSpec | FixedSecondsSpec | EnvValueSpec | FlagValueSpec;

/** How a catalog entry reads how long a program drains once it stops accepting: per listener from its args, from an environment variable, or the default of a setting it does not read. */
export type DrainSpec = PerListenerSpec | EnvValueSpec | UnreadSettingSpec;

export function isEnvValueSpec(s: ServesAfterSigtermSpec | DrainSpec): s is EnvValueSpec {
  return 'env' in s;
}

export function isConfigValueSpec(s: ServesAfterSigtermSpec): s is ConfigValueSpec {
  return 'file' in s;
}

export function isFixedSecondsSpec(s: ServesAfterSigtermSpec): s is FixedSecondsSpec {
  return 'seconds' in s;
}

export function isUnreadSettingSpec(s: ServesAfterSigtermSpec | DrainSpec): s is UnreadSettingSpec {
  // (A per-listener spec may have a `setting` too, but always a `listener`.)
  return 'setting' in s && 'default' in s && !('listener' in s) && !('flag' in s) && !('file' in s);
}

export function isPerListenerSpec(s: ServesAfterSigtermSpec | DrainSpec): s is PerListenerSpec {
  return 'listener' in s;
}

export function isFlagValueSpec(s: ServesAfterSigtermSpec | DrainSpec): s is FlagValueSpec {
  return 'flag' in s;
}

/**
 * Reads a file as the container sees it (an absolute path): its text and where it comes from, or
 * why the input does not hold it. Supplied by the caller (the model knows mounts and ConfigMaps).
 */
export type ReadContainerFile = (path: string) => { text: string; where: string } | { missing: string };

/** What the catalog says a program does after SIGTERM by itself. */
export interface ServesAfterSigtermFact {
  entry: CatalogEntry;
  /** Seconds it keeps accepting new requests after SIGTERM; undefined when that cannot be read. */
  seconds?: number;
  /** How the seconds were read, for messages: `lameduck 10s in /etc/coredns/Corefile (ConfigMap ...)`. */
  derivation?: string;
  /** Config-file entries: the file, where the input holds it, or why it does not. */
  file?: { path: string; where?: string; missing?: string };
  /** A quiet period that each request restarts (FixedSecondsSpec bound `quiet-period`): `seconds` is the period. */
  quietPeriod?: true;
}

export interface ProbeSpec {
  httpGet?: { path?: string; port?: number | string };
  grpc?: { port?: number; service?: string };
  tcpSocket?: { port?: number | string };
  exec?: { command: string };
}

/**
 * What a probe of a dependency-probe entry checks beyond the process (`on`, for messages: "the
 * metadata database"), and, when that depends on the program's configuration, the environment
 * variable that must select it (`env`): the container's last `env` entry of that name with a literal
 * value among `values`. Unset (the program's default), set from elsewhere (valueFrom, $(VAR),
 * envFrom) or another value: the entry does not apply.
 */
export interface DependencySpec {
  on: string;
  env?: { name: string; values: string[] };
}

/**
 * A program that creates its admission webhook configurations itself at run time (so none is in
 * a render), failing closed, calling a Service of its own namespace: the Service is the literal
 * value of the container's env variable `service.env` when set and not empty, else `service.default`;
 * `rejects` says for messages what the API server then rejects; when the container's command and
 * args match `failOpen.args`, the webhooks do not fail closed on an in-cluster Service, and the
 * entry does not apply.
 */
export interface RegistersWebhooksSpec {
  service: { env?: string; default: string };
  rejects: string;
  failOpen?: { args?: string; setting?: string };
  /**
   * Env settings that make the program register fail-closed webhooks: each must be set literally
   * to one of its values (the Datadog Cluster Agent: DD_ADMISSION_CONTROLLER_ENABLED true and
   * DD_ADMISSION_CONTROLLER_FAILURE_POLICY Fail); unset, valueFrom, $(VAR) or another value: the
   * entry does not apply.
   */
  enabledBy?: { name: string; values: string[] }[];
  /** Env settings that make it register none: set literally to one of its values, or not literally (unknown), the entry does not apply. */
  disabledBy?: { name: string; values: string[] }[];
}

/** A workload whose program registers fail-closed webhooks at run time, and the Service they call (undefined: set from elsewhere, unknown). */
export interface RuntimeWebhooks {
  entry: CatalogEntry;
  container: ContainerView;
  service?: string;
  /** How the Service name was read, for messages: `env KYVERNO_SVC` or `the program's default`. */
  serviceFrom: string;
  /** The env settings of `enabledBy` as set (`DD_ADMISSION_CONTROLLER_FAILURE_POLICY=Fail`), for messages. */
  enabledBy: string[];
}

export interface CatalogEntry {
  id: string;
  kind: CatalogKind;
  title: string;
  match: CatalogMatchSpec;
  why: string;
  source: string[];
  connectionPattern?: ConnectionPattern;
  reconnectBackoff?: string;
  preStop?: PreStopProgramSpec;
  servesAfterSigterm?: ServesAfterSigtermSpec;
  drain?: DrainSpec;
  probes?: ProbeSpec[];
  /**
   * Process-local-probe entries: each of `probes` passes as soon as the program serves it (its
   * listener is up), before the slow phases of its start finish (those gate only readiness), so no
   * slow start can fail a liveness check on it (rule startup-probe).
   */
  answersFromStart?: boolean;
  dependency?: DependencySpec;
  monitoringPort?: MonitoringPortSpec;
  registersWebhooks?: RegistersWebhooksSpec;
  /**
   * The program answers kubelet probes (User-Agent kube-probe/) on every path of the port it serves,
   * 200 while it serves and 503 once it drains after SIGTERM (knative.dev/pkg's Drainer).
   */
  probesAnyPath?: { scheme: 'HTTP' | 'HTTPS' };
  /**
   * The program writes the rules of its admission webhooks at run time, into configurations the
   * manifests ship with none (knative.dev/pkg's webhook reconcilers); `rejects`: what the API server
   * rejects while no backend is Ready, for messages.
   */
  writesWebhookRules?: { rejects: string };
  /**
   * single-version only: what must not run side by side, from the entry's evidence. `versions`
   * (the default): two versions of the program (Kibana: no rolling upgrades). `instances`: two
   * instances at all, whatever their versions (standalone SonarQube on one database, celery beat;
   * review round 34, reports p47, p51, p52), so more than one replica is wrong too.
   */
  overlap?: 'instances' | 'versions';
  /**
   * single-version only: old and new pods side by side do no harm, but a new pod cannot become
   * Ready while an old one runs (Flux source-controller: its readiness waits for the leader-election
   * lease the old pod holds). The reason, a clause for messages.
   */
  overlapStalls?: string;
}

/** A policy's `spec.catalog`. */
export interface CatalogOverride {
  add?: CatalogEntry[];
  disable?: string[];
}

/** Invalid catalog data; `pointer` is the JSON pointer of the offending field. */
export class CatalogError extends Error {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Loading and validation

function findUp(rel: string): string {
  let dir = __dirname;
  for (;;) {
    const f = path.join(dir, rel);
    if (fs.existsSync(f)) return f;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`kubegrace: cannot find ${rel} in the package`);
    dir = up;
  }
}

/** The catalog data file shipped with the package. */
export function catalogFile(): string {
  return findUp(path.join('lib', 'catalog', 'catalog.yaml'));
}
export function catalogSchemaFile(): string {
  return findUp(path.join('lib', 'catalog', 'catalog.schema.json'));
}

let data: { entries: CatalogEntry[] } | undefined;
/** catalog.generated.ts: the shipped data, validated against the schema when it was generated (see codegen.ts). */
function shippedData(): { entries: CatalogEntry[] } {
  return (data ??= (require('./catalog.generated') as { CATALOG_DATA: { entries: CatalogEntry[] } }).CATALOG_DATA);
}
let overrideValidator: ValidateFunction | undefined;
/** The standalone validator of a policy's spec.catalog (loaded only when a policy has one). */
function validateOverride(): ValidateFunction {
  return (overrideValidator ??= (require('./catalog-validators.generated') as { validateOverride: ValidateFunction }).validateOverride);
}

function regexError(re: string): string | undefined {
  try {
    new RegExp(re);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Checks what JSON Schema cannot: regexes compile, IDs are unique, regex groups exist. */
function checkEntries(entries: CatalogEntry[], base: string): void {
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const p = `${base}/${i}`;
    if (seen.has(e.id)) throw new CatalogError(`duplicate entry id "${e.id}" (also at ${base}/${seen.get(e.id)})`, `${p}/id`);
    seen.set(e.id, i);
    const regexes: [string, string | undefined][] = [
      [`${p}/match/command`, e.match.command],
      [`${p}/match/args`, e.match.args],
      [`${p}/preStop/command`, e.preStop?.command],
      [`${p}/servesAfterSigterm/listener`, e.servesAfterSigterm && isPerListenerSpec(e.servesAfterSigterm) ? e.servesAfterSigterm.listener : undefined],
      [`${p}/servesAfterSigterm/value`, e.servesAfterSigterm && (isPerListenerSpec(e.servesAfterSigterm) || isConfigValueSpec(e.servesAfterSigterm)) ? e.servesAfterSigterm.value : undefined],
      [`${p}/servesAfterSigterm/configFile/value`, e.servesAfterSigterm && isFlagValueSpec(e.servesAfterSigterm) ? e.servesAfterSigterm.configFile?.value : undefined],
      [`${p}/drain/listener`, e.drain && isPerListenerSpec(e.drain) ? e.drain.listener : undefined],
      [`${p}/drain/value`, e.drain && isPerListenerSpec(e.drain) ? e.drain.value : undefined],
      ...(e.probes ?? []).map((pr, j): [string, string | undefined] => [`${p}/probes/${j}/exec/command`, pr.exec?.command]),
      [`${p}/monitoringPort/value`, e.monitoringPort?.value],
      [`${p}/registersWebhooks/failOpen/args`, e.registersWebhooks?.failOpen?.args],
    ];
    for (const [ptr, re] of regexes) {
      if (re === undefined) continue;
      const err = regexError(re);
      if (err) throw new CatalogError(`invalid regular expression: ${err}`, ptr);
    }
    const sas = e.servesAfterSigterm;
    if (sas && isConfigValueSpec(sas) && !/\(\?<value>/.test(sas.value)) throw new CatalogError('the value regex needs a (?<value>...) group', `${p}/servesAfterSigterm/value`);
    if (sas && isFlagValueSpec(sas) && sas.configFile && !/\(\?<value>/.test(sas.configFile.value)) throw new CatalogError('the value regex needs a (?<value>...) group', `${p}/servesAfterSigterm/configFile/value`);
    const mp = e.monitoringPort?.value;
    if (mp !== undefined && !/\(\?<value>/.test(mp)) throw new CatalogError('the value regex needs a (?<value>...) group', `${p}/monitoringPort/value`);
    for (const key of ['servesAfterSigterm', 'drain'] as const) {
      const s = e[key];
      if (!s || !isPerListenerSpec(s)) continue;
      if (!/\(\?<name>/.test(s.listener)) throw new CatalogError('the listener regex needs a (?<name>...) group', `${p}/${key}/listener`);
      if (!/\(\?<name>/.test(s.value) || !/\(\?<value>/.test(s.value)) throw new CatalogError('the value regex needs (?<name>...) and (?<value>...) groups', `${p}/${key}/value`);
    }
  });
}

let documentValidator: ValidateFunction | undefined;
/**
 * Validates a parsed catalog document against catalog.schema.json (compiled with ajv now: this is
 * for tests and tools, the shipped data was validated when catalog.generated.ts was written),
 * then its regexes and IDs; returns its entries.
 */
export function parseCatalogDocument(raw: unknown): CatalogEntry[] {
  if (!documentValidator) {
    const A = (require('ajv') as typeof import('ajv')).default;
    documentValidator = new A({ allErrors: true, strict: false }).compile(JSON.parse(fs.readFileSync(catalogSchemaFile(), 'utf8')));
  }
  const v = documentValidator;
  if (!v(raw)) {
    const d = describeAjvErrors(v.errors);
    throw new CatalogError(d.message, d.pointer);
  }
  const entries = (raw as { entries: CatalogEntry[] }).entries;
  checkEntries(entries, '/entries');
  return entries;
}

/**
 * Validates a policy's `spec.catalog` with the same schema as the data file. Throws CatalogError
 * with a pointer relative to the override object (e.g. `/add/0/kind`).
 */
export function parseCatalogOverride(raw: unknown): CatalogOverride {
  const v = validateOverride();
  if (!v(raw)) {
    const d = describeAjvErrors(v.errors);
    throw new CatalogError(d.message, d.pointer);
  }
  const o = raw as CatalogOverride;
  checkEntries(o.add ?? [], '/add');
  return o;
}

let builtin: Catalog | undefined;
/**
 * The shipped catalog, loaded on first use from catalog.generated.ts (validated against the schema
 * when it was generated; regexes and IDs are checked here).
 */
export function builtinCatalog(): Catalog {
  if (!builtin) {
    const entries = shippedData().entries;
    try {
      checkEntries(entries, '/entries');
    } catch (e) {
      if (e instanceof CatalogError) throw new Error(`lib/catalog/catalog.yaml: ${e.pointer}: ${e.message} (the shipped catalog is invalid: a kubegrace bug)`);
      throw e;
    }
    builtin = new Catalog(entries);
  }
  return builtin;
}

let active: Catalog | undefined;
/**
 * The catalog of the current lint run (built-in plus the policy's override), or the built-in one
 * outside a run. Lets deep timeline helpers (preStop classification) honour a policy's catalog
 * without threading it through every caller; set only by withCatalog, which restores it.
 */
export function activeCatalog(): Catalog {
  return active ?? builtinCatalog();
}
export function withCatalog<T>(catalog: Catalog, fn: () => T): T {
  const prev = active;
  active = catalog;
  try {
    return fn();
  } finally {
    active = prev;
  }
}

// ---------------------------------------------------------------------------------------------
// Matching

/** The image reference split for matching: the repository with and without the registry host. */
export function imageRepository(image: string): { full: string; path: string } {
  let s = image.trim().toLowerCase();
  const at = s.indexOf('@');
  if (at >= 0) s = s.slice(0, at);
  const slash = s.lastIndexOf('/');
  const colon = s.lastIndexOf(':');
  if (colon > slash) s = s.slice(0, colon);
  const parts = s.split('/');
  let host: string | undefined;
  if (parts.length > 1 && (/[.:]/.test(parts[0]) || parts[0] === 'localhost')) host = parts.shift();
  if ((host === undefined || host === 'docker.io' || host === 'index.docker.io') && parts[0] === 'library' && parts.length > 1) parts.shift();
  const p = parts.join('/');
  return { full: host ? `${host}/${p}` : p, path: p };
}

/**
 * The version X.Y.Z of an image's tag (a leading `v` and a suffix such as `-alpine` allowed), or
 * undefined when the tag is none (a digest alone, a ko:// import path) or not a version (latest, a
 * branch, a commit).
 */
export function imageVersion(image: string): [number, number, number] | undefined {
  let s = image.trim();
  const at = s.indexOf('@');
  if (at >= 0) s = s.slice(0, at);
  const slash = s.lastIndexOf('/');
  const colon = s.lastIndexOf(':');
  if (colon <= slash) return undefined;
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+.].*)?$/.exec(s.slice(colon + 1));
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/**
 * The tag of an image reference: what follows the last `:` after the last `/`, before any digest;
 * `latest` when the reference has neither tag nor digest (what the runtime pulls); undefined when
 * it names a digest alone.
 */
export function imageTag(image: string): string | undefined {
  const s = image.trim();
  const at = s.indexOf('@');
  const name = at >= 0 ? s.slice(0, at) : s;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > slash) return name.slice(colon + 1);
  return at >= 0 ? undefined : 'latest';
}

/** Compiles an image glob: `*` matches any characters, a leading `*\/` may also match nothing. */
export function imageGlob(glob: string): RegExp {
  const esc = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  const src = glob.startsWith('*/') ? `(?:.*/)?${esc(glob.slice(2))}` : esc(glob);
  return new RegExp(`^${src}$`);
}

interface ContainerFacts {
  image: { full: string; path: string };
  /** The image tag's version X.Y.Z, when the tag is one. */
  version?: [number, number, number];
  /** The image tag (imageTag): `latest` when none is given, undefined for a digest alone. */
  tag?: string;
  portKeys: Set<string>;
  /** `name -> number` for resolving named probe ports. */
  portsByName: Map<string, number>;
  commandLine: string;
  argsLine: string;
  args: string[];
  /**
   * The words of the program's command line: `args`, but for a shell running a script (`sh -c
   * SCRIPT`, `/bin/sh -ec SCRIPT`, as charts that build a command line with templates write it)
   * the script's words (scriptWords). Only a flag for the whole process (FlagValueSpec) is read
   * from them.
   */
  words: string[];
  /** Whether `words` come from a shell script. */
  script: boolean;
}

/** A container view, or a raw container object (as the timeline functions see it). */
export type ContainerLike = ContainerView | JsonObject;

function rawOf(c: ContainerLike): JsonObject {
  return 'pointer' in c && 'raw' in c && isObject((c as ContainerView).raw) ? (c as ContainerView).raw : (c as JsonObject);
}

function strings(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x) => typeof x === 'string' || typeof x === 'number').map(String) : [];
}

const factsCache = new WeakMap<JsonObject, ContainerFacts>();
function factsOf(c: ContainerLike): ContainerFacts {
  const raw = rawOf(c);
  let f = factsCache.get(raw);
  if (f) return f;
  const portKeys = new Set<string>();
  const portsByName = new Map<string, number>();
  if (Array.isArray(raw.ports)) {
    for (const p of raw.ports) {
      if (!isObject(p)) continue;
      if (typeof p.containerPort === 'number') portKeys.add(String(p.containerPort));
      if (typeof p.name === 'string') {
        portKeys.add(p.name);
        if (typeof p.containerPort === 'number') portsByName.set(p.name, p.containerPort);
      }
    }
  }
  const command = strings(raw.command);
  const args = strings(raw.args);
  const argv = [...command, ...args];
  const script = shellScript(argv);
  f = {
    image: imageRepository(typeof raw.image === 'string' ? raw.image : ''),
    version: imageVersion(typeof raw.image === 'string' ? raw.image : ''),
    tag: typeof raw.image === 'string' ? imageTag(raw.image) : undefined,
    portKeys,
    portsByName,
    commandLine: [...command, ...args].join(' '),
    argsLine: args.join(' '),
    args: argv,
    words: script === undefined ? argv : scriptWords(script),
    script: script !== undefined,
  };
  factsCache.set(raw, f);
  return f;
}

/** A shell, by path or name (sh, bash, dash, ash). */
const SHELL_PROGRAM = /^(?:\S*\/)?(?:ba|da|a)?sh$/;

/**
 * The script of `sh -c SCRIPT [NAME ARGS...]`, with the options before `c` in one word (`-ec`,
 * `-xc`): undefined for any other command line.
 */
export function shellScript(argv: string[]): string | undefined {
  return argv.length >= 3 && SHELL_PROGRAM.test(argv[0]) && /^-[a-z]*c$/.test(argv[1]) ? argv[2] : undefined;
}

/**
 * A shell script's words, for reading a flag: line continuations (a backslash before the line's
 * end) joined, split at white space and at `;`, `&&`, `||` and `|`, and one pair of quotes taken off
 * a word or off what follows its first `=` (`-flag="10"`). Expansions (`${POD_NAME}`) stay as they
 * are; a value with spaces inside quotes is cut at them (and then is no valid value).
 */
export function scriptWords(script: string): string[] {
  return script
    .replace(/\\\r?\n/g, ' ')
    .split(/\s+|;|&&|\|\||\|/)
    .filter((w) => w !== '')
    .map((w) => w.replace(/^([^=]*=)?(["'])(.*)\2$/s, '$1$3'));
}

interface Compiled {
  entry: CatalogEntry;
  images?: ((image: string) => boolean)[];
  tags?: RegExp[];
  minVersion?: [number, number, number];
  beforeVersion?: [number, number, number];
  ports?: Set<string>;
  command?: RegExp;
  args?: RegExp;
  preStop?: RegExp;
  listener?: { serves?: { listener: RegExp; value: RegExp }; drain?: { listener: RegExp; value: RegExp } };
  configValue?: RegExp;
  probeExec?: (RegExp | undefined)[];
  monitoringValue?: RegExp;
  failOpenArgs?: RegExp;
}

/** A glob `*\/<Go import path>`: a domain name (with a dot), then at least one path element, no other wildcard. */
const IMPORT_PATH_GLOB = /^\*\/([a-z0-9-]+(?:\.[a-z0-9-]+)+(?:\/[a-z0-9._-]+)+)$/;

/**
 * ko's default image name for a Go import path: `<basename>-<md5 of the import path>` under
 * KO_DOCKER_REPO (github.com/tektoncd/pipeline/cmd/webhook -> webhook-d4749e605405422fd87700164e31b2d1).
 * ko-build/ko @42978711 pkg/commands/options/publish.go: packageWithMD5 (`path.Join(base,
 * path.Base(importpath)+"-"+hex.EncodeToString(md5(importpath)))`), which MakeNamer returns unless
 * --preserve-import-paths, --base-import-paths or --bare is given; pkg/publish/default.go Publish
 * lower-cases the import path (`strings.ToLower`) before naming it.
 */
export function koDefaultImageName(importPath: string): string {
  const p = importPath.toLowerCase();
  return `${path.posix.basename(p)}-${createHash('md5').update(p).digest('hex')}`;
}

/**
 * The globs an entry's image glob stands for: itself, and for a glob `*\/<Go import path>` (the
 * name ko gives with --preserve-import-paths, as Knative releases its images) also `*\/<ko's default
 * name>` (koDefaultImageName), as Tekton Pipelines releases them: ghcr.io/tektoncd/pipeline/
 * webhook-d4749e605405422fd87700164e31b2d1 (review round 35, report p54 item 1). Computed from the
 * import path, so no entry writes a hash.
 */
export function imageGlobVariants(glob: string): string[] {
  const m = IMPORT_PATH_GLOB.exec(glob);
  return m ? [glob, `*/${koDefaultImageName(m[1])}`] : [glob];
}

/**
 * An image glob as a test of an image path: `*\/name` without other wildcards (nearly every
 * entry) is the name itself or a path ending in `/name`, tested without a regular expression (the
 * catalog is matched against every container, for several kinds); other globs by imageGlob.
 */
export function imageTest(glob: string): (image: string) => boolean {
  if (/^\*\/[^*]+$/.test(glob)) {
    const name = glob.slice(2);
    const tail = `/${name}`;
    return (image) => image === name || image.endsWith(tail);
  }
  const re = imageGlob(glob);
  return (image) => re.test(image);
}

function compile(e: CatalogEntry): Compiled {
  const m = e.match;
  return {
    entry: e,
    images: m.images?.flatMap(imageGlobVariants).map(imageTest),
    tags: m.tags?.map(imageGlob),
    minVersion: m.minVersion !== undefined ? (m.minVersion.split('.').map(Number) as [number, number, number]) : undefined,
    beforeVersion: m.beforeVersion !== undefined ? (m.beforeVersion.split('.').map(Number) as [number, number, number]) : undefined,
    ports: m.ports ? new Set(m.ports.map(String)) : undefined,
    command: m.command !== undefined ? new RegExp(m.command) : undefined,
    args: m.args !== undefined ? new RegExp(m.args) : undefined,
    preStop: e.preStop ? new RegExp(e.preStop.command) : undefined,
    listener: {
      serves: e.servesAfterSigterm && isPerListenerSpec(e.servesAfterSigterm) ? { listener: new RegExp(e.servesAfterSigterm.listener), value: new RegExp(e.servesAfterSigterm.value) } : undefined,
      drain: e.drain && isPerListenerSpec(e.drain) ? { listener: new RegExp(e.drain.listener), value: new RegExp(e.drain.value) } : undefined,
    },
    probeExec: e.probes?.map((p) => (p.exec ? new RegExp(p.exec.command) : undefined)),
    configValue:
      e.servesAfterSigterm && isConfigValueSpec(e.servesAfterSigterm)
        ? new RegExp(e.servesAfterSigterm.value)
        : e.servesAfterSigterm && isFlagValueSpec(e.servesAfterSigterm) && e.servesAfterSigterm.configFile
          ? new RegExp(e.servesAfterSigterm.configFile.value)
          : undefined,
    monitoringValue: e.monitoringPort?.value !== undefined ? new RegExp(e.monitoringPort.value) : undefined,
    failOpenArgs: e.registersWebhooks?.failOpen?.args !== undefined ? new RegExp(e.registersWebhooks.failOpen.args) : undefined,
  };
}

/** Ports routed to a workload by Services (names, service ports and target ports). */
export interface RoutedPort {
  name?: string;
  port?: number;
  targetPort?: number | string;
}

function matchesContainer(c: Compiled, f: ContainerFacts, routed?: Set<string>): boolean {
  if (c.images && !c.images.some((test) => test(f.image.path) || test(f.image.full))) return false;
  if (c.tags && (f.tag === undefined || !c.tags.some((re) => re.test(f.tag!)))) return false;
  if (c.ports && ![...c.ports].some((p) => f.portKeys.has(p) || routed?.has(p))) return false;
  if (c.command && !c.command.test(f.commandLine)) return false;
  if (c.args && !c.args.test(f.argsLine)) return false;
  if (c.minVersion && f.version && versionBelow(f.version, c.minVersion)) return false;
  if (c.beforeVersion && (!f.version || !versionBelow(f.version, c.beforeVersion))) return false;
  return true;
}

function versionBelow(v: [number, number, number], min: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] < min[i];
  return false;
}

/** The value of `--flag=v`, `--flag v`, `-flag=v` or `-flag v` in an argument list. */
export function flagValue(args: string[], flag: string): string | undefined {
  const names = new Set([flag, flag.startsWith('--') ? flag.slice(1) : `-${flag}`]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.indexOf('=');
    if (eq > 0 && names.has(a.slice(0, eq))) return a.slice(eq + 1);
    if (names.has(a) && i + 1 < args.length) return args[i + 1];
  }
  return undefined;
}

/**
 * The port of a listen address as Go's net.SplitHostPort reads it (`host:port`, `:port`,
 * `[host]:port`), through `asPort`; undefined without one (`8085` alone, which Go refuses: "missing
 * port in address").
 */
function addressPort(v: string, asPort: (p: string) => number | undefined): number | undefined {
  const m = /^(?:\[[^\]]*\]|[^:[\]]*):([^:]*)$/.exec(v.trim());
  return m ? asPort(m[1]) : undefined;
}

/** An absolute path in the container: relative ones from its workingDir, else / (the usual image WORKDIR). */
function containerPath(p: string, workingDir: Json | undefined): string {
  if (p.startsWith('/')) return p;
  const base = typeof workingDir === 'string' && workingDir.startsWith('/') ? workingDir : '/';
  return `${base.replace(/\/+$/, '')}/${p}`;
}

/** A line without its comment: from the marker, where it starts the line or follows white space. */
function withoutComment(line: string, marker: string): string {
  for (let i = line.indexOf(marker); i >= 0; i = line.indexOf(marker, i + 1)) if (i === 0 || /\s/.test(line[i - 1])) return line.slice(0, i);
  return line;
}

/**
 * The config file a program reads (the value of its flag or an alias in the container's command
 * and args, else the default path) and its lines (comments removed) that match `re`, with their
 * `value` group; or why the input does not hold the file (without `readFile`, none is read).
 */
function configFileMatches(
  file: ConfigFileSpec,
  comment: string | undefined,
  re: RegExp,
  c: ContainerLike,
  readFile?: ReadContainerFile,
): { path: string; missing: string } | { path: string; where: string; values: { value: string; text: string }[] } {
  const raw = rawOf(c);
  const args = factsOf(raw).args;
  let flagged: string | undefined;
  for (const f of [...(file.flag ? [file.flag] : []), ...(file.aliases ?? [])]) if ((flagged = flagValue(args, f)) !== undefined) break;
  const named = flagged ?? file.default;
  // No file named and none by default: the program reads none, so no line sets the value.
  if (named === undefined) return { path: '', where: `no config file (${[file.flag, ...(file.aliases ?? [])].filter((f) => f).join(' or ')} not given)`, values: [] };
  const p = containerPath(named, raw.workingDir);
  const read = readFile?.(p);
  if (!read || 'missing' in read) return { path: p, missing: read?.missing ?? 'not read' };
  const values: { value: string; text: string }[] = [];
  for (const line of read.text.split(/\r?\n/)) {
    const m = re.exec(comment ? withoutComment(line, comment) : line);
    const v = m?.groups?.value;
    if (v !== undefined) values.push({ value: v, text: m![0].trim() });
  }
  return { path: p, where: read.where, values };
}

/** What a valueFrom of an env entry reads, for messages: `ConfigMap keda-config, key delay`. */
function valueFromWords(v: Json | undefined): string {
  if (!isObject(v)) return 'valueFrom';
  const ref = (r: Json | undefined, what: string) => (isObject(r) ? `${what} ${String(r.name ?? '')}, key ${String(r.key ?? '')}` : undefined);
  return (
    ref(v.configMapKeyRef, 'ConfigMap') ??
    ref(v.secretKeyRef, 'Secret') ??
    (isObject(v.fieldRef) ? `field ${String(v.fieldRef.fieldPath ?? '')}` : undefined) ??
    (isObject(v.resourceFieldRef) ? `resource ${String(v.resourceFieldRef.resource ?? '')}` : undefined) ??
    'valueFrom'
  );
}

/**
 * The seconds an environment variable of the container gives (EnvValueSpec), with how they were
 * read: the last `env` entry of that name (the kubelet keeps the last of duplicates, and `env` wins
 * over `envFrom`) with a literal value; unset or empty, the program's default (envconfig readers
 * such as caarlos0/env take an empty value as unset). Unknown (no seconds) when the value comes
 * from a ConfigMap, Secret or field (valueFrom), refers to another variable ($(VAR), expanded by
 * the kubelet), cannot be read in the unit, is 0 where 0 means no limit, or when `env` does not
 * list the variable but an `envFrom` source (without a prefix that excludes it) may set it.
 */
export function envSeconds(c: ContainerLike, spec: EnvValueSpec): { seconds?: number; derivation: string } {
  const raw = rawOf(c);
  let hit: JsonObject | undefined;
  for (const e of Array.isArray(raw.env) ? raw.env : []) if (isObject(e) && e.name === spec.env) hit = e;
  const byDefault = `${spec.env} unset, default ${spec.default}s`;
  if (!hit) {
    const from = (Array.isArray(raw.envFrom) ? raw.envFrom : []).filter((f): f is JsonObject => isObject(f) && (typeof f.prefix !== 'string' || spec.env.startsWith(f.prefix)));
    if (!from.length) return { seconds: spec.default, derivation: byDefault };
    const names = from.map((f) => (isObject(f.configMapRef) ? `ConfigMap ${String(f.configMapRef.name ?? '')}` : isObject(f.secretRef) ? `Secret ${String(f.secretRef.name ?? '')}` : 'a source')).join(', ');
    return { derivation: `${spec.env} is not in env, and envFrom (${names}) may set it (not read)` };
  }
  if (hit.valueFrom !== undefined && hit.valueFrom !== null) return { derivation: `${spec.env} is set from ${valueFromWords(hit.valueFrom)} (not read)` };
  const v = hit.value === undefined || hit.value === null ? '' : String(hit.value);
  if (v === '') return { seconds: spec.default, derivation: `${spec.env} empty, default ${spec.default}s` };
  if (v.includes('$(')) return { derivation: `${spec.env}=${v} refers to another variable (not read)` };
  const seconds = valueSeconds(v, spec.unit);
  if (seconds === undefined) return { derivation: `${spec.env}=${v} is not a ${spec.unit === 'seconds' ? 'number of seconds' : 'duration'}` };
  if (seconds === 0 && spec.zero === 'unbounded') return { derivation: `${spec.env}=${v}: no limit` };
  return { seconds, derivation: `${spec.env}=${v}` };
}

/**
 * The literal value of the container's environment variable `name` (its last `env` entry, which
 * wins over envFrom); undefined when unset, set from valueFrom, or referring to another variable.
 */
/** The container's last `env` entry of that name, if any. */
function envEntry(c: ContainerLike, name: string): JsonObject | undefined {
  const raw = rawOf(c);
  let hit: JsonObject | undefined;
  for (const e of Array.isArray(raw.env) ? raw.env : []) if (isObject(e) && e.name === name) hit = e;
  return hit;
}

/** Whether the container's env entry of that name (its last) is empty, literally: the program's default, as unset. */
function envUnset(c: ContainerLike, name: string): boolean {
  const hit = envEntry(c, name);
  return !hit || ((hit.valueFrom === undefined || hit.valueFrom === null) && (hit.value === undefined || hit.value === null || hit.value === ''));
}

function literalEnv(c: ContainerLike, name: string): string | undefined {
  const hit = envEntry(c, name);
  if (!hit || (hit.valueFrom !== undefined && hit.valueFrom !== null)) return undefined;
  const v = hit.value === undefined || hit.value === null ? '' : String(hit.value);
  return v === '' || v.includes('$(') ? undefined : v;
}

function valueSeconds(v: string, unit: 'seconds' | 'duration' | 'milliseconds'): number | undefined {
  const t = v.trim();
  if (unit === 'seconds') return /^\d+(\.\d+)?$/.test(t) ? Number(t) : undefined;
  if (unit === 'milliseconds') return /^\d+$/.test(t) ? Number(t) / 1000 : undefined;
  return parseSeconds(t);
}

/** What a known preStop program does to the timeline. */
export interface KnownPreStop {
  entry: CatalogEntry;
  /** Seconds the container keeps accepting new connections once the hook starts; undefined when unknown (or an arg is malformed). */
  seconds?: number;
  bound: 'exact' | 'at-least';
  /** How the seconds were derived, for messages: "--shutdown-grace-period (default 0s)". */
  derivation: string;
}

export interface WorkloadMatch {
  entry: CatalogEntry;
  container: ContainerView;
}

export interface CatalogConnection {
  pattern: ConnectionPattern;
  entry: CatalogEntry;
  container: ContainerView;
  reconnectBackoff?: string;
}

/** A catalog: entries compiled once; lookups cached per container object. */
export class Catalog {
  private readonly compiled: Compiled[];
  private readonly byKind = new Map<CatalogKind, Compiled[]>();
  private readonly cache = new WeakMap<JsonObject, Map<CatalogKind, Compiled[]>>();

  constructor(readonly entries: readonly CatalogEntry[]) {
    this.compiled = entries.map(compile);
    for (const k of CATALOG_KINDS) this.byKind.set(k, this.compiled.filter((c) => c.entry.kind === k));
  }

  get(id: string): CatalogEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /**
   * This catalog with a policy's override applied: `disable` drops built-in entries by ID (an
   * unknown ID is an error), `add` appends entries (an ID already present is an error: disable it
   * and add yours under another ID). Errors carry the override-relative pointer.
   */
  withOverride(o: CatalogOverride): Catalog {
    const disable = o.disable ?? [];
    disable.forEach((id, i) => {
      if (!this.get(id)) throw new CatalogError(`unknown catalog entry "${id}"; see docs/catalog.md for the IDs`, `/disable/${i}`);
    });
    const kept = this.entries.filter((e) => !disable.includes(e.id));
    const add = o.add ?? [];
    add.forEach((e, i) => {
      if (kept.some((k) => k.id === e.id)) throw new CatalogError(`entry id "${e.id}" is already in the catalog; disable it and add yours under another id`, `/add/${i}/id`);
    });
    return new Catalog([...kept, ...add]);
  }

  /** Entries of a kind (all kinds when omitted) that match one container, in catalog order. */
  matchContainer(c: ContainerLike, kind?: CatalogKind, routed?: Set<string>): CatalogEntry[] {
    const raw = rawOf(c);
    return this.compiledFor(c, kind, routed)
      .filter((x) => this.applies(x, raw))
      .map((x) => x.entry);
  }

  /** A preStop-program entry applies when the container's hook runs it; a probe entry when one of its probes is the one listed. */
  private applies(x: Compiled, raw: JsonObject): boolean {
    if (x.entry.kind === 'prestop-program') return this.knownPreStopProgram(raw)?.entry === x.entry;
    if (x.entry.kind === 'process-local-probe') return ['livenessProbe', 'readinessProbe', 'startupProbe'].some((k) => this.isProcessLocalProbe(raw, raw[k]) === x.entry);
    if (x.entry.kind === 'dependency-probe') return ['livenessProbe', 'readinessProbe', 'startupProbe'].some((k) => this.dependencyProbe(raw, raw[k]) === x.entry);
    return true;
  }

  private compiledFor(c: ContainerLike, kind: CatalogKind | undefined, routed?: Set<string>): Compiled[] {
    const raw = rawOf(c);
    if (!kind) return CATALOG_KINDS.flatMap((k) => this.compiledFor(c, k, routed));
    const list = this.byKind.get(kind) ?? [];
    if (routed?.size) return list.filter((x) => matchesContainer(x, factsOf(raw), routed));
    let perKind = this.cache.get(raw);
    if (!perKind) this.cache.set(raw, (perKind = new Map()));
    let hit = perKind.get(kind);
    if (!hit) perKind.set(kind, (hit = list.filter((x) => matchesContainer(x, factsOf(raw)))));
    return hit;
  }

  /** Every entry that matches a main container of the workload (catalogMatches). */
  catalogMatches(w: Workload, container?: ContainerView): WorkloadMatch[] {
    const cs = container ? [container] : w.containers;
    return cs.flatMap((c) => this.matchContainer(c).map((entry) => ({ entry, container: c })));
  }

  /** The catalog's connection pattern of a workload (no hints: see connectionPatternOf below). */
  connectionPattern(w: Workload, routedPorts: RoutedPort[] = []): CatalogConnection | undefined {
    const routed = new Set<string>();
    for (const p of routedPorts) {
      if (p.name) routed.add(p.name);
      if (p.targetPort !== undefined) routed.add(String(p.targetPort));
      else if (p.port !== undefined) routed.add(String(p.port));
    }
    for (const c of w.containers) {
      const hit = this.compiledFor(c, 'connection-pattern', routed)[0];
      if (hit) return { pattern: hit.entry.connectionPattern!, entry: hit.entry, container: c, reconnectBackoff: hit.entry.reconnectBackoff };
    }
    return undefined;
  }

  /** The known preStop program a container's exec preStop runs, with its delay. */
  knownPreStopProgram(c: ContainerLike, command?: string[]): KnownPreStop | undefined {
    const raw = rawOf(c);
    const cmd = command ?? strings(get(raw, 'lifecycle', 'preStop', 'exec', 'command'));
    if (!cmd.length) return undefined;
    const joined = cmd.join(' ').trim();
    for (const x of this.compiledFor(raw, 'prestop-program')) {
      if (!x.preStop!.test(joined)) continue;
      const spec = x.entry.preStop!;
      const bound = spec.delay.bound ?? 'exact';
      if (spec.delay.unknown) return { entry: x.entry, bound, derivation: 'unknown' };
      if (spec.delay.seconds !== undefined) return { entry: x.entry, seconds: spec.delay.seconds, bound, derivation: `fixed ${spec.delay.seconds}s` };
      let total = 0;
      const parts: string[] = [];
      for (const a of spec.delay.args ?? []) {
        const v = flagValue(a.from === 'preStop' ? cmd : factsOf(raw).args, a.flag);
        if (v === undefined) {
          total += a.default;
          parts.push(`${a.flag} unset (default ${a.default}s)`);
          continue;
        }
        const s = valueSeconds(v, a.unit);
        if (s === undefined) return { entry: x.entry, bound, derivation: `${a.flag}=${v} is not a ${a.unit === 'seconds' ? 'number of seconds' : 'duration'}` };
        total += s;
        parts.push(`${a.flag}=${v}`);
      }
      return { entry: x.entry, seconds: total, bound, derivation: parts.join(' + ') };
    }
    return undefined;
  }

  /**
   * The preStop httpGet (path and port in the pod) that waits for this container's own hook, when
   * the hook runs a program whose entry says so (awaitedBy); undefined otherwise, or when the port
   * flag cannot be read.
   */
  awaitedHook(c: ContainerLike): { entry: CatalogEntry; path: string; port: number } | undefined {
    const known = this.knownPreStopProgram(c);
    const a = known?.entry.preStop?.awaitedBy;
    if (!known || !a) return undefined;
    const v = a.portFlag ? flagValue(factsOf(c).args, a.portFlag) : undefined;
    if (v !== undefined && !/^\d+$/.test(v.trim())) return undefined;
    return { entry: known.entry, path: a.path, port: v !== undefined ? Number(v.trim()) : a.port };
  }

  /** The catalog entry that marks this probe of this container process-local, if any. */
  isProcessLocalProbe(c: ContainerLike, probe: Json | undefined): CatalogEntry | undefined {
    if (!isObject(probe)) return undefined;
    const f = factsOf(c);
    for (const x of this.compiledFor(c, 'process-local-probe')) {
      if (x.entry.probes!.some((spec, i) => probeMatches(spec, x.probeExec?.[i], probe, f))) return x.entry;
    }
    return undefined;
  }

  /**
   * The process-local-probe entry marked answersFromStart that lists this probe of this container:
   * the probe passes from the moment the program's listener is up, whatever its start still does.
   */
  answersFromStart(c: ContainerLike, probe: Json | undefined): CatalogEntry | undefined {
    if (!isObject(probe)) return undefined;
    const f = factsOf(c);
    for (const x of this.compiledFor(c, 'process-local-probe')) {
      if (x.entry.answersFromStart !== true) continue;
      if (x.entry.probes!.some((spec, i) => probeMatches(spec, x.probeExec?.[i], probe, f))) return x.entry;
    }
    return undefined;
  }

  /**
   * The dependency-probe entry that says this probe of this container checks something beyond the
   * process (a database, the cluster's seed nodes), if any: one of its probes is this one, and its
   * `dependency.env` condition, when it has one, holds.
   */
  dependencyProbe(c: ContainerLike, probe: Json | undefined): CatalogEntry | undefined {
    if (!isObject(probe)) return undefined;
    const f = factsOf(c);
    for (const x of this.compiledFor(c, 'dependency-probe')) {
      const env = x.entry.dependency?.env;
      if (env && !env.values.includes(literalEnv(c, env.name) ?? '')) continue;
      if (x.entry.probes!.some((spec, i) => probeMatches(spec, x.probeExec?.[i], probe, f))) return x.entry;
    }
    return undefined;
  }

  /**
   * The process-local-probe entry that names `port`, a number, as the port of this container's
   * own health check for `handler` (its spec pins that port, and the path when it gives one): the
   * program serves it there whether or not the container declares it (e.g. ingress-nginx's
   * /healthz on 10254, the OpenTelemetry Collector's health_check extension on 13133).
   */
  programProbePort(c: ContainerLike, probe: Json | undefined, handler: 'httpGet' | 'tcpSocket' | 'grpc'): CatalogEntry | undefined {
    if (!isObject(probe) || !isObject(probe[handler])) return undefined;
    const port = (probe[handler] as JsonObject).port;
    if (typeof port !== 'number') return undefined;
    const f = factsOf(c);
    for (const x of this.compiledFor(c, 'process-local-probe')) {
      for (const spec of x.entry.probes!) {
        const pinned = spec[handler]?.port;
        if (typeof pinned === 'number' && pinned === port && probeMatches({ [handler]: spec[handler] }, undefined, probe, f)) return x.entry;
      }
    }
    return undefined;
  }

  /** The entry (and container) saying the workload's members discover each other, if any (no hints). */
  peerDiscovery(w: Workload): WorkloadMatch | undefined {
    for (const c of w.containers) {
      const hit = this.compiledFor(c, 'peer-discovery')[0];
      if (hit) return { entry: hit.entry, container: c };
    }
    return undefined;
  }

  /**
   * The entry (and container) saying the workload runs a program that must not run two versions
   * at once (Kibana: no rolling upgrades), if any: the first main container that matches.
   */
  singleVersion(w: Workload): WorkloadMatch | undefined {
    for (const c of w.containers) {
      const hit = this.compiledFor(c, 'single-version')[0];
      if (hit) return { entry: hit.entry, container: c };
    }
    return undefined;
  }

  /**
   * The program of the workload that registers fail-closed admission webhooks at run time (the
   * first main container matching a registers-webhooks entry whose failOpen args do not match, whose
   * enabledBy env settings all hold and none of whose disabledBy settings may hold),
   * with the Service its webhooks call; undefined otherwise.
   */
  runtimeWebhooks(w: Workload): RuntimeWebhooks | undefined {
    for (const c of w.containers) {
      if (c.role !== 'main') continue;
      for (const x of this.compiledFor(c, 'registers-webhooks')) {
        const spec = x.entry.registersWebhooks!;
        const f = factsOf(c);
        if (x.failOpenArgs?.test(f.commandLine)) continue;
        const on = (spec.enabledBy ?? []).map((e) => ({ name: e.name, value: literalEnv(c, e.name), values: e.values }));
        if (on.some((e) => e.value === undefined || !e.values.includes(e.value))) continue;
        const off = (spec.disabledBy ?? []).some((e) => {
          if (envUnset(c, e.name)) return false;
          const v = literalEnv(c, e.name);
          return v === undefined || e.values.includes(v);
        });
        if (off) continue;
        const enabledBy = on.map((e) => `${e.name}=${e.value}`);
        // (As Go's os.Getenv with a fallback: unset or empty is the default; valueFrom or $(VAR) is unknown.)
        const set = spec.service.env !== undefined ? envEntry(c, spec.service.env) : undefined;
        const literal = set && (set.valueFrom === undefined || set.valueFrom === null) ? (set.value === undefined || set.value === null ? '' : String(set.value)) : undefined;
        if (!set || literal === '') return { entry: x.entry, container: c, service: spec.service.default, serviceFrom: "the program's default", enabledBy };
        return { entry: x.entry, container: c, service: literal === undefined || literal.includes('$(') ? undefined : literal, serviceFrom: `env ${spec.service.env}`, enabledBy };
      }
    }
    return undefined;
  }

  /**
   * Seconds a program keeps accepting after SIGTERM by itself: from its args (Traefik's
   * requestAcceptGraceTimeout per entry point), from its config file (CoreDNS's lameduck in the
   * Corefile), which `readFile` reads (without it, or when the input does not hold the file, the
   * seconds are unknown), or fixed in its code (the Knative activator's 45s).
   */
  servesAfterSigterm(c: ContainerLike, readFile?: ReadContainerFile): ServesAfterSigtermFact | undefined {
    const x = this.compiledFor(c, 'serves-after-sigterm').find((y) => y.entry.servesAfterSigterm);
    if (!x) return undefined;
    const spec = x.entry.servesAfterSigterm!;
    if (isConfigValueSpec(spec)) return this.configValue(x, spec, c, readFile);
    if (isFixedSecondsSpec(spec)) {
      if (spec.bound === 'quiet-period') return { entry: x.entry, seconds: spec.seconds, quietPeriod: true, derivation: `a quiet period of ${spec.seconds}s that each request restarts, fixed in the program` };
      return { entry: x.entry, seconds: spec.seconds, derivation: spec.bound === 'at-least' ? 'at least that long, fixed in the program' : 'fixed in the program' };
    }
    if (isEnvValueSpec(spec)) return { entry: x.entry, ...envSeconds(c, spec) };
    if (isFlagValueSpec(spec)) return this.flagValue(x, spec, c, readFile);
    return this.perListener(c, 'serves');
  }

  /**
   * What to write so that a known program keeps accepting for `seconds` after SIGTERM, for advice:
   * its own setting (the entry's `setting`) where it is short or cannot be read, with where to
   * write it; undefined when the entry gives no setting (a fixed time has none) or nothing is short.
   */
  servesAfterSigtermSetting(c: ContainerLike, seconds: number, readFile?: ReadContainerFile): { entry: CatalogEntry; text: string } | undefined {
    const x = this.compiledFor(c, 'serves-after-sigterm').find((y) => y.entry.servesAfterSigterm);
    const spec = x?.entry.servesAfterSigterm;
    if (!x || !spec || isFixedSecondsSpec(spec)) return undefined;
    if (isPerListenerSpec(spec)) {
      const a = this.servesAfterSigtermArgs(c, seconds);
      return a && { entry: a.entry, text: `${a.args.join(' ')} in the container's args` };
    }
    if (isEnvValueSpec(spec)) {
      const now = envSeconds(c, spec);
      if (now.seconds !== undefined && now.seconds >= seconds) return undefined;
      const value = spec.unit === 'duration' ? `${seconds}s` : String(seconds);
      return { entry: x.entry, text: `env {name: ${spec.env}, value: "${value}"} in the container (${spec.chartValue ? `chart value ${spec.chartValue}: ${value}; ` : ''}now ${now.derivation})` };
    }
    if (isFlagValueSpec(spec)) {
      if (!spec.setting) return undefined;
      const now = this.flagValue(x, spec, c, readFile);
      if (now.seconds !== undefined && now.seconds >= seconds) return undefined;
      const value = spec.unit === 'duration' ? `${seconds}s` : String(seconds);
      const where = factsOf(c).script ? "the container's shell script, on the program's command line" : "the container's args";
      return { entry: x.entry, text: `${spec.setting.replace('{value}', () => value)} in ${where} (now ${now.derivation})` };
    }
    if (!spec.setting) return undefined;
    const now = this.configValue(x, spec, c, readFile);
    if (now.seconds !== undefined && now.seconds >= seconds) return undefined;
    const value = spec.unit === 'duration' ? `${seconds}s` : spec.unit === 'milliseconds' ? String(seconds * 1000) : String(seconds);
    const where = now.file?.where ?? `${now.file?.path} (${now.file?.missing})`;
    return { entry: x.entry, text: `${spec.setting.replace('{value}', () => value)} in ${where}` };
  }

  /** A flag for the whole process (Skipper's -wait-for-healthcheck-interval), else its config file's line, else the default. */
  private flagValue(x: Compiled, spec: FlagValueSpec, c: ContainerLike, readFile?: ReadContainerFile): ServesAfterSigtermFact {
    const words = spec.unit === 'seconds' ? 'number of seconds' : 'duration';
    const args = factsOf(c).args;
    // The flag also where a shell script runs the program (`sh -ec "exec weed volume -preStopSeconds=5"`).
    const v = flagValue(factsOf(c).words, spec.flag);
    if (v !== undefined) {
      const seconds = valueSeconds(v, spec.unit);
      return seconds === undefined ? { entry: x.entry, derivation: `${spec.flag}=${v} is not a ${words}` } : { entry: x.entry, seconds, derivation: `${spec.flag}=${v}` };
    }
    const byDefault = `${spec.flag} not set, default ${spec.default}s`;
    const cf = spec.configFile;
    if (!cf || !x.configValue || flagValue(args, cf.flag) === undefined) return { entry: x.entry, seconds: spec.default, derivation: byDefault };
    // The file the program reads before its flags: its last line that sets the value counts.
    const read = configFileMatches({ flag: cf.flag, default: '' }, cf.comment, x.configValue, c, readFile);
    if ('missing' in read) return { entry: x.entry, file: { path: read.path, missing: read.missing }, derivation: `${spec.flag} not set, and ${read.path} (${cf.flag}) may set it but cannot be read (${read.missing})` };
    const out: ServesAfterSigtermFact = { entry: x.entry, file: { path: read.path, where: read.where } };
    const last = read.values[read.values.length - 1];
    if (!last) return { ...out, seconds: spec.default, derivation: `${byDefault} (${read.where} sets none)` };
    const seconds = valueSeconds(last.value, spec.unit);
    return seconds === undefined ? { ...out, derivation: `"${last.text}" in ${read.where} is not a ${words}` } : { ...out, seconds, derivation: `${last.text} in ${read.where}` };
  }

  private configValue(x: Compiled, spec: ConfigValueSpec, c: ContainerLike, readFile?: ReadContainerFile): ServesAfterSigtermFact {
    const read = configFileMatches(spec.file, spec.comment, x.configValue!, c, readFile);
    if ('missing' in read) return { entry: x.entry, file: { path: read.path, missing: read.missing }, derivation: `${read.path} cannot be read (${read.missing})` };
    const values = read.values.map((v) => ({ seconds: valueSeconds(v.value, spec.unit), text: v.text }));
    const out: ServesAfterSigtermFact = { entry: x.entry, file: { path: read.path, where: read.where } };
    if (!values.length) return { ...out, seconds: spec.default, derivation: `${read.where} sets none (default ${spec.default}s)` };
    const bad = values.find((v) => v.seconds === undefined);
    if (bad) return { ...out, derivation: `"${bad.text}" in ${read.where} is not a ${spec.unit === 'duration' ? 'duration' : `number of ${spec.unit}`}` };
    const all = values.map((v) => v.seconds!);
    const seconds = spec.combine === 'sum' ? all.reduce((a, b) => a + b, 0) : Math.min(...all);
    return { ...out, seconds, derivation: `${values.map((v) => v.text).join(', ')} in ${read.where}` };
  }

  /**
   * The port of the program's own monitoring server (a monitoring-port entry): its config file's
   * setting, which `readFile` reads (the program reads the file after its flags, so it wins), else
   * the first of the entry's flags in the container's command and args, else the program's default.
   * A file the input does not hold leaves the flag's or the default port (said in the derivation);
   * a setting that is not a port number (a variable the program substitutes) leaves it unknown.
   */
  monitoringPort(c: ContainerLike, readFile?: ReadContainerFile): MonitoringPortFact | undefined {
    const x = this.compiledFor(c, 'monitoring-port').find((y) => y.entry.monitoringPort);
    if (!x) return undefined;
    const spec = x.entry.monitoringPort!;
    const asPort = (v: string) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 65535 ? Number(v) : undefined);
    let port: number | undefined = spec.default;
    let derivation = `default ${spec.default}`;
    const args = factsOf(c).args;
    for (const f of spec.flags ?? []) {
      const v = flagValue(args, f);
      if (v === undefined) continue;
      port = spec.flagForm === 'address' ? addressPort(v, asPort) : asPort(v);
      derivation = port === undefined ? `${f} ${v} is not a port number` : `${f} ${v}`;
      break;
    }
    if (!spec.file || !x.monitoringValue) return { entry: x.entry, port, derivation };
    const read = configFileMatches(spec.file, spec.comment, x.monitoringValue, c, readFile);
    if ('missing' in read) return { entry: x.entry, port, derivation: `${derivation} (${read.path} cannot be read: ${read.missing})` };
    const last = read.values[read.values.length - 1];
    if (!last) return { entry: x.entry, port, derivation: `${derivation} (${read.where} sets none)` };
    const v = asPort(last.value);
    return { entry: x.entry, port: v, derivation: v === undefined ? `"${last.text}" in ${read.where} is not a port number` : `${last.text} in ${read.where}` };
  }

  /**
   * Seconds a program drains in-flight requests after it stops accepting (e.g. Traefik's
   * graceTimeOut): the longest over the listeners that carry traffic, since the process exits when
   * the last one is done; undefined seconds when one cannot be read.
   */
  drainSeconds(c: ContainerLike): { entry: CatalogEntry; seconds?: number; derivation?: string } | undefined {
    // A program that reads its drain from an environment variable (the KEDA interceptor's
    // KEDA_HTTP_DRAIN_TIMEOUT): one time for the whole process, after it stops accepting.
    const env = this.compiledFor(c, 'serves-after-sigterm').find((y) => y.entry.drain);
    if (env && isEnvValueSpec(env.entry.drain!)) return { entry: env.entry, ...envSeconds(c, env.entry.drain) };
    // A setting the catalog does not read (the Zeebe gateway's Spring shutdown-phase timeout): its default.
    if (env && isUnreadSettingSpec(env.entry.drain!)) return { entry: env.entry, seconds: env.entry.drain.default, derivation: `${env.entry.drain.setting} not read, default ${env.entry.drain.default}s` };
    const d = this.listenerValues(c, 'drain');
    if (!d) return undefined;
    if (!d.used.length) return { entry: d.entry, seconds: d.spec.default };
    // Each listener shuts down on its own (Traefik: TCPEntryPoint.Shutdown per entry point, all at
    // once): it accepts for its serves time, then drains. The process exits when the last is done,
    // and the schedule counts the smallest serves time (servesAfterSigterm) before the drain: the
    // drain is what remains after it, so that the two add up to the last listener's end.
    const s = this.listenerValues(c, 'serves');
    const servesOf = (l: string) => (s && s.entry === d.entry ? s.valueOf(l) : 0);
    let end = 0;
    let start = Infinity;
    for (const l of d.used) {
      const dv = d.valueOf(l);
      const sv = servesOf(l);
      if (dv === undefined || sv === undefined) return { entry: d.entry, seconds: undefined };
      end = Math.max(end, sv + dv);
      start = Math.min(start, sv);
    }
    return { entry: d.entry, seconds: end - start };
  }

  /**
   * The args that make a known program keep accepting for `seconds` after SIGTERM on every
   * listener that carries traffic and has less (the entry's `setting` per listener, e.g. Traefik's
   * requestAcceptGraceTimeout per entry point); undefined when the entry gives no setting, no
   * listener is named, or none is short.
   */
  servesAfterSigtermArgs(c: ContainerLike, seconds: number): { entry: CatalogEntry; args: string[] } | undefined {
    const r = this.listenerValues(c, 'serves');
    const setting = r?.spec.setting;
    if (!r || !setting) return undefined;
    const value = r.spec.unit === 'duration' ? `${seconds}s` : String(seconds);
    // A value that cannot be read counts as short (acceptsAfterSigterm does not trust it either).
    const short = r.used.filter((l) => (r.valueOf(l) ?? 0) < seconds);
    if (!short.length) return undefined;
    return { entry: r.entry, args: short.map((l) => setting.replace('{name}', () => l).replace('{value}', () => value)) };
  }

  private perListener(c: ContainerLike, which: 'serves' | 'drain'): ServesAfterSigtermFact | undefined {
    const r = this.listenerValues(c, which);
    if (!r) return undefined;
    if (!r.used.length) return { entry: r.entry, seconds: r.spec.default };
    let min: number | undefined = Infinity;
    let at = '';
    for (const l of r.used) {
      const v = r.valueOf(l);
      if (v === undefined) return { entry: r.entry, seconds: undefined, derivation: `${r.argOf(l)} is not a ${r.spec.unit === 'seconds' ? 'number of seconds' : 'duration'}` };
      if (v < min) [min, at] = [v, l];
    }
    // For messages: the listener that sets the time, by its arg or as the default.
    const arg = r.argOf(at);
    return { entry: r.entry, seconds: min, derivation: arg ?? `listener ${at}: default ${r.spec.default}s` };
  }

  /**
   * The first serves-after-sigterm entry matching the container that has a `which` spec: the
   * listeners its args name that carry traffic (not `ignore`d), in order, and each one's value in
   * seconds (its flag, else the default; undefined when the flag cannot be read).
   */
  private listenerValues(
    c: ContainerLike,
    which: 'serves' | 'drain',
  ): { entry: CatalogEntry; spec: PerListenerSpec; used: string[]; valueOf: (l: string) => number | undefined; argOf: (l: string) => string | undefined } | undefined {
    const f = factsOf(c);
    for (const x of this.compiledFor(c, 'serves-after-sigterm')) {
      const re = x.listener?.[which];
      // (`re` exists only for per-listener specs.)
      const spec = (which === 'serves' ? x.entry.servesAfterSigterm : x.entry.drain) as PerListenerSpec | undefined;
      if (!re || !spec) continue;
      const values = new Map<string, number | undefined>();
      const args = new Map<string, string>();
      const listeners = new Set<string>();
      for (const a of f.args) {
        const l = re.listener.exec(a)?.groups?.name;
        if (l !== undefined) listeners.add(l);
        const m = re.value.exec(a)?.groups;
        if (m?.name !== undefined && m.value !== undefined) {
          values.set(m.name, valueSeconds(m.value, spec.unit));
          args.set(m.name, a);
        }
      }
      const used = [...listeners].filter((l) => !(spec.ignore ?? []).includes(l));
      return { entry: x.entry, spec, used, valueOf: (l) => (values.has(l) ? values.get(l) : spec.default), argOf: (l) => args.get(l) };
    }
    return undefined;
  }
}

function portMatches(spec: number | string | undefined, port: Json | undefined, f: ContainerFacts): boolean {
  if (spec === undefined) return true;
  if (port === undefined) return false;
  if (String(spec) === String(port)) return true;
  // A named probe port against a numeric spec (or the reverse), resolved through the container's ports.
  if (typeof port === 'string' && typeof spec === 'number') return f.portsByName.get(port) === spec;
  if (typeof port === 'number' && typeof spec === 'string') return f.portsByName.get(spec) === port;
  return false;
}

function probeMatches(spec: ProbeSpec, execRe: RegExp | undefined, probe: JsonObject, f: ContainerFacts): boolean {
  if (spec.httpGet) {
    const h = probe.httpGet;
    if (!isObject(h)) return false;
    const p = typeof h.path === 'string' ? h.path : '/';
    // The whole path, query string included: /healthz?full=true is not /healthz.
    if (spec.httpGet.path !== undefined && p !== spec.httpGet.path) return false;
    return portMatches(spec.httpGet.port, h.port, f);
  }
  if (spec.grpc) {
    const g = probe.grpc;
    if (!isObject(g)) return false;
    if (spec.grpc.port !== undefined && g.port !== spec.grpc.port) return false;
    if (spec.grpc.service !== undefined && (g.service ?? '') !== spec.grpc.service) return false;
    return true;
  }
  if (spec.tcpSocket) {
    const t = probe.tcpSocket;
    return isObject(t) && portMatches(spec.tcpSocket.port, t.port, f);
  }
  if (spec.exec && execRe) {
    const cmd = strings(get(probe, 'exec', 'command'));
    return cmd.length > 0 && execRe.test(cmd.join(' '));
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Hint-aware helpers: what rules and explain call. A hint always wins over the catalog.

export const CONNECTION_PATTERN_HINT = 'kubegrace.dev/connection-pattern';
export const PEER_DISCOVERY_HINT = 'kubegrace.dev/peer-discovery';

export interface ConnectionPatternResult {
  /** The hint's value as written (trimmed) when from a hint; may be malformed. */
  pattern: string;
  source: 'hint' | 'catalog' | 'default';
  entry?: CatalogEntry;
  container?: ContainerView;
  /** The catalog's reconnect backoff for fan-in clients, when it states one. */
  reconnectBackoff?: string;
}

/**
 * The workload's connection pattern: the `kubegrace.dev/connection-pattern` hint, else the
 * catalog (matching main containers, and Service ports routed to the pods), else `short`.
 */
export function connectionPatternOf(w: Workload, opts: { catalog?: Catalog; routedPorts?: RoutedPort[] } = {}): ConnectionPatternResult {
  const hint = w.annotations[CONNECTION_PATTERN_HINT];
  if (hint !== undefined) return { pattern: hint.trim(), source: 'hint' };
  const hit = (opts.catalog ?? activeCatalog()).connectionPattern(w, opts.routedPorts);
  if (hit) return { pattern: hit.pattern, source: 'catalog', entry: hit.entry, container: hit.container, reconnectBackoff: hit.reconnectBackoff };
  return { pattern: 'short', source: 'default' };
}

/** The known preStop program of a container (see Catalog.knownPreStopProgram). */
export function knownPreStopProgram(c: ContainerLike, catalog: Catalog = activeCatalog()): KnownPreStop | undefined {
  return catalog.knownPreStopProgram(c);
}

/**
 * Whether the catalog marks this probe handler of this container process-local by design (it
 * checks only the process itself), so identical liveness and readiness on it are fine.
 */
export function isProcessLocalProbe(c: ContainerLike, probe: Json | undefined, catalog: Catalog = activeCatalog()): boolean {
  return catalog.isProcessLocalProbe(c, probe) !== undefined;
}

/**
 * The catalog entry saying this probe handler of this container passes as soon as the program's
 * listener is up, before its slow start phases finish (see Catalog.answersFromStart), if any.
 */
export function answersFromStartProbe(c: ContainerLike, probe: Json | undefined, catalog: Catalog = activeCatalog()): CatalogEntry | undefined {
  return catalog.answersFromStart(c, probe);
}

/**
 * The catalog entry saying this probe handler of this container checks a dependency (see
 * Catalog.dependencyProbe), so identical liveness and readiness on it restart every replica when
 * that dependency fails.
 */
export function dependencyProbe(c: ContainerLike, probe: Json | undefined, catalog: Catalog = activeCatalog()): CatalogEntry | undefined {
  return catalog.dependencyProbe(c, probe);
}

export interface PeerDiscoveryResult {
  need: boolean;
  source: 'hint' | 'catalog' | 'none';
  entry?: CatalogEntry;
  container?: ContainerView;
}

/** `kubegrace.dev/peer-discovery` ("true"/"false"), else the catalog's peer-discovery entries. */
export function needsPeerDiscovery(w: Workload, catalog: Catalog = activeCatalog()): PeerDiscoveryResult {
  const hint = w.annotations[PEER_DISCOVERY_HINT]?.trim().toLowerCase();
  if (hint === 'false') return { need: false, source: 'hint' };
  if (hint === 'true') return { need: true, source: 'hint' };
  const hit = catalog.peerDiscovery(w);
  return hit ? { need: true, source: 'catalog', entry: hit.entry, container: hit.container } : { need: false, source: 'none' };
}

/**
 * The catalog's single-version entry for the workload (a program whose old and new versions must
 * not run side by side, so a rollout must stop every old pod first: Recreate), if any.
 */
export function singleVersionProgram(w: Workload, catalog: Catalog = activeCatalog()): WorkloadMatch | undefined {
  return catalog.singleVersion(w);
}

/**
 * What a single-version entry forbids, as a relative clause for messages about the program:
 * `whose old and new versions must not run side by side`, or for an entry with overlap `instances`
 * `of which two instances must not run at once, whatever their versions`.
 */
export function singleVersionFact(entry: CatalogEntry): string {
  return entry.overlap === 'instances'
    ? 'of which two instances must not run at once, whatever their versions'
    : 'whose old and new versions must not run side by side';
}

/** The program of the workload that registers fail-closed admission webhooks at run time (Catalog.runtimeWebhooks). */
export function runtimeWebhooks(w: Workload, catalog: Catalog = activeCatalog()): RuntimeWebhooks | undefined {
  return catalog.runtimeWebhooks(w);
}

/** Catalog entries matching a workload's main containers (or one container). */
export function catalogMatches(w: Workload, container?: ContainerView, catalog: Catalog = activeCatalog()): WorkloadMatch[] {
  return catalog.catalogMatches(w, container);
}

/** Message words for a known preStop program's delay: `preStop program ingress-nginx /wait-shutdown (keeps accepting for 0s; catalog entry ...)`. */
export function knownPreStopWords(programId: string | undefined, seconds: number, bound?: 'exact' | 'at-least', catalog: Catalog = activeCatalog()): string {
  const e = programId !== undefined ? catalog.get(programId) : undefined;
  const n = `${bound === 'at-least' ? 'at least ' : ''}${seconds}s`;
  return e ? `preStop program ${e.title} (keeps accepting for ${n}; catalog entry ${e.id})` : `preStop delay ${n}`;
}

/**
 * Copy-pasteable advice to make a known preStop program keep accepting for `seconds`, from the
 * entry's `adjust` (raise its flag; or sleep before it); undefined when the catalog gives none.
 */
export function knownPreStopAdvice(programId: string | undefined, command: string[] | undefined, seconds: number, catalog: Catalog = activeCatalog()): string | undefined {
  const a = programId !== undefined ? catalog.get(programId)?.preStop?.adjust : undefined;
  if (!a) return undefined;
  if (a.flag && a.unit) {
    const v = a.unit === 'duration' ? `${seconds}s` : String(seconds);
    const where = catalog.get(programId!)!.preStop!.delay.args?.find((x) => x.flag === a.flag)?.from === 'preStop' ? "the preStop command" : "the container's args";
    return `${a.flag}=${v} in ${where}${a.chartValue ? ` (chart value ${a.chartValue}: "${v}")` : ''}`;
  }
  if (a.sleepBefore && command?.length) {
    // (A sleep after the program, `nginx -s quit; sleep 10`, is what the sleep before replaces.)
    const script = command.join(' ').replace(/^(?:(?:\/usr)?(?:\/bin\/)?(?:ba|da|a)?sh -c )/, '').replace(LAST_SLEEP, '');
    return `lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "sleep ${seconds} && ${script.replace(/"/g, '\\"')}"]}}}`;
  }
  return undefined;
}
