import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { packageVersion } from '../engine/package-root';
import { Config, discoverConfig, loadConfig, loadPolicy, PolicyError, withOverrides } from '../engine/policy';
import { exitCode, lintSources, LintResult } from '../engine/run';
import { Severity } from '../engine/types';
import { DEFAULT_KUBE_VERSION, KubeVersion, supportedKubeVersion } from '../engine/version';
import { ChartRenderer, collectSources } from '../model/sources';
import { InputError } from '../model/types';
import { escapeControl, jsonInert } from '../report/escape';
import { toText } from '../report/text';
import { ALL_RULES } from '../rules';
import { ruleDocsLink } from '../rules/docs-url';
import { FIX_NOTES, FIX_USAGE, fixModeOf, runFixes } from './fix';
import { CliIO, outputProblem, progress, UsageError, writeAtomic } from './io';

export { packageVersion };

// The formats other than text, helm and the fixer are loaded when used (start-up time).
const lazy = {
  json: () => require('../report/json') as typeof import('../report/json'),
  sarif: () => require('../report/sarif') as typeof import('../report/sarif'),
  junit: () => require('../report/junit') as typeof import('../report/junit'),
  github: () => require('../report/github') as typeof import('../report/github'),
  render: () => require('../helm/render') as typeof import('../helm/render'),
};

export interface Formatter {
  (result: LintResult, ctx: { failOn: Severity | 'never'; color: boolean; quiet: boolean; cwd: string; verbose?: boolean; width?: number }): string;
}

/** Output formats by name; more are registered by the report modules that exist. */
export const FORMATTERS: Record<string, Formatter> = {
  text: (r, c) => toText(r, { color: c.color, quiet: c.quiet, verbose: c.verbose, width: c.width, docsPath: (id) => ruleDocsLink(id, c.cwd) }),
  json: (r) => lazy.json().toJson(r),
  sarif: (r, c) => jsonInert(JSON.stringify(lazy.sarif().toSarif(r, ALL_RULES.map((x) => x.meta), { cwd: c.cwd, toolVersion: packageVersion() }), null, 2)) + '\n',
  junit: (r, c) => lazy.junit().toJunit(r, c.failOn),
  github: (r) => lazy.github().toGithub(r),
};

export const LINT_USAGE = `Usage: kubegrace lint [PATH... | -] [options]

Lints Kubernetes manifests (files, directories, - for stdin) for graceful-termination problems.
A Helm chart directory is rendered with \`helm template\` (helm from HELM_BIN or PATH); its findings
name the template file, at the template line that writes the reported key (else line 1); the
rendered text is what \`helm template kubegrace CHART --show-only templates/FILE\` prints.

Options:
  -f, --format FMT[=FILE]
                        output format: ${'${formats}'}; repeatable, see below (default text)
  -o, --output FILE     write the preceding --format to FILE instead of stdout
  --kube-version X.Y    target Kubernetes version (default ${DEFAULT_KUBE_VERSION.toString()})
  --policy NAME|FILE    recommended (default), strict, or a policy file
  --config FILE         config file (default: .kubegrace.yaml found upward from the working directory)
  --fail-on LEVEL       error (default), warning, info or never: exit 1 at or above it
  --quiet               text: show only errors
  --verbose             text: each finding's whole message (its advice), not only the first sentence
  --no-color            never colour the text output (colour is used only on a terminal)
  --max-file-size SIZE  refuse files larger than this (default 64MB), e.g. 200MB
${'${fix}'}  --values FILE         values file for the Helm charts linted (repeatable, applied in order)
  --set KEY=VALUE       a value for the Helm charts linted, as helm template --set (repeatable)
  --release NAME        release name for rendering charts (default kubegrace)
  -n, --namespace NS    the namespace of objects that name none, as kubectl apply -n and helm
                        install -n put them (charts are rendered with it; default: helm's; for
                        a file without it, the namespace its other objects name, when they are
                        the most or tied to the others (see README), else default)

Several outputs in one run: each --output belongs to the --format before it, and one format at
most goes to stdout, e.g.  --format text --format sarif --output kubegrace.sarif
${'${fixNotes}'}
Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it; 2 usage error or
unreadable / invalid input (the findings of the other files and documents are still reported).
`;

interface OutputSpec {
  format: string;
  file?: string;
}

