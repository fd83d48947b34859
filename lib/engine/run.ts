import { builtinCatalog, Catalog, withCatalog } from '../catalog';
import { HINT, ObjectGraph, scaleTargetKindIs } from '../model/graph';
import { checkFieldTypes } from '../model/field-types';
import { parseJsonFast, parseJsonListBytes, parseJsonListFile, ParsedObjects } from '../model/fast-json';
import { parseYamlFast, parseYamlFile, parseYamlLatin1 } from '../model/fast-yaml';
import type { Document } from 'yaml';
import { indentContinuations, isClusterScoped, parseText } from '../model/parse';
import type { K8sValue } from '../model/yaml11';
import { latin1Of, Source, streamedFile, utf8Bytes } from '../model/sources';
import { InputError, isObject, Json, JsonObject, KObject, Position, refOf } from '../model/types';
import { get, Workload, WORKLOAD_KINDS, workloadOf } from '../model/workload';
import { matches, parseLabelSelector } from '../model/selector';
import { withPreStopMemo } from '../timeline/prestop';
import { variantWorlds } from './worlds';
import { ResolvedPolicy, RuleSetting } from './policy';
import { Finding, Rule, RuleContext, Severity, SEVERITY_RANK } from './types';
import { KubeVersion } from './version';

export interface LintOptions {
  rules: Rule[];
  policy: ResolvedPolicy;
  version: KubeVersion;
  /**
   * Called after each file is parsed, and within a large file as its objects are read (for a
   * progress indicator): files done (with the part of the file read, so 3.5 is half the fourth
   * file), files, objects read so far.
   */
  onProgress?: (done: number, total: number, objects: number) => void;
  /** Called once every file is read, before the rules run (for a progress indicator). */
  onRules?: (objects: number) => void;
  /**
   * Called when a rule throws (a bug in kubegrace, not in the input). Without it the error
   * propagates; lintSources turns it into a reported error so the other rules' findings survive.
   */
  onRuleError?: (ruleId: string, error: Error) => void;
  /**
   * The files will not be written back (the plain lint, not --fix): a source may drop its bytes
   * once read (see latin1Of), so that a large file is not held twice.
   */
  releaseBytes?: boolean;
}

export interface LintResult {
  kubernetesVersion: string;
  findings: Finding[];
  errors: InputError[];
  files: number;
  objects: number;
  parsed: ParsedObjects[];
}

export interface Summary {
  files: number;
  objects: number;
  error: number;
  warning: number;
  info: number;
  suppressed: number;
}

/**
 * Parses for the lint: JSON and YAML through the fast paths when they read the text exactly as
 * parse.ts would (see fast-json.ts and fast-yaml.ts), everything else through parse.ts.
 * `decoded` (for --fix) keeps the value read from each YAML document parse.ts reads.
 */
export function parseSource(s: Source, decoded?: WeakMap<Document, K8sValue>, releaseBytes = false, onObjects?: (objects: number, fraction: number) => void): ParsedObjects {
  const p = readSource(s, decoded, releaseBytes, onObjects);
  const inferred = applySourceNamespace(s, p.objects);
  if (inferred) p.inferredNamespace = inferred;
  if (s.partial?.length) for (const o of p.objects) PARTIAL.add(o);
  const unread = p.errors.filter((e) => UNREADABLE_DOCUMENT.test(e.message));
  if (unread.length) {
    const lines = unread.slice(0, 3).map((e) => e.line).join(', ') + (unread.length > 3 ? ', …' : '');
    const where = unread.length === 1 ? `a document of this file could not be read (the input error at line ${lines})` : `${unread.length} documents of this file could not be read (the input errors at lines ${lines})`;
    for (const o of p.objects) BESIDE_UNREADABLE.set(o, where);
  }
  return p;
}

/**
 * Objects of a file with documents that could not be read (a YAML syntax error), and which
 * those are: what a rule finds missing (`absence`) may be in them (review round 30: the
 * stable/minio Deployment dropped for a syntax error, its Service then said to match no pod).
 */
