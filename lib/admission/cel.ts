/**
 * CEL building blocks for the exported admission policies: the same readings of a workload as
 * lib/model and lib/timeline make, written in the subset of CEL that both the API server and the
 * test evaluator (@bufbuild/cel 0.6.1) implement.
 *
 * Kubernetes CEL libraries the expressions rely on (k8s.io/apiserver/pkg/cel/environment base.go):
 * - standard CEL: `has()`, the macros `all`/`exists`/`exists_one`/`map`/`filter`, `size`, `in`,
 *   `matches` (RE2), `startsWith`/`endsWith`/`contains`, the `int`/`double`/`string`/`duration`
 *   conversions and `duration.getSeconds()`;
 * - the extended strings library, version 2 (`ext.Strings(ext.StringsVersion(2))`, Kubernetes >= 1.29):
 *   `split`, `join`, `trim`, `lowerAscii`, `substring`, `indexOf`, `lastIndexOf`, `replace`.
 * Not used, because @bufbuild/cel 0.6.1 lacks them: optional types (`?.`, `[?]`, `orValue`),
 * `cel.bind`, two-variable comprehensions, the Kubernetes list library (`sum`, `max`, `indexOf` on
 * lists), the Kubernetes regex library (`find`), `quantity`, sets, math, URL, IP/CIDR, semver, and
 * `duration.getMilliseconds()` (whose @bufbuild/cel result differs from cel-go's). Map literals
 * mixing value types wrap values in `dyn()`, as the API server's HomogeneousAggregateLiterals requires.
 */

import { builtinCatalog, Catalog, CatalogEntry, imageGlob, imageGlobVariants, ProbeSpec } from '../catalog';
import { SLEEP_BEFORE_STOP_SOURCE, STOP_FIRST_SOURCE } from '../timeline/prestop';