/** Pairs each --output with the --format before it (parseArgs tokens keep the order). */
function outputsFrom(tokens: NonNullable<ReturnType<typeof parseArgs>['tokens']>): OutputSpec[] {
  const outs: OutputSpec[] = [];
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    if (t.name === 'format') {
      const v = String(t.value ?? '');
      const eq = v.indexOf('=');
      if (eq > 0 && eq === v.length - 1) throw new UsageError(`--format ${v} names no file: write --format ${v}FILE, or --format ${v.slice(0, eq)} for stdout`);
      outs.push(eq > 0 ? { format: v.slice(0, eq), file: v.slice(eq + 1) } : { format: v });
    } else if (t.name === 'output') {
      const last = outs[outs.length - 1];
      if (!last) outs.push({ format: 'text', file: String(t.value) });
      else if (String(t.value ?? '') === '') throw new UsageError('--output needs a file name');
      else if (last.file !== undefined) throw new UsageError(`--output ${String(t.value)} has no --format before it (the previous format already writes to ${last.file})`);
      else last.file = String(t.value);
    }
  }
  if (!outs.length) outs.push({ format: 'text' });
  for (const o of outs) {
    if (!FORMATTERS[o.format]) throw new UsageError(`unknown format "${o.format}": use ${Object.keys(FORMATTERS).join(', ')}`);
  }
  const seen = new Map<string, string>();
  for (const o of outs) {
    if (o.file === undefined) continue;
    const prev = seen.get(path.resolve(o.file));
    if (prev) throw new UsageError(`--format ${prev} and --format ${o.format} both write to ${o.file}: one would overwrite the other; give each its own --output`);
    seen.set(path.resolve(o.file), o.format);
  }
  const toStdout = outs.filter((o) => o.file === undefined);
  if (toStdout.length > 1) throw new UsageError(`only one format can go to stdout (got ${toStdout.map((o) => o.format).join(', ')}): give the others an --output FILE`);
  return outs;
}