const BESIDE_UNREADABLE = new WeakMap<KObject, string>();
/** The messages of a document parse.ts could not read at all (yamlErrorMessage; parseText). */
const UNREADABLE_DOCUMENT = /^(?:YAML syntax error: |document nests too deeply to parse|cannot parse: )/;

/** Objects of a chart rendered without some of its templates (Source.partial). */
const PARTIAL = new WeakSet<KObject>();

/**
 * Whether objects of the input may be missing beside `o` (it comes from a chart rendered without
 * some of its templates, or from a file with a document that could not be read): a rule that stays
 * silent because something is absent (a budget that selects no workload) should not conclude it.
 */
export function inputMayLackBeside(o: KObject): boolean {
  return PARTIAL.has(o) || BESIDE_UNREADABLE.has(o);
}

/**
 * The namespace of the source's request (Source.namespace, applyNamespace) on its objects that name
 * none. Without one, a file whose namespaced objects that name a namespace all name the same one
 * has its other namespaced objects taken to be in it too (their identity only), when they are fewer
 * than the objects that name it (and a workload or Service names it), when the two sides refer to
 * each other (refersAcross), or when a workload on each side is of one release (sameRelease): a chart template
 * that forgets \`namespace: {{ .Release.Namespace }}\` (helm template --namespace writes only what the
 * templates write) is installed with \`helm install -n\` into the release namespace with the rest,
 * and an app split between that namespace and \`default\` would not work at all. Returns what was
 * inferred, for the CLI to say.
 */
export function applySourceNamespace(s: Source, objects: KObject[]): InferredNamespace | undefined {
  if (s.namespace !== undefined) inNamespace(objects, s.namespace, true);
  else if (s.applyNamespace !== undefined) inNamespace(objects, s.applyNamespace, false);
  else return inferNamespace(objects);
  return undefined;
}

/** Namespace-less objects of a file taken to be in the one namespace the file's other objects name. */
export interface InferredNamespace {
  namespace: string;
  /** How many objects were placed there. */
  objects: number;
}

function namedNamespace(o: KObject): string | undefined {
  const meta = o.raw.metadata;
  return isObject(meta) && typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
}

function inferNamespace(objects: KObject[]): InferredNamespace | undefined {
  let named: string | undefined;
  let namedCount = 0;
  let anchored = false;
  let unnamed = 0;
  const without: KObject[] = [];
  for (const o of objects) {
    if (isClusterScoped(o.kind) || !isObject(o.raw.metadata)) continue;
    const ns = namedNamespace(o);
    const written = o.raw.metadata.namespace;
    // (A namespace that is there but no string is an input error of its own: neither counted nor moved.)
    if (ns === undefined && written !== undefined && written !== null && written !== '') continue;
    if (ns === undefined) {
      unnamed++;
      without.push(o);
    }
    else if (named === undefined || named === ns) {
      named = ns;
      namedCount++;
      if (o.kind === 'Service' || (WORKLOAD_KINDS as readonly string[]).includes(o.kind)) anchored = true;
    } else return undefined;
  }
  // Only when the objects that name it are the most, and the app itself (a workload or a Service)
  // names it: a chart whose templates write no namespace but put their ServiceMonitor, rules and
  // dashboards in \`monitoring\` (common values) is not all in \`monitoring\`.
  if (named === undefined || unnamed === 0) return undefined;
  // Or when a workload that names no namespace uses a claim, ConfigMap or Secret that the input has only
  // in that namespace: a pod reaches those only in its own namespace (a chart whose PVC and Secret
  // templates write the namespace and whose Deployment does not: community-charts/outline, review
  // round 11; otherwise its RWO claim is not found and surge-volume-deadlock says nothing).
  // Or when a workload that names it and one that names none are of one release (the same
  // app.kubernetes.io/instance): a chart whose operator templates write the namespace and whose other
  // templates do not (openmetadata's omjob-operator, review round 15) installs them all in one.
  if ((namedCount <= unnamed || !anchored) && !refersAcross(objects, named) && !sameRelease(objects, named)) return undefined;
  inNamespace(without, named, false);
  return { namespace: named, objects: unnamed };
}