/** A CEL string literal (single-quoted, escaped). */
export function str(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The pod spec of any workload kind (section 0's PT). */
export const POD_SPEC =
  "object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec : object.spec.template.spec";

/** The pod template's metadata (the object's own for a Pod), `{}` when absent. */
export const POD_META =
  "object.kind == 'Pod' ? object.metadata : object.kind == 'CronJob' ? (has(object.spec.jobTemplate.spec.template.metadata) ? object.spec.jobTemplate.spec.template.metadata : {}) : (has(object.spec.template.metadata) ? object.spec.template.metadata : {})";

/** Variables every workload policy defines, in order (later ones use earlier ones). */
export const WORKLOAD_VARIABLES: { name: string; expression: string }[] = [
  { name: 'podSpec', expression: POD_SPEC },
  { name: 'podMeta', expression: POD_META },
  { name: 'mains', expression: 'has(variables.podSpec.containers) ? variables.podSpec.containers : []' },
  { name: 'inits', expression: 'has(variables.podSpec.initContainers) ? variables.podSpec.initContainers : []' },
  { name: 'sidecars', expression: "variables.inits.filter(c, has(c.restartPolicy) && c.restartPolicy == 'Always')" },
  { name: 'grace', expression: 'has(variables.podSpec.terminationGracePeriodSeconds) ? variables.podSpec.terminationGracePeriodSeconds : 30' },
];

/**
 * Whether annotation `key` is written on the pod template or the object (the linter's
 * Workload.annotations: object metadata overlaid with the template's). Needs `variables.podMeta`.
 */
export function annHas(key: string): string {
  const k = str(key);
  return `((has(variables.podMeta.annotations) && ${k} in variables.podMeta.annotations) || (has(object.metadata.annotations) && ${k} in object.metadata.annotations))`;
}

/** The value of annotation `key` (template wins over the object), '' when absent. */
export function ann(key: string): string {
  const k = str(key);
  return `((has(variables.podMeta.annotations) && ${k} in variables.podMeta.annotations) ? variables.podMeta.annotations[${k}] : (has(object.metadata.annotations) && ${k} in object.metadata.annotations) ? object.metadata.annotations[${k}] : '')`;
}

/** The same lookup without variables (matchConditions cannot use them). */
function annDirect(key: string): string {
  const k = str(key);
  return bind(POD_META, 'pm', `(has(pm.annotations) && ${k} in pm.annotations) ? pm.annotations[${k}] : (has(object.metadata.annotations) && ${k} in object.metadata.annotations) ? object.metadata.annotations[${k}] : ''`);
}

/** matchCondition: the object is not managed by a controller (the linter skips those; their owner is judged). */
export const NOT_OWNED = '!has(object.metadata.ownerReferences) || !object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller == true)';

/** matchCondition: `kubegrace.dev/ignore` on the object or its pod template does not name the rule (or `all`). */
export function notSuppressed(ruleId: string, workload: boolean): string {
  const v = workload ? annDirect('kubegrace.dev/ignore') : `(has(object.metadata.annotations) && 'kubegrace.dev/ignore' in object.metadata.annotations ? object.metadata.annotations['kubegrace.dev/ignore'] : '')`;
  return `!${v}.split(',').exists(s, s.trim() == ${str(ruleId)} || s.trim() == 'all')`;
}

/**
 * Binds `value` to `name` inside `body` without cel.bind (not in @bufbuild/cel): a one-element list
 * mapped once. Keeps expressions linear in size where a value is used several times.
 */
export function bind(value: string, name: string, body: string): string {
  return `[${value}].map(${name}, ${body})[0]`;
}

/** Whitespace RE2's \s knows, made plain spaces so that split(' ') tokenizes like the linter's regexes. */
function tokens(s: string): string {
  return `${s}.replace('\\t', ' ').replace('\\n', ' ').replace('\\r', ' ').replace('\\f', ' ').split(' ').filter(t, t != '')`;
}

/** The regular expression of lib/timeline/duration parseGoDuration, digits bounded so that duration() cannot overflow. */
const GO_DURATION = "'^([0-9]{1,9}(\\\\.[0-9]{1,9})?(ns|us|µs|ms|s|m|h))+$'";

/**
 * A Go duration string (already matching GO_DURATION) in seconds, to the millisecond: whole seconds
 * from getSeconds(), the rest as the milliseconds of a duration below one second (where
 * getMilliseconds() means the same in cel-go and @bufbuild/cel).
 */
function goDuration(v: string): string {
  return bind(`duration(${v})`, 'gd', "double(gd.getSeconds()) + double((gd - duration(string(gd.getSeconds()) + 's')).getMilliseconds()) / 1000.0");
}

/** lib/timeline/duration parseGoDuration: a Go duration string ("30s", "1m30s", "0") in seconds, -2.0 when unreadable. */
export function goDurationSeconds(s: string): string {
  return bind(`${s}.trim()`, 'gv', `gv == '0' ? 0.0 : gv.matches(${GO_DURATION}) ? ${goDuration('gv')} : -2.0`);
}

/**
 * Seconds from a hint value (lib/timeline/duration parseSeconds): a number ("20", "2.5") or a Go
 * duration ("1m30s", "500ms"); -2.0 when unreadable.
 */
export function seconds(s: string): string {
  return bind(`${s}.trim()`, 'sv', `sv.matches('^[0-9]+(\\\\.[0-9]+)?$') ? double(sv) : sv == '0' ? 0.0 : sv.matches(${GO_DURATION}) ? ${goDuration('sv')} : -2.0`);
}

/** coreutils `sleep` argument then Go duration (lib/timeline/prestop durationOf); -2.0 when unreadable. */
export function sleepSeconds(s: string): string {
  const mult = `(ss.endsWith('m') ? 60.0 : ss.endsWith('h') ? 3600.0 : ss.endsWith('d') ? 86400.0 : 1.0)`;
  return bind(
    `${s}.trim()`,
    'ss',
    `ss.matches('^[0-9]+(\\\\.[0-9]+)?$') ? double(ss) : ss.matches('^[0-9]+(\\\\.[0-9]+)?[smhd]$') ? double(ss.substring(0, size(ss) - 1)) * ${mult} : ss == '0' ? 0.0 : ss.matches(${GO_DURATION}) ? ${goDuration('ss')} : -2.0`,
  );
}

const SLEEP_BIN = '^(?:/usr)?(?:/bin/)?sleep$';
const SHELL = '^(?:/usr)?(?:/bin/)?(?:ba|da|a)?sh$';
const ONLY = '^(?:exec\\s+)?(?:/usr)?(?:/bin/)?sleep\\s+(\\S+?)\\s*;?$';
const FIRST = '^(?:/usr)?(?:/bin/)?sleep\\s+(\\S+?)\\s*(?:;|&&)';
/** lib/timeline/prestop.ts LAST_SLEEP: a script that ends with a sleep after other commands. */
const LAST = '(?:;|&&)\\s*(?:exec\\s+)?(?:/usr)?(?:/bin/)?sleep\\s+(\\S+?)\\s*;?$';
/** lib/timeline/prestop.ts CONTINUED_LINE: a script line after which the command goes on. */
const CONTINUED_LINE = '(?:&&|\\|[|&]?|\\\\)[ \\t\\r]*$';

/**
 * lib/timeline/prestop.ts shellNewlines of the script `s`: each newline `;`, or a space after a
 * CONTINUED_LINE (every line gets its separator, and the last one's is cut off).
 */
function shellNewlines(s: string): string {
  return bind(`${s}.split('\\n').map(ln, ln.matches(${str(CONTINUED_LINE)}) ? ln + ' ' : ln + ';').join('')`, 'nl', 'nl.substring(0, size(nl) - 1)');
}

/** lib/timeline/prestop.ts unquote: a sleep argument of a script without one pair of matching quotes. */
function unquote(s: string): string {
  return bind(s, 'uq', `size(uq) >= 2 && (uq.startsWith("'") || uq.startsWith('"')) && uq.endsWith(uq.substring(0, 1)) ? uq.substring(1, size(uq) - 1) : uq`);
}

/** Raised when a policy parameter cannot be expressed in CEL; the message says which and why. */
export class ExportError extends Error {}

/**
 * A wait-command pattern (grace-period-budget param `waitPatterns`) in CEL: the pattern must end
 * with ` (?<d>\S+)$` (the duration is the last word), which CEL can read without capture groups.
 */
function waitPattern(p: string): string {
  const tail = ' (?<d>\\S+)$';
  if (!p.endsWith(tail) || /\(\?<|\(\?[=!]/.test(p.slice(0, -tail.length))) {
    throw new ExportError(`waitPatterns entry ${JSON.stringify(p)} cannot be evaluated in CEL: it must end with " (?<d>\\S+)$" (the duration as the last word) and use no other named group or lookaround`);
  }
  return p.slice(0, -tail.length) + ' \\S+$';
}

/**
 * The preStop delay of container `c` in seconds (lib/timeline/prestop classifyPreStop):
 * >= 0 known, -1.0 no hook, -2.0 a hook of unknown duration.
 */
export function preStopSeconds(c: string, waitPatterns: string[], catalog: Catalog = builtinCatalog()): string {
  return preStop(c, waitPatterns, false, catalog);
}

/** The signal-first script test of lib/timeline/prestop stopBeforeSleep, on the CEL string `sc`. */
const STOP_FIRST_CEL = `(sc.matches(${str(STOP_FIRST_SOURCE)}) && !sc.matches(${str(SLEEP_BEFORE_STOP_SOURCE)}))`;

/** The seconds of an exec preStop that runs only a sleep (the linter's kind `exec-sleep`), else -2.0. */
export function execSleepSeconds(c: string): string {
  return preStop(c, [], true, undefined);
}

/** A regular expression of the catalog (JavaScript syntax) as RE2, refused when RE2 cannot run it. */
function catalogRegex(re: string, where: string): string {
  if (/\(\?[=!<]|\\[1-9]|\\k</.test(re)) throw new ExportError(`catalog entry ${where}: ${JSON.stringify(re)} uses lookaround or backreferences, which RE2 (the API server's regex engine) does not support`);
  return str(re);
}

/** The ASCII unit separator as a CEL literal: joins argument lists so that each element starts after one. */
const SEP = "'\\u001f'";

/**
 * lib/catalog flagValue: the value of `--flag=v`, `--flag v`, `-flag=v` or `-flag v` in the string
 * list `args` (the first occurrence), as a list of zero or one string. Without index loops: the list
 * is joined with a separator before every element, and each form is found by one split (its
 * position is the length of what precedes it, so the earliest form wins, as in the linter).
 */
function flagValue(args: string, flag: string): string {
  const names = [flag, flag.startsWith('--') ? flag.slice(1) : `-${flag}`];
  const forms = names.flatMap((n) => [`${SEP} + ${str(`${n}=`)}`, `${SEP} + ${str(n)} + ${SEP}`]);
  // f0..f3: fj split at each form; a form is found when its split has a second part, at the length of the first.
  const found = (k: number) => `size(f${k}) > 1`;
  const pos = (k: number) => `size(f${k}[0])`;
  let pick = '[]';
  for (let k = forms.length - 1; k >= 0; k--) {
    const earliest = forms.map((_, o) => (o === k ? undefined : `(!(${found(o)}) || ${pos(k)} < ${pos(o)})`)).filter(Boolean).join(' && ');
    pick = `${found(k)} && ${earliest} ? [f${k}[1].split(${SEP})[0]] : ${pick}`;
  }
  let body = pick;
  for (let k = forms.length - 1; k >= 0; k--) body = bind(`fj.split(${forms[k]})`, `f${k}`, body);
  return bind(`${SEP} + ${args}.join(${SEP})`, 'fj', body);
}

/** lib/catalog imageRepository(c.image): `{path, full}` as a two-entry list [path, full]. */
function imageRepositories(c: string): string {
  const s = `(has(${c}.image) ? ${c}.image : '').trim().lowerAscii().split('@')[0]`;
  const noTag = bind(s, 'is', "is.lastIndexOf(':') > is.lastIndexOf('/') ? is.substring(0, is.lastIndexOf(':')) : is");
  // ps: the path components; hh: whether the first is a registry host (both bound once).
  const hasHost = "(size(ps) > 1 && (ps[0].matches('[.:]') || ps[0] == 'localhost'))";
  const rest = '(hh ? ir.substring(size(ps[0]) + 1) : ir)';
  const dockerHub = "(!hh || ps[0] == 'docker.io' || ps[0] == 'index.docker.io')";
  const path = bind(rest, 'rp', `${dockerHub} && rp.startsWith('library/') ? rp.substring(8) : rp`);
  return bind(noTag, 'ir', bind("ir.split('/')", 'ps', bind(hasHost, 'hh', bind(path, 'ip', "[ip, hh ? ps[0] + '/' + ip : ip]"))));
}

/**
 * lib/catalog imageTag(c.image): the tag after the last ':' that follows the last '/', before any
 * digest; 'latest' without tag or digest; '' (no tag) for a digest alone or a container without image.
 */
function imageTagOf(c: string): string {
  return bind(
    `has(${c}.image) ? ${c}.image.trim() : '@'`,
    'it',
    bind("it.split('@')[0]", 'tn', "tn.lastIndexOf(':') > tn.lastIndexOf('/') ? tn.substring(tn.lastIndexOf(':') + 1) : (it.contains('@') ? '' : 'latest')"),
  );
}

/** A regular expression of the decimal numbers below n (leading zeros allowed, as Number() reads them). */
function belowNumber(n: number): string | undefined {
  if (n <= 0) return undefined;
  const d = String(n);
  const alts: string[] = [];
  // Fewer digits (zero included).
  alts.push(d.length === 1 ? '0' : `0|[1-9][0-9]{0,${d.length - 2}}`);
  // As many digits, smaller at the first digit that differs.
  for (let i = 0; i < d.length; i++) {
    const digit = Number(d[i]);
    const lo = i === 0 ? 1 : 0;
    if (digit - 1 < lo) continue;
    alts.push(`${d.slice(0, i)}[${lo}-${digit - 1}][0-9]{${d.length - i - 1}}`);
  }
  return `0*(?:${alts.join('|')})`;
}

/** A regular expression of the decimal number n (leading zeros allowed). */
function equalNumber(n: number): string {
  return n === 0 ? '0+' : `0*${n}`;
}

/**
 * A regular expression of the image tags lib/catalog imageVersion reads as a version below min
 * (\`v?MAJOR.MINOR.PATCH\`, then nothing or \`-\`, \`+\`, \`.\` and anything): the tags an entry's
 * match.minVersion rules out. Other tags (latest, a commit) are taken to be current, as the linter does.
 */
export function versionBelowRegex(min: [number, number, number]): string {
  const n = '[0-9]+';
  const alts: string[] = [];
  const [a, b, c] = min;
  const la = belowNumber(a);
  if (la) alts.push(`${la}\\.${n}\\.${n}`);
  const lb = belowNumber(b);
  if (lb) alts.push(`${equalNumber(a)}\\.${lb}\\.${n}`);
  const lc = belowNumber(c);
  if (lc) alts.push(`${equalNumber(a)}\\.${equalNumber(b)}\\.${lc}`);
  return alts.length ? `^v?(?:${alts.join('|')})(?:[-+.].*)?$` : '^$.';
}

/** lib/catalog matchesContainer for container `c` (no Service ports: the admitted object alone). */
function catalogMatch(e: CatalogEntry, c: string): string {
  const m = e.match;
  const terms: string[] = [];
  if (m.images?.length) {
    // ig: [path, full] of the container's image (bound once by knownProgramSeconds).
    const globs = m.images.flatMap(imageGlobVariants).map((g) => catalogRegex(imageGlob(g).source, e.id));
    terms.push(`(${globs.map((g) => `ig[0].matches(${g}) || ig[1].matches(${g})`).join(' || ')})`);
  }
  if (m.tags?.length) {
    const globs = m.tags.map((g) => catalogRegex(imageGlob(g).source, e.id));
    terms.push(bind(imageTagOf(c), 'tg', `tg != '' && (${globs.map((g) => `tg.matches(${g})`).join(' || ')})`));
  }
  if (m.minVersion !== undefined) {
    // (lib/catalog versionBelow on imageVersion: a version tag below minVersion does not match.)
    const min = m.minVersion.split('.').map(Number) as [number, number, number];
    terms.push(bind(imageTagOf(c), 'tv', `!tv.matches(${str(versionBelowRegex(min))})`));
  }
  if (m.beforeVersion !== undefined) {
    // (lib/catalog: only a version tag below beforeVersion matches.)
    const before = m.beforeVersion.split('.').map(Number) as [number, number, number];
    terms.push(bind(imageTagOf(c), 'tb', `tb.matches(${str(versionBelowRegex(before))})`));
  }
  if (m.ports?.length) {
    const keys = `[${m.ports.map((p) => str(String(p))).join(', ')}]`;
    terms.push(`has(${c}.ports) && ${c}.ports.exists(p, (has(p.containerPort) && string(p.containerPort) in ${keys}) || (has(p.name) && p.name in ${keys}))`);
  }
  const argv = `((has(${c}.command) ? ${c}.command : []) + (has(${c}.args) ? ${c}.args : []))`;
  if (m.command !== undefined) terms.push(`${argv}.join(' ').matches(${catalogRegex(m.command, e.id)})`);
  if (m.args !== undefined) terms.push(`(has(${c}.args) ? ${c}.args : []).join(' ').matches(${catalogRegex(m.args, e.id)})`);
  return terms.length ? `(${terms.join(' && ')})` : 'true';
}

/**
 * Whether a main container runs a program of the catalog's single-version entries (lib/catalog
 * singleVersionProgram: old and new versions must not run side by side, Kibana, SonarQube DCE application nodes); `false` when the
 * catalog has none. Each container's image is read once. `pick` narrows the entries (those with
 * overlapStalls: Flux's source-controller, whose new pod is not Ready while an old one runs).
 */
export function singleVersionMatch(catalog: Catalog, pick: (e: CatalogEntry) => boolean = () => true): string {
  const entries = catalog.entries.filter((e) => e.kind === 'single-version' && pick(e));
  if (!entries.length) return 'false';
  const body = entries.map((e) => catalogMatch(e, 'c')).join(' || ');
  return `variables.mains.exists(c, ${/\big\[/.test(body) ? bind(imageRepositories('c'), 'ig', body) : body})`;
}

/**
 * lib/catalog portMatches: whether probe handler `h`'s port is the spec's (a number or a name),
 * directly or through the container's declared ports; true when the spec names none.
 */
function probePortMatch(spec: number | string | undefined, h: string, c: string): string {
  if (spec === undefined) return 'true';
  const other = typeof spec === 'number'
    ? `(has(${c}.ports) && ${c}.ports.exists(p, has(p.name) && has(p.containerPort) && p.name == ${h}.port && p.containerPort == ${spec}))`
    : `(has(${c}.ports) && ${c}.ports.exists(p, has(p.name) && has(p.containerPort) && p.name == ${str(spec)} && p.containerPort == ${h}.port))`;
  return `(has(${h}.port) && (string(${h}.port) == ${str(String(spec))} || ${other}))`;
}

/** lib/catalog probeMatches: whether probe `k` of container `c` is the catalog's probe `spec` (of entry `id`). */
function probeSpecMatch(spec: ProbeSpec, c: string, k: string, id: string): string {
  const pr = `${c}.${k}`;
  if (spec.httpGet) {
    const h = `${pr}.httpGet`;
    const path = spec.httpGet.path !== undefined ? ` && (has(${h}.path) ? ${h}.path : '/') == ${str(spec.httpGet.path)}` : '';
    return `(has(${h})${path} && ${probePortMatch(spec.httpGet.port, h, c)})`;
  }
  if (spec.grpc) {
    const g = `${pr}.grpc`;
    const port = spec.grpc.port !== undefined ? ` && has(${g}.port) && ${g}.port == ${spec.grpc.port}` : '';
    const service = spec.grpc.service !== undefined ? ` && (has(${g}.service) ? ${g}.service : '') == ${str(spec.grpc.service)}` : '';
    return `(has(${g})${port}${service})`;
  }
  if (spec.tcpSocket) return `(has(${pr}.tcpSocket) && ${probePortMatch(spec.tcpSocket.port, `${pr}.tcpSocket`, c)})`;
  if (spec.exec) return `(has(${pr}.exec) && has(${pr}.exec.command) && size(${pr}.exec.command) > 0 && ${pr}.exec.command.join(' ').matches(${catalogRegex(spec.exec.command, id)}))`;
  return 'false';
}

/**
 * Whether probe `k` of container `c` passes from the program's listener start (lib/catalog
 * answersFromStart: a process-local-probe entry marked answersFromStart that matches the container
 * and lists the probe); `false` when the catalog has no such entry. The image is read once.
 */
export function answersFromStart(c: string, k: string, catalog: Catalog): string {
  const entries = catalog.entries.filter((e) => e.kind === 'process-local-probe' && e.answersFromStart === true);
  if (!entries.length) return 'false';
  const body = entries.map((e) => `(${catalogMatch(e, c)} && (${(e.probes ?? []).map((p) => probeSpecMatch(p, c, k, e.id)).join(' || ')}))`).join(' || ');
  return `(has(${c}.${k}) && ${/\big\[/.test(body) ? bind(imageRepositories(c), 'ig', body) : body})`;
}

/** The delay of a catalog preStop program (lib/catalog knownPreStopProgram), -2.0 when unknown; `cmd` is the hook's command. */
function catalogDelay(e: CatalogEntry, c: string): string {
  const d = e.preStop!.delay;
  if (d.unknown) return '-2.0';
  if (d.seconds !== undefined) return `${Number(d.seconds).toFixed(3)}`;
  const argv = `((has(${c}.command) ? ${c}.command : []) + (has(${c}.args) ? ${c}.args : []))`;
  const args = d.args ?? [];
  const names = args.map((_, i) => `ka${i}`);
  let body = names.length ? `${names.map((n) => `${n} < 0.0`).join(' || ')} ? -2.0 : ${names.join(' + ')}` : '0.0';
  for (let i = args.length - 1; i >= 0; i--) {
    const a = args[i];
    const list = a.from === 'preStop' ? 'cmd' : argv;
    const value = a.unit === 'seconds' ? "(fgv[0].trim().matches('^[0-9]+(\\\\.[0-9]+)?$') ? double(fgv[0].trim()) : -2.0)" : seconds('fgv[0]');
    const one = bind(flagValue(list, a.flag), 'fgv', `size(fgv) == 0 ? ${Number(a.default).toFixed(3)} : ${value}`);
    body = bind(one, names[i], body);
  }
  return `(${body})`;
}

/**
 * The seconds of the first catalog preStop program that container `c` runs (its image etc. match
 * and `cmd`, the hook's command, matches the entry's regex), -2.0 when none or its delay is unknown.
 */
function knownProgramSeconds(c: string, catalog: Catalog | undefined): string {
  let out = '-2.0';
  const entries = catalog ? catalog.entries.filter((e) => e.kind === 'prestop-program' && e.preStop) : [];
  for (const e of [...entries].reverse()) {
    out = `(${catalogMatch(e, c)} && cmd.join(' ').trim().matches(${catalogRegex(e.preStop!.command, e.id)}) ? ${catalogDelay(e, c)} : ${out})`;
  }
  return entries.some((e) => e.match.images?.length) ? bind(imageRepositories(c), 'ig', out) : out;
}

function preStop(c: string, waitPatterns: string[], onlyExecSleep: boolean, catalog: Catalog | undefined, stopWait = false): string {
  // jn: the command joined by spaces; tk: the shell script's words; ov/fv: "sleep N" alone / first.
  // After the wait patterns, the catalog's known preStop programs (lib/timeline/prestop classifyPreStop order).
  let wait = onlyExecSleep ? '-2.0' : knownProgramSeconds(c, catalog);
  for (const p of [...waitPatterns].reverse()) {
    const last = `jn.split(' ')[size(jn.split(' ')) - 1]`;
    wait = `(jn.matches(${str(waitPattern(p))}) && ${sleepSeconds(last)} >= 0.0 ? ${sleepSeconds(last)} : ${wait})`;
  }
  const waitVal = wait === '-2.0' ? wait : waitPatterns.length ? bind("cmd.join(' ').trim()", 'jn', wait) : wait;
  const lastTok = 'tk[size(tk) - 1]';
  const onlyArg = `(${lastTok} == ';' && size(tk) > 1 ? tk[size(tk) - 2] : ${lastTok}.endsWith(';') ? ${lastTok}.substring(0, size(${lastTok}) - 1) : ${lastTok})`;
  // (A quoted sleep argument of a script, `sleep '30'`: unquote; review round 30.)
  const onlyVal = `(sc.matches(${str(ONLY)}) ? ${bind(tokens('sc'), 'tk', sleepSeconds(unquote(onlyArg)))} : -2.0)`;
  const firstVal = `(sc.matches(${str(FIRST)}) ? ${bind(tokens('sc'), 'tk', sleepSeconds(unquote("tk[1].split(';')[0].split('&&')[0]")))} : -2.0)`;
  const lastVal = `(sc.matches(${str(LAST)}) ? ${bind(tokens('sc'), 'tk', sleepSeconds(unquote(onlyArg)))} : -2.0)`;
  // A trailing sleep after a catalog program with a known delay: the program's (classifyPreStop).
  const known = onlyExecSleep ? '-2.0' : knownProgramSeconds(c, catalog);
  // (Else a script that signals the app before it sleeps: 0 s, its sleep the drain window; review
  // round 33, report p39. With stopWait, encoded as -3.0 - the sleep: decodeStopFirst.)
  const ownLast = `(${STOP_FIRST_CEL} ? ${stopWait ? '-3.0 - lv' : '0.0'} : lv)`;
  const afterLast = known === '-2.0' ? ownLast : bind(known, 'kv', `kv >= 0.0 ? kv : ${ownLast}`);
  const shellBody = onlyExecSleep ? onlyVal : bind(onlyVal, 'ov', `ov >= 0.0 ? ov : ${bind(firstVal, 'fv', `fv >= 0.0 ? fv : ${bind(lastVal, 'lv', `lv >= 0.0 ? ${afterLast} : ${waitVal}`)}`)}`);
  const shell = bind(shellNewlines('cmd[2].trim()'), 'sc', shellBody);
  const exec = bind(
    'h.exec.command',
    'cmd',
    `size(cmd) == 2 && cmd[0].matches(${str(SLEEP_BIN)}) ? ${sleepSeconds('cmd[1]')} : size(cmd) == 3 && cmd[0].matches(${str(SHELL)}) && cmd[1] == '-c' ? ${shell} : ${waitVal}`,
  );
  const sleepAction = onlyExecSleep ? 'has(h.sleep) ? -2.0 : ' : 'has(h.sleep) ? (has(h.sleep.seconds) ? double(h.sleep.seconds) : -2.0) : ';
  const handler = `${sleepAction}has(h.httpGet) || has(h.tcpSocket) || !has(h.exec) || !has(h.exec.command) ? -2.0 : ${exec}`;
  return `(!has(${c}.lifecycle) || !has(${c}.lifecycle.preStop) ? -1.0 : ${bind(`${c}.lifecycle.preStop`, 'h', handler)})`;
}

/** `kubegrace.dev/drain-seconds`, else 10 (lib/timeline/budget drainSeconds). */
export const DRAIN_SECONDS = bind(seconds(ann('kubegrace.dev/drain-seconds')), 'dv', 'dv >= 0.0 ? dv : 10.0');

/** `kubegrace.dev/serves-after-sigterm-seconds` when above 0, else 0 (lib/timeline/serves-after-sigterm servesAfterSigtermHint). */
export const SERVES_AFTER_SECONDS = bind(seconds(ann('kubegrace.dev/serves-after-sigterm-seconds')), 'sv', 'sv > 0.0 ? sv : 0.0');

/**
 * Variables reading a per-container seconds hint ("5" for all, or "app=25,worker=40"; the parsers
 * of lib/timeline: parseSidecarDrainHint, parsePreStopHint): `<prefix>Entries` (the non-empty
 * entries), `<prefix>Named` (readable name=value entries as maps), `<prefix>All` (the last readable
 * bare value, -1.0 when none) and `<prefix>Bad` (whether some entry cannot be read).
 */
export function hintVariables(prefix: string, key: string): { name: string; expression: string }[] {
  const value = "e.substring(e.indexOf('=') + 1)";
  const name = "e.substring(0, e.indexOf('=')).trim()";
  return [
    { name: `${prefix}Entries`, expression: `${ann(key)}.split(',').map(p, p.trim()).filter(p, p != '')` },
    {
      name: `${prefix}Named`,
      expression: `variables.${prefix}Entries.filter(e, e.indexOf('=') >= 0 && ${name} != '' && ${seconds(value)} >= 0.0).map(e, {'name': dyn(${name}), 'v': dyn(${seconds(value)})})`,
    },
    {
      name: `${prefix}All`,
      expression: bind(`variables.${prefix}Entries.filter(e, e.indexOf('=') < 0 && ${seconds('e')} >= 0.0)`, 'ba', `size(ba) == 0 ? -1.0 : ${seconds('ba[size(ba) - 1]')}`),
    },
    {
      name: `${prefix}Bad`,
      expression: `variables.${prefix}Entries.exists(e, e.indexOf('=') < 0 ? ${seconds('e')} < 0.0 : (${name} == '' || ${seconds(value)} < 0.0))`,
    },
  ];
}

/** The hinted seconds for the container named by the CEL string `name`: its last entry, else the bare value, else `fallback`. */
export function hinted(prefix: string, name: string, fallback: string): string {
  return bind(`variables.${prefix}Named.filter(e, e.name == ${name})`, 'dn', `size(dn) > 0 ? dn[size(dn) - 1].v : variables.${prefix}All >= 0.0 ? variables.${prefix}All : ${fallback}`);
}

/** `kubegrace.dev/sidecar-drain-seconds` (lib/timeline/addends). */
export const SIDECAR_HINT_VARIABLES = hintVariables('drain', 'kubegrace.dev/sidecar-drain-seconds');

/** The drain seconds of a native sidecar named by the CEL string `name`, else 5 (lib/timeline/addends sidecarDrainSeconds). */
export function sidecarDrain(name: string): string {
  return hinted('drain', name, '5.0');
}

/** `kubegrace.dev/prestop-seconds`: how long a preStop program or httpGet runs (lib/timeline/prestop parsePreStopHint). */
export const PRESTOP_HINT_VARIABLES = hintVariables('hook', 'kubegrace.dev/prestop-seconds');

/**
 * Whether container `c`'s preStop runs a program whose duration the hint may declare
 * (lib/timeline/prestop isProgramHook): an httpGet, or an exec other than a bare sleep.
 */
export function programHook(c: string): string {
  const h = `${c}.lifecycle.preStop`;
  return `(has(${c}.lifecycle) && has(${h}) && !has(${h}.sleep) && (has(${h}.httpGet) || (!has(${h}.tcpSocket) && has(${h}.exec) && has(${h}.exec.command) && ${execSleepSeconds(c)} < 0.0)))`;
}

/**
 * The preStop seconds of `c` with the hint applied (lib/timeline/prestop applyPreStopHint). Needs
 * PRESTOP_HINT_VARIABLES. With `shellLess` (a CEL predicate on `c`'s image: prestop-sleep-action's
 * patterns), an exec sleep in such an image cannot run and counts as no hook, -1.0
 * (lib/timeline/prestop runningPreStopDelay, as the termination schedule reads it).
 */
export function hintedPreStopSeconds(c: string, waitPatterns: string[], catalog: Catalog = builtinCatalog(), shellLess?: string, stopWait = false): string {
  const s = bind(hinted('hook', `${c}.name`, '-1.0'), 'hs', `${programHook(c)} && hs >= 0.0 ? hs : ${preStop(c, waitPatterns, false, catalog, stopWait)}`);
  return shellLess ? `(has(${c}.image) && ${c}.image != '' && (${shellLess}) && ${execSleepSeconds(c)} >= 0.0 ? -1.0 : ${s})` : s;
}

/**
 * A map of the preStop seconds `s` and, for a hook that signals the app before it sleeps (lib/timeline/prestop
 * kind `exec-stop-then-sleep`, `killall -INT pgbouncer && sleep 120`), that sleep `w` (its
 * `waitSeconds`, the drain window the hook gives; -1.0 for other hooks), from `ps`, a value of
 * hintedPreStopSeconds with `stopWait` (which encodes such a hook as -3.0 - the sleep; its seconds are
 * 0). A hinted hook is read as hinted (lib/timeline/prestop applyPreStopHint): no `w`.
 */
export function decodeStopFirst(ps: string): string {
  return `'s': dyn(${ps} <= -3.0 ? 0.0 : ${ps}), 'w': dyn(${ps} <= -3.0 ? -3.0 - ${ps} : -1.0)`;
}

/**
 * Pods with more main containers than this are not judged by the policies that classify every
 * container's preStop hook (grace-period-budget): it bounds the cost of one evaluation (each
 * container's hook is read with the sleep, shell, wait-pattern and catalog forms).
 */
export const MAX_JUDGED_CONTAINERS = 40;

/** Native sidecars beyond this many are not summed (CEL here has no fold): the policies then do not judge. */
export const MAX_SUMMED_SIDECARS = 16;

const LINKERD_NATIVE = ['config.linkerd.io/proxy-enable-native-sidecar', 'config.beta.linkerd.io/proxy-enable-native-sidecar', 'config.alpha.linkerd.io/proxy-enable-native-sidecar'];

/** A container named `name` among the main containers or native sidecars. */
function hasContainer(name: string): string {
  return `(variables.mains.exists(c, c.name == ${str(name)}) || variables.sidecars.exists(c, c.name == ${str(name)}))`;
}

const HOST_NETWORK = '(has(variables.podSpec.hostNetwork) && variables.podSpec.hostNetwork == true)';

/** Whether some annotation key of the object or its pod template satisfies `pred` (a CEL predicate on `k`). */
function anyAnnotationKey(pred: string): string {
  return `((has(variables.podMeta.annotations) && variables.podMeta.annotations.exists(k, ${pred})) || (has(object.metadata.annotations) && object.metadata.annotations.exists(k, ${pred})))`;
}

/**
 * lib/timeline/addends injectedNativeProxies, judged from the object alone (no Namespace): a mesh
 * proxy the injector will add as a native sidecar because an annotation asks for native mode.
 * Injection is evident as lib/timeline/mesh reads it: the inject annotation or label, or (unless
 * the pod opts out) any Linkerd config annotation / Istio sidecar or proxy-config annotation.
 */
export function injectedLinkerd(): string {
  let mode = 'false';
  for (const k of [...LINKERD_NATIVE].reverse()) mode = `(${annHas(k)} ? ${ann(k)}.trim() == 'true' : ${mode})`;
  const inject = `${ann('linkerd.io/inject')}.trim()`;
  const evidence = anyAnnotationKey("k.startsWith('config.linkerd.io/') || k.startsWith('config.alpha.linkerd.io/') || k.startsWith('config.beta.linkerd.io/')");
  return `(!${hasContainer('linkerd-proxy')} && !${HOST_NETWORK} && ((${annHas('linkerd.io/inject')} && (${inject} == 'enabled' || ${inject} == 'ingress')) || (!(${annHas('linkerd.io/inject')} && ${inject} == 'disabled') && ${evidence})) && ${mode})`;
}

export function injectedIstio(): string {
  const labels = `(has(variables.podMeta.labels) && 'sidecar.istio.io/inject' in variables.podMeta.labels)`;
  const podInject = `(${labels} ? variables.podMeta.labels['sidecar.istio.io/inject'] : ${ann('sidecar.istio.io/inject')}).trim()`;
  const evidence = anyAnnotationKey("k == 'proxy.istio.io/config' || (k.startsWith('sidecar.istio.io/') && k != 'sidecar.istio.io/inject')");
  const gateway = `${ann('inject.istio.io/templates')}.split(',').exists(t, t.trim() == 'gateway')`;
  return `(!${hasContainer('istio-proxy')} && !${HOST_NETWORK} && ${bind(podInject, 'pi', `pi == 'false' ? false : pi == 'true' ? true : ${evidence}`)} && !${gateway} && ${annHas('sidecar.istio.io/nativeSidecar')} && ${ann('sidecar.istio.io/nativeSidecar')}.trim() != 'false')`;
}

/** Σ drain of native sidecars (present and injected), the "M" of TERM-001 (lib/timeline/addends shutdownAddends). Needs SIDECAR_HINT_VARIABLES and `sidecarDrains`. */
export const ADDEND_VARIABLES: { name: string; expression: string }[] = [
  ...SIDECAR_HINT_VARIABLES,
  { name: 'sidecarDrains', expression: `variables.sidecars.map(s, ${sidecarDrain('s.name')})` },
];

export function addendSeconds(): string {
  const terms: string[] = [];
  for (let i = 0; i < MAX_SUMMED_SIDECARS; i++) terms.push(`(size(variables.sidecarDrains) > ${i} && variables.sidecarDrains[${i}] > 0.0 ? variables.sidecarDrains[${i}] : 0.0)`);
  terms.push(
    `(${injectedLinkerd()} ? ${bind(sidecarDrain("'linkerd-proxy'"), 'lk', 'lk > 0.0 ? lk : 0.0')} : 0.0)`,
    `(${injectedIstio()} ? ${bind(sidecarDrain("'istio-proxy'"), 'ip', 'ip > 0.0 ? ip : 0.0')} : 0.0)`,
  );
  return terms.join(' + ');
}