export function runLint(argv: string[], io: CliIO): number {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    tokens: true,
    options: {
      format: { type: 'string', multiple: true, short: 'f' },
      output: { type: 'string', multiple: true, short: 'o' },
      'kube-version': { type: 'string' },
      policy: { type: 'string' },
      config: { type: 'string' },
      'fail-on': { type: 'string' },
      values: { type: 'string', multiple: true },
      set: { type: 'string', multiple: true },
      release: { type: 'string' },
      namespace: { type: 'string', short: 'n' },
      quiet: { type: 'boolean' },
      verbose: { type: 'boolean' },
      color: { type: 'boolean' },
      'no-color': { type: 'boolean' },
      fix: { type: 'boolean' },
      'fix-dry-run': { type: 'boolean' },
      'fix-proposals': { type: 'boolean' },
      'max-file-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(LINT_USAGE.replace('${formats}', Object.keys(FORMATTERS).join('|')).replace('${fix}', FIX_USAGE).replace('${fixNotes}', FIX_NOTES));
    return 0;
  }
  const outputs = outputsFrom(tokens!);
  const fixMode = fixModeOf(values);
  if (!positionals.length) throw new UsageError('no PATH given: name files or directories to lint, or - for stdin');

  let config: Config = {};
  const configFile = values.config ? path.resolve(io.cwd, values.config) : discoverConfig(io.cwd);
  if (values.config && !fs.existsSync(configFile!)) throw new UsageError(`config file ${values.config} does not exist`);
  if (configFile) config = loadConfig(configFile, ALL_RULES);

  const failOnRaw = values['fail-on'] ?? config.failOn ?? 'error';
  if (!['error', 'warning', 'info', 'never'].includes(failOnRaw)) throw new UsageError(`--fail-on must be error, warning, info or never (got "${failOnRaw}")`);
  const failOn = failOnRaw as Severity | 'never';
  let version: KubeVersion;
  try {
    version = values['kube-version'] !== undefined ? supportedKubeVersion(values['kube-version']) : config.kubernetesVersion ? supportedKubeVersion(config.kubernetesVersion, 'kubernetesVersion') : DEFAULT_KUBE_VERSION;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const policyName = values.policy ?? config.policy ?? 'recommended';
  const policy = withOverrides(loadPolicy(policyName, ALL_RULES, io.cwd), config.rules);

  const valuesFiles = (values.values ?? []).map((f) => path.resolve(io.cwd, f));
  for (const [i, f] of valuesFiles.entries()) if (!fs.existsSync(f)) throw new UsageError(`values file ${values.values![i]} does not exist`);
  let renderer: ChartRenderer | undefined;
  const renderErrors: InputError[] = [];
  const renderChart: ChartRenderer = (dir, shown) =>
    (renderer ??= lazy.render().helmChartRenderer({
      kubeVersion: version.toString(),
      valuesFiles,
      set: values.set ?? [],
      ...(values.release !== undefined ? { release: values.release } : {}),
      ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
      // A chart that cannot be rendered is a tool failure: said on stderr too (below) when no text
      // report shows it on the terminal, so CI logs show it even when the report goes to a file.
      onError: (e) => renderErrors.push(e),
    }))(dir, shown);
  const maxFileSize = sizeOption(values['max-file-size']);
  // Reports are checked before anything is read or written: a report that cannot be written, or
  // would replace an input, is refused up front.
  for (const o of outputs) {
    if (o.file === undefined) continue;
    const problem = outputProblem(path.resolve(io.cwd, o.file));
    if (problem) throw new UsageError(`--output ${o.file}: ${problem}`);
  }
  // The plain lint writes nothing back: a large file need not be kept in memory.
  const { sources, errors } = collectSources(positionals, { cwd: io.cwd, readStdin: io.readStdin, renderChart, maxFileSize, stream: !fixMode });
  // Files and stdin are applied into --namespace like a chart's render (kubectl apply -n NS): their
  // namespaced objects that name no namespace are judged there, not in default.
  if (values.namespace !== undefined) for (const s of sources) if (s.namespace === undefined) s.applyNamespace = values.namespace;
  for (const o of outputs) {
    const clash = o.file === undefined ? undefined : sources.find((s) => s.path !== undefined && sameFile(s.path, path.resolve(io.cwd, o.file!)));
    if (clash) throw new UsageError(`--output ${o.file} is one of the inputs (${clash.file}): the report would replace the manifest; write it elsewhere`);
  }
  // --fix: repair first, then the report and exit code are about what remains.
  const fixed = fixMode ? runFixes(sources, { rules: ALL_RULES, policy, version }, fixMode, io) : undefined;
  const bar = progress(io, sources.length);
  // After --fix, what remains is the fixer's last lint (of the fixed texts), unless a file was not written.
  const linted = fixed?.remaining
    ? fixed.remaining([...errors, ...fixed.errors])
    : lintSources(fixed?.sources ?? sources, { rules: ALL_RULES, policy, version, onProgress: bar?.update, onRules: bar?.rules, releaseBytes: !fixed }, [...errors, ...(fixed?.errors ?? [])]);
  // --fix-dry-run: what remains, at the lines of the files on disk.
  const relocated = fixed ? fixed.relocate(linted) : linted;
  bar?.done();
  // Findings and input errors on rendered charts point at the template files on disk (SARIF and
  // GitHub annotations need a real file).
  const toTemplates = <T extends { file: string; line: number; column: number }>(xs: T[]) => lazy.render().mapFindingsToTemplates(xs, fixed?.sources ?? sources, io.cwd);
  const result = renderer ? { ...relocated, findings: toTemplates(relocated.findings), errors: toTemplates(relocated.errors) } : relocated;

  const terminal = fixed?.stdoutTaken ? io.stderrIsTTY : io.stdoutIsTTY;
  let writeFailed = false;
  for (const o of outputs) {
    // NO_COLOR (no-color.org) turns off the automatic colour on a terminal; --color and --no-color win over it.
    const color = o.file === undefined && !values['no-color'] && (values.color || (terminal && !process.env.NO_COLOR));
    const width = o.file === undefined && terminal ? (io.columns ?? 80) : undefined;
    const text = FORMATTERS[o.format](result, { failOn, color: !!color, quiet: !!values.quiet, cwd: io.cwd, verbose: !!values.verbose, width });
    if (o.file === undefined) (fixed?.stdoutTaken ? io.stderr : io.stdout)(text);
    else {
      try {
        writeAtomic(path.resolve(io.cwd, o.file), text);
      } catch (e) {
        io.stderr(`kubegrace: cannot write --output ${o.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
        writeFailed = true;
      }
    }
  }
  // Nothing was checked: said on stderr whatever the format (a CI step that lints a failed render,
  // helm's error text redirected into the file, or an empty file, would otherwise pass in silence).
  if (result.objects === 0 && result.files > 0 && result.errors.length === 0 && !values.quiet) {
    io.stderr(`kubegrace: warning: no Kubernetes object in the input (${result.files} file${result.files === 1 ? '' : 's'}): nothing was checked; an empty file, a values file or a failed render (helm's error text) reads like this\n`);
  }
  // Objects of a file that name no namespace, taken to be in the one its other objects name: said,
  // since a wrong namespace changes which Services, budgets and autoscalers go with which workload.
  if (!values.quiet) {
    for (const p of result.parsed) {
      const n = p.inferredNamespace;
      if (!n) continue;
      io.stderr(
        `kubegrace: note: ${escapeControl(p.file)}: ${n.objects} namespaced object${n.objects === 1 ? '' : 's'} without metadata.namespace taken to be in namespace ${escapeControl(n.namespace)}, the only one the file's other objects name (helm install -n ${escapeControl(n.namespace)} puts them there); pass --namespace to say otherwise\n`,
      );
    }
  }
  // Each input error is printed once: by the text report when it is shown, else here.
  if (!outputs.some((o) => o.format === 'text' && o.file === undefined)) {
    // Escaped as in every report: helm's message carries text from the chart (`fail "..."`).
    for (const e of renderErrors) io.stderr(`kubegrace: ${escapeControl(e.file)}:${e.line}:${e.column}: ${escapeControl(e.message)}\n`);
  }
  return writeFailed ? 2 : exitCode(result, failOn);
}

/** Whether two paths name the same file (same device and inode), when both exist. */
function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** `--max-file-size`: bytes, or with a unit: 64MB, 512KB, 1GB (powers of 1024). */
function sizeOption(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|K|KiB|MB|M|MiB|GB|G|GiB)?$/i.exec(v.trim());
  const unit = (m?.[2] ?? 'B').toUpperCase()[0];
  const n = m ? Number(m[1]) * (unit === 'K' ? 1024 : unit === 'M' ? 1024 ** 2 : unit === 'G' ? 1024 ** 3 : 1) : NaN;
  if (!Number.isFinite(n) || n < 1 || n > 4 * 1024 ** 3) throw new UsageError(`--max-file-size must be a size between 1 byte and 4GB, e.g. 64MB (got "${v}")`);
  return Math.floor(n);
}

export { PolicyError };