const INSTANCE = 'app.kubernetes.io/instance';

/** Whether a workload in `ns` and one that names no namespace carry the same app.kubernetes.io/instance (on the object or its pods). */
function sameRelease(objects: KObject[], ns: string): boolean {
  const inNs = new Set<string>();
  const unnamed = new Set<string>();
  for (const o of objects) {
    const w = workloadOf(o);
    if (!w) continue;
    const own = namedNamespace(o);
    if (own !== undefined && own !== ns) continue;
    const labels = get(o.raw, 'metadata', 'labels');
    for (const v of [isObject(labels) ? labels[INSTANCE] : undefined, w.templateLabels[INSTANCE]]) if (typeof v === 'string' && v !== '') (own === ns ? inNs : unnamed).add(v);
  }
  for (const v of inNs) if (unnamed.has(v)) return true;
  return false;
}

const REFERENCED_KINDS = new Set(['PersistentVolumeClaim', 'ConfigMap', 'Secret']);

/**
 * Whether the objects that name no namespace and those in `ns` refer to each other, as only objects
 * of one namespace can (a chart whose templates write the namespace on some objects only):
 * - a workload of `without` uses a claim, ConfigMap or Secret the input has only in `ns`
 *   (community-charts/outline: the PVC names it, the Deployment does not);
 * - a workload in `ns` uses one the input has only without a namespace (the supabase chart: its
 *   Deployments name it, their claims and Secrets do not);
 * - a Service, PodDisruptionBudget or HorizontalPodAutoscaler on one side selects or targets only
 *   workloads of the other (supabase's Services; the vernemq chart's PDB, which alone names the namespace).
 */
function refersAcross(objects: KObject[], ns: string): boolean {
  const inNs = new Set<string>();
  const unnamed = new Set<string>();
  const nsWorkloads: Workload[] = [];
  const unnamedWorkloads: Workload[] = [];
  for (const o of objects) {
    const own = namedNamespace(o);
    if (own !== undefined && own !== ns) continue;
    if (REFERENCED_KINDS.has(o.kind)) (own === ns ? inNs : unnamed).add(`${o.kind}/${o.name}`);
    const w = workloadOf(o);
    if (w) (own === ns ? nsWorkloads : unnamedWorkloads).push(w);
  }
  for (const w of unnamedWorkloads) for (const ref of podReferences(w.podSpec)) if (inNs.has(ref) && !unnamed.has(ref)) return true;
  for (const w of nsWorkloads) for (const ref of podReferences(w.podSpec)) if (unnamed.has(ref) && !inNs.has(ref)) return true;
  // A Service, PodDisruptionBudget or HorizontalPodAutoscaler on one side that selects or targets only
  // workloads of the other: each acts only within its own namespace (the vernemq chart writes the
  // namespace on its PDB alone, review round 15).
  const only = (here: Workload[], there: Workload[], hit: (w: Workload) => boolean) => there.some(hit) && !here.some(hit);
  for (const o of objects) {
    const own = namedNamespace(o);
    if (own !== undefined && own !== ns) continue;
    const [here, there] = own === ns ? [nsWorkloads, unnamedWorkloads] : [unnamedWorkloads, nsWorkloads];
    if (o.kind === 'Service' && o.apiVersion === 'v1') {
      const sel = get(o.raw, 'spec', 'selector');
      if (!isObject(sel) || !Object.keys(sel).length) continue;
      const selects = (w: Workload) => Object.entries(sel).every(([k, v]) => w.templateLabels[k] === v);
      if (only(here, there, selects)) return true;
    } else if (o.kind === 'PodDisruptionBudget') {
      const sel = parseLabelSelector(get(o.raw, 'spec', 'selector'));
      // (An empty selector selects every pod of the namespace: no evidence either way.)
      if (sel.kind !== 'selector') continue;
      if (only(here, there, (w) => matches(sel, w.templateLabels))) return true;
    } else if (o.kind === 'HorizontalPodAutoscaler') {
      const kind = get(o.raw, 'spec', 'scaleTargetRef', 'kind');
      const name = get(o.raw, 'spec', 'scaleTargetRef', 'name');
      if (typeof kind !== 'string' || typeof name !== 'string') continue;
      if (only(here, there, (w) => scaleTargetKindIs(kind, w.kind) && w.obj.name === name)) return true;
    }
  }
  return false;
}

/** `Kind/name` of the claims, ConfigMaps and Secrets a pod spec uses: volumes (also projected), envFrom, env valueFrom. */
function podReferences(podSpec: JsonObject): string[] {
  const out: string[] = [];
  const add = (kind: string, name: Json | undefined) => {
    if (typeof name === 'string' && name !== '') out.push(`${kind}/${name}`);
  };
  const volumes = podSpec.volumes;
  if (Array.isArray(volumes)) {
    for (const v of volumes) {
      if (!isObject(v)) continue;
      add('PersistentVolumeClaim', get(v, 'persistentVolumeClaim', 'claimName'));
      add('ConfigMap', get(v, 'configMap', 'name'));
      add('Secret', get(v, 'secret', 'secretName'));
      const sources = get(v, 'projected', 'sources');
      if (Array.isArray(sources)) for (const src of sources) {
        add('ConfigMap', get(src, 'configMap', 'name'));
        add('Secret', get(src, 'secret', 'name'));
      }
    }
  }
  for (const key of ['initContainers', 'containers'] as const) {
    const cs = podSpec[key];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      const envFrom = get(c, 'envFrom');
      if (Array.isArray(envFrom)) for (const e of envFrom) {
        add('ConfigMap', get(e, 'configMapRef', 'name'));
        add('Secret', get(e, 'secretRef', 'name'));
      }
      const env = get(c, 'env');
      if (Array.isArray(env)) for (const e of env) {
        add('ConfigMap', get(e, 'valueFrom', 'configMapKeyRef', 'name'));
        add('Secret', get(e, 'valueFrom', 'secretKeyRef', 'name'));
      }
    }
  }
  return out;
}

/**
 * Puts the namespaced objects that name no namespace into `ns`, as the API server does with the
 * namespace of the request (helm install -n, kubectl apply -n): their identity, and with `written`
 * (a chart's render) their metadata.namespace too.
 */
function inNamespace(objects: KObject[], ns: string, written: boolean): void {
  for (const o of objects) {
    const meta = o.raw.metadata;
    if (isClusterScoped(o.kind) || !isObject(meta) || (typeof meta.namespace === 'string' && meta.namespace !== '')) continue;
    if (written) meta.namespace = ns;
    Object.defineProperty(o, 'namespace', { value: ns, enumerable: true, configurable: true, writable: false });
  }
}

function readSource(s: Source, decoded?: WeakMap<Document, K8sValue>, releaseBytes = false, onObjects?: (objects: number, fraction: number) => void): ParsedObjects {
  const p = readSourceOnce(s, decoded, releaseBytes, onObjects);
  if (!p.errors.some((e) => CUT_QUOTE.test(e.message) || CUT_FLOW.test(e.message))) return p;
  // A quoted scalar or a flow collection whose later lines are indented less than YAML 1.2
  // allows, which Kubernetes reads (parse.ts's indentContinuations): read as it reads it, from
  // the text with those lines indented, and reported at the columns of the file. --fix would
  // write that text, so it leaves the file alone and says why.
  const original = s.text;
  const r = indentContinuations(original);
  if (!r) return p;
  s.text = r.text;
  const again = readSourceOnce(s, decoded, releaseBytes);
  if (again.errors.length >= p.errors.length) {
    s.text = original;
    return p;
  }
  unpad(again, r.pads);
  const at = (lines: number[]) => (lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''}`);
  const what = [
    r.quoted.length ? `a quoted value continues on ${at(r.quoted)} indented less than its key` : '',
    r.flow.length ? `a flow collection ([…] or {…}) continues on ${at(r.flow)} indented no more than its key` : '',
  ].filter(Boolean).join(', and ');
  const past = r.quoted.length && r.flow.length ? 'the opening quote or bracket' : r.flow.length ? 'the opening bracket' : 'the opening quote';
  s.unwritable ??= `${what}, which Kubernetes' YAML reader (go-yaml) accepts and YAML 1.2 does not; the lint reads it as Kubernetes does, but --fix would rewrite those lines, so it leaves the file as it is: indent them past ${past} and run --fix again`;
  return again;
}
/** parse.ts's message for a quoted scalar yaml cut short (yamlErrorMessage keeps yaml's words). */
const CUT_QUOTE = /Missing closing ["']quote/;
/** parse.ts's message for a flow collection yaml cut short at a line indented too little. */
const CUT_FLOW = /Flow (?:sequence|map) in block collection must be sufficiently indented/;

/**
 * Positions of objects and errors read from a text padded by indentContinuations, moved back to
 * the columns of the file: `pads` spaces were added at the start of each padded line.
 */
function unpad(p: ParsedObjects, pads: Map<number, number>): void {
  const at = (q: Position): Position => {
    const n = pads.get(q.line);
    return n ? { line: q.line, column: Math.max(1, q.column - n) } : q;
  };
  for (const e of p.errors) e.column = at(e).column;
  for (const o of p.objects) {
    const locate = o.locate.bind(o);
    Object.defineProperty(o, 'column', { value: at(o).column, enumerable: true, configurable: true });
    Object.defineProperty(o, 'locate', { value: (pointer: string) => at(locate(pointer)), configurable: true, writable: true });
  }
}

function readSourceOnce(s: Source, decoded?: WeakMap<Document, K8sValue>, releaseBytes = false, onObjects?: (objects: number, fraction: number) => void): ParsedObjects {
  // A file is read from its bytes where it can be, without making its whole text as one string:
  // a JSON List item by item, YAML document by document.
  // A large file the plain lint did not keep (sources.ts): a JSON List or YAML is read in chunks.
  const file = streamedFile(s);
  if (file) {
    const p = file.json ? parseJsonListFile(s.file, file, undefined, onObjects) : parseYamlFile(s.file, file, undefined, onObjects);
    if (p) return p;
  }
  const bytes = utf8Bytes(s);
  if (bytes) {
    if (!startsWithBrace(bytes)) {
      // YAML: from the bytes read as Latin-1, which the source keeps instead of its bytes when
      // `releaseBytes` (the plain lint), so that the file is not held twice.
      const latin1 = latin1Of(s, releaseBytes)!;
      return parseYamlLatin1(s.file, latin1) ?? parseText(s.file, s.text, undefined, decoded);
    }
    const list = parseJsonListBytes(s.file, bytes);
    if (list) return list;
  }
  return parseJsonFast(s.file, s.text) ?? parseYamlFast(s.file, s.text) ?? parseText(s.file, s.text, undefined, decoded);
}

/** Whether the first character after a byte-order mark and white space is `{` (else parseJsonFast declines). */
function startsWithBrace(b: Buffer): boolean {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09) i++;
  return b[i] === 0x7b;
}

export function parseSources(sources: Source[], onProgress?: (done: number, total: number, objects: number) => void, releaseBytes = false): ParsedObjects[] {
  let objects = 0;
  return sources.map((s, i) => {
    // Within a large file (read in chunks), as its objects are read.
    const within = onProgress && ((n: number, fraction: number) => onProgress(i + Math.min(fraction, 0.99), sources.length, objects + n));
    const p = parseSource(s, undefined, releaseBytes, within);
    objects += p.objects.length;
    onProgress?.(i + 1, sources.length, objects);
    return p;
  });
}

/** `kubegrace.dev/ignore` on the object or its pod template, with the reason. */
function suppressionsOf(o: KObject, w: Workload | undefined): { ids: Set<string>; reason?: string } | undefined {
  // A workload's annotations already overlay the object's own (template wins); other objects have only theirs.
  const value = (key: string): string | undefined => (w ? w.annotations[key] : annotationValue(get(o.raw, 'metadata', 'annotations'), key));
  const v = value(HINT.ignore);
  if (v === undefined) return undefined;
  const ids = new Set(v.split(',').map((s) => s.trim()).filter(Boolean));
  return { ids, reason: value(HINT.ignoreReason) };
}

/** One entry of an annotation map as stringMap reads it (strings, and numbers or booleans as text). */
function annotationValue(annotations: Json | undefined, key: string): string | undefined {
  if (!isObject(annotations) || !Object.prototype.hasOwnProperty.call(annotations, key)) return undefined;
  const x = annotations[key];
  return typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : undefined;
}

/** A rule's reported severity under the policy's setting for it. */
export function applySetting(sev: Severity, s: RuleSetting | undefined): Severity {
  if (!s) return sev;
  if (s.severity) return s.severity;
  return s.remap?.[sev] ?? sev;
}

/**
 * The graphs the rules run on for a set of objects: one per world of variants (worlds.ts), one
 * (all the objects) when there are none. Two runs over the same objects with the same policy
 * catalog and target version may share them (--fix's last lint runs its rules in two parts), and
 * with them the facts the graph memoizes, which depend only on the objects and the catalog (the
 * version decides which HPAs exist: hpaNotServed).
 */
export interface RuleGraphs {
  readonly objects: readonly KObject[];
  readonly catalog: Catalog;
  readonly version: KubeVersion;
  readonly graphs: ObjectGraph[];
}

/** The rule graphs of `objects` under the policy's catalog, for the target `version` (see RuleGraphs). */
export function ruleGraphs(objects: KObject[], policy: ResolvedPolicy, version: KubeVersion): RuleGraphs {
  const catalog = policy.catalog ?? builtinCatalog();
  // (The catalog is in force while the graphs are built, as during a run.)
  return { objects, catalog, version, graphs: withCatalog(catalog, () => variantWorlds(objects).map((w) => new ObjectGraph(w, { version }))) };
}

/**
 * Runs the enabled rules over parsed objects; pure apart from the rules' own work. `shared`: graphs
 * made by ruleGraphs for these very objects and this policy's catalog (else they are built here).
 */
export function runRules(objects: KObject[], opts: LintOptions, shared?: RuleGraphs): Finding[] {
  // The policy's catalog (built-in plus spec.catalog) is the one every timeline helper sees during the run.
  const catalog = opts.policy.catalog ?? builtinCatalog();
  if (shared && (shared.objects !== objects || shared.catalog !== catalog || shared.version.toString() !== opts.version.toString())) throw new Error('runRules: the shared graphs are of other objects, another catalog or another version');
  return withCatalog(catalog, () => withPreStopMemo(() => runRulesWith(objects, opts, catalog, shared?.graphs)));
}

function runRulesWith(objects: KObject[], opts: LintOptions, catalog: Catalog, shared?: ObjectGraph[]): Finding[] {
  // Files that define one identity twice are variants: the rules run in each world of them
  // (worlds.ts), one world (all the objects) when there are none.
  const graphs = shared ?? variantWorlds(objects).map((w) => new ObjectGraph(w, { version: opts.version }));
  /** What was reported per object when there are several worlds: a finding is kept once. */
  const reported = graphs.length > 1 ? new Map<KObject, Set<string>>() : undefined;
  const findings: Finding[] = [];
  /** Each finding's object and pointer: positions are read after the rules, object by object. */
  const located: Array<{ f: Finding; object: KObject; pointer: string }> = [];
  const suppressionCache = new Map<KObject, ReturnType<typeof suppressionsOf> | null>();
  const suppression = (o: KObject) => {
    let s = suppressionCache.get(o);
    if (s === undefined) {
      // The graph's view of a workload object; other kinds (and any object outside the graph) are read here.
      const w = graphs.reduce<Workload | undefined>((v, g) => v ?? g.workloadOfObject(o), undefined) ?? workloadOf(o);
      suppressionCache.set(o, (s = suppressionsOf(o, w) ?? null));
    }
    return s ?? undefined;
  };
  const allRules = [...opts.rules, ...opts.policy.customRules];
  for (const rule of allRules) {
    const setting = opts.policy.rules.get(rule.meta.id);
    if (setting?.off) continue;
    const params = { ...(rule.meta.defaults ?? {}), ...(setting?.params ?? {}) };
    for (const graph of graphs) {
      const ctx: RuleContext = {
        graph,
        catalog,
        version: opts.version,
        params,
        paramsOf(id) {
          const other = allRules.find((r) => r.meta.id === id);
          return { ...(other?.meta.defaults ?? {}), ...(opts.policy.rules.get(id)?.params ?? {}) };
        },
        active(id, o) {
          if (opts.policy.rules.get(id)?.off) return false;
          const sup = suppression(o);
          return !sup || !(sup.ids.has(id) || sup.ids.has('all'));
        },
        report(r): boolean {
          // What seems missing may be in the templates that did not render.
          if (r.absence && PARTIAL.has(r.object)) return false;
          let severity = applySetting(r.severity ?? rule.meta.defaultSeverity, setting);
          let message = r.message;
          // ... or in a document of its file that could not be read: said, at most as info.
          const unread = r.absence ? BESIDE_UNREADABLE.get(r.object) : undefined;
          if (unread) {
            if (SEVERITY_RANK[severity] > SEVERITY_RANK.info) severity = 'info';
            message = `${unread}, and what this finds missing may be there: ${message}`;
          }
          if (reported) {
            // The same finding of an object that is in several worlds (a file without variants).
            const key = `${rule.meta.id}\u0000${severity}\u0000${r.pointer}\u0000${message}`;
            let keys = reported.get(r.object);
            if (!keys) reported.set(r.object, (keys = new Set()));
            if (keys.has(key)) return false;
            keys.add(key);
          }
          const sup = suppression(r.object);
          const suppressed = !!sup && (sup.ids.has(rule.meta.id) || sup.ids.has('all'));
          const f: Finding = {
            ruleId: rule.meta.id,
            severity,
            message,
            file: r.object.file,
            line: 0,
            column: 0,
            object: refOf(r.object),
            pointer: r.pointer,
            suppressed,
            // Whether this finding carries a repair (rules fix some conditions, not all).
            fixable: r.fix !== undefined,
          };
          if (suppressed && sup?.reason) f.suppressionReason = sup.reason;
          if (r.fix) f.fix = r.fix;
          findings.push(f);
          located.push({ f, object: r.object, pointer: r.pointer });
          return true;
        },
      };
      if (!opts.onRuleError) rule.check(ctx);
      else {
        try {
          rule.check(ctx);
        } catch (e) {
          opts.onRuleError(rule.meta.id, e as Error);
          // (One error per rule, not one per world.)
          break;
        }
      }
    }
  }
  locateFindings(located, objects);
  return findings;
}

/**
 * Fills in the findings' lines and columns, reading the positions object by object in input
 * order: a reader that reads an object's text again for its positions (a JSON List item, a
 * file read in chunks) then reads it once, not once per rule that reports it.
 */
function locateFindings(located: Array<{ f: Finding; object: KObject; pointer: string }>, objects: KObject[]): void {
  const order = new Map<KObject, number>();
  objects.forEach((o, i) => order.set(o, i));
  const rank = (o: KObject) => order.get(o) ?? objects.length;
  // (A stable sort: within an object, in the order reported.)
  located.sort((a, b) => rank(a.object) - rank(b.object));
  for (const { f, object, pointer } of located) {
    const pos = object.locate(pointer);
    f.line = pos.line;
    f.column = pos.column;
  }
}

/** Deterministic order: file (input order), line, column, rule, message. */
export function sortFindings(findings: Finding[], fileOrder: string[]): Finding[] {
  const rank = new Map(fileOrder.map((f, i) => [f, i]));
  return findings.sort(
    (a, b) =>
      (rank.get(a.file) ?? 1e9) - (rank.get(b.file) ?? 1e9) ||
      a.line - b.line ||
      a.column - b.column ||
      (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}

/** The whole lint: parse every source, run the rules over all objects together, sort. */
export function lintSources(sources: Source[], opts: LintOptions, extraErrors: InputError[] = []): LintResult {
  const parsed = parseSources(sources, opts.onProgress, opts.releaseBytes);
  const objects = parsed.flatMap((p) => p.objects);
  opts.onRules?.(objects.length);
  const ruleErrors: InputError[] = [];
  const onRuleError =
    opts.onRuleError ??
    ((id: string, e: Error) =>
      ruleErrors.push({
        file: sources[0]?.file ?? '<input>',
        line: 1,
        column: 1,
        message: `internal error in rule ${id}: ${e.message}; the other rules' findings are still reported. Please report this with the input, or turn the rule off in the policy meanwhile`,
      }));
  const findings = sortFindings(runRules(objects, { ...opts, onRuleError }), sources.map((s) => s.file));
  return lintResultOf(sources, parsed, findings, opts.version, [...extraErrors], ruleErrors);
}

/**
 * The lint's result from files already read and findings already sorted (lintSources, or the
 * last lint of --fix, which read and linted the fixed texts): input errors (with the field-type
 * checks) after `extraErrors`, then `ruleErrors`.
 */
export function lintResultOf(sources: Source[], parsed: ParsedObjects[], findings: Finding[], version: KubeVersion, extraErrors: InputError[] = [], ruleErrors: InputError[] = []): LintResult {
  const errors: InputError[] = [...extraErrors];
  let objects = 0;
  for (const p of parsed) {
    objects += p.objects.length;
    // Each file's errors (reading, then field types) in position order.
    const own: InputError[] = p.errors.slice();
    for (const o of p.objects) {
      const typeErrors = checkFieldTypes(o);
      for (let i = 0; i < typeErrors.length; i++) own.push(typeErrors[i]);
    }
    if (own.length > 1) own.sort((a, b) => a.line - b.line || a.column - b.column);
    for (let i = 0; i < own.length; i++) errors.push(own[i]);
  }
  for (const e of ruleErrors) errors.push(e);
  const fileNames = new Set<string>();
  for (const s of sources) fileNames.add(s.file);
  for (const e of extraErrors) fileNames.add(e.file);
  return { kubernetesVersion: version.toString(), findings, errors, files: fileNames.size, objects, parsed };
}

export function summarize(r: Pick<LintResult, 'findings' | 'files' | 'objects'>): Summary {
  const s: Summary = { files: r.files, objects: r.objects, error: 0, warning: 0, info: 0, suppressed: 0 };
  for (const f of r.findings) {
    if (f.suppressed) s.suppressed++;
    else s[f.severity]++;
  }
  return s;
}

/** Exit status per DESIGN.md: 2 for input errors, 1 for findings at or above failOn, else 0. */
export function exitCode(r: Pick<LintResult, 'findings' | 'errors'>, failOn: Severity | 'never'): 0 | 1 | 2 {
  if (r.errors.length) return 2;
  if (failOn === 'never') return 0;
  return r.findings.some((f) => !f.suppressed && SEVERITY_RANK[f.severity] >= SEVERITY_RANK[failOn]) ? 1 : 0;
}
