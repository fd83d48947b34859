import * as fs from 'fs';
import * as path from 'path';
import { parseDocument } from 'yaml';
import { ChartRenderer, Source } from '../model/sources';
import { InputError } from '../model/types';
import { findHelm, HelmNotFoundError, HelmOutputTooLargeError, runHelm } from './helm-bin';
import { MirrorError, RenderAttempt, renderWithRecovery } from './recover';

/*
 * Lints a Helm chart directory through `helm template`. The output is split at helm's
 * `# Source: <chart>/<path>` comments into one Source per template file. A template's documents
 * can be scattered through helm's output (helm sorts all documents by kind), so a Source's text is
 * that template's documents in output order, each as helm prints it (`---`, `# Source: ...`, body):
 * exactly what `helm template RELEASE CHART --show-only <path>` prints, so line:col can be looked
 * up there.
 *
 * Source.file is `<chart dir>/<path> (rendered)`. The suffix is deliberate: positions are in the
 * rendered text, not in the template on disk, and every consumer of `file` (text, JSON, SARIF,
 * GitHub annotations) must not attach them to lines of the template file, where they would point
 * at unrelated lines. Errors that helm reports with a template position (execution errors, `fail`
 * in a guard) do point at the template file itself, without the suffix.
 *
 * helm stops at the first template that fails; the renderer then reports it and renders the chart
 * again without it (lib/helm/recover.ts), so one failing template does not hide the findings of
 * the chart's other templates.
 */

/** The release name used for rendering (visible in names that include .Release.Name). */
export const RELEASE_NAME = 'kubegrace';
export const RENDERED_SUFFIX = ' (rendered)';
/**
 * Most helm runs for one chart. helm stops at the first failing template; each failing template
 * costs one re-render, or about log2(templates) + 1 when helm names only a helper. helm template
 * takes ~0.1 s on a small chart.
 */
export const MAX_RENDERS = 24;

export interface HelmRendererOptions {
  /** Target Kubernetes version, X.Y or X.Y.Z (passed as --kube-version X.Y.Z; X.Y means X.Y.0). */
  kubeVersion?: string;
  /** The helm binary; default findHelm() (HELM_BIN, then PATH). */
  helm?: string;
  /** Values files (absolute, or relative to the process's working directory), passed as -f in order. */
  valuesFiles?: string[];
  /** `--set` values, in order (after the values files, as in helm). */
  set?: string[];
  /** Release name (default RELEASE_NAME) and namespace (default: helm's) for rendering. */
  release?: string;
  namespace?: string;
  /** Called with each error as it happens (the CLI echoes them on stderr). */
  onError?: (e: InputError) => void;
  /** Most helm runs for one chart (the first render, re-renders without failing templates); default MAX_RENDERS. */
  maxRenders?: number;
  /** Variables added to process.env for finding and running helm (HELM_BIN, PATH, HELM_*_HOME). */
  env?: NodeJS.ProcessEnv;
}

/** `1.31` -> `1.31.0`; a full X.Y.Z is kept. */
export function kubeVersionArg(v: string): string {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(v.trim());
  if (!m) throw new Error(`invalid Kubernetes version "${v}"`);
  return `${m[1]}.${m[2]}.${m[3] ?? '0'}`;
}

interface Block {
  /** The path after the chart name in `# Source: <chart>/<path>`, or undefined without a header. */
  source?: string;
  text: string;
}

/** Splits `helm template` output into its `---` blocks (helm starts every document with one). */
export function splitRendered(output: string): Block[] {
  const blocks: Block[] = [];
  const lines = output.split('\n');
  let cur: string[] | undefined;
  const flush = () => {
    if (!cur) return;
    const text = cur.join('\n');
    if (text.trim() !== '' && text.trim() !== '---') {
      const m = /^# Source: [^/\n]+\/(.+?)\s*$/m.exec(cur[1] ?? '');
      blocks.push({ source: m ? m[1] : undefined, text: text.endsWith('\n') ? text : `${text}\n` });
    }
    cur = undefined;
  };
  for (const line of lines) {
    if (/^---\s*$/.test(line)) {
      flush();
      cur = [line];
    } else if (cur) cur.push(line);
    else if (line.trim() !== '') cur = [line];
  }
  flush();
  return blocks;
}

/** Groups rendered blocks into one Source per template file, sorted by path. */
export function renderedSources(output: string, chartDisplay: string, namespace?: string): Source[] {
  const byFile = new Map<string, string[]>();
  for (const b of splitRendered(output)) {
    const file = b.source !== undefined ? `${chartDisplay}/${b.source}${RENDERED_SUFFIX}` : `${chartDisplay}${RENDERED_SUFFIX}`;
    byFile.set(file, [...(byFile.get(file) ?? []), b.text]);
  }
  return [...byFile.keys()].sort().map((file) => ({ file, text: byFile.get(file)!.join(''), chart: chartDisplay, ...(namespace ? { namespace } : {}) }));
}

/** helm's message: from its first `Error: ` line (before it: warnings, symlink notices), without the --debug hint. */
function helmMessage(stderr: string): string {
  const lines = stderr.split('\n');
  const first = lines.findIndex((l) => l.startsWith('Error: '));
  return (first >= 0 ? lines.slice(first) : lines.filter((l) => !/^walk\.go:\d+: found symbolic link in path: /.test(l)))
    .filter((l) => !/^Use --debug flag to render out invalid YAML/.test(l))
    .join('\n')
    .trim()
    .replace(/^Error: /, '');
}

/**
 * The template position helm's message starts at: `execution error at (<chart>/templates/x.yaml:12:3)`,
 * `template: <chart>/templates/x.yaml:12:3: ...`, `parse error at (<chart>/templates/x.yaml:12)`,
 * `YAML parse error on <chart>/templates/x.yaml: ...` (a position in the rendered text, not given).
 * The path is after the chart's name, e.g. `templates/x.yaml`, `charts/sub/templates/x.yaml`.
 */
export function helmErrorPosition(message: string): { helmPath: string; line?: number; column?: number } | undefined {
  // Template names may hold spaces, colons, parentheses, even newlines: the shortest name followed by helm's own punctuation.
  const pos =
    /^execution error at \([^/\n]+\/([\s\S]+?):(\d+):(\d+)\): /.exec(message) ??
    /^template: [^/\n]+\/([\s\S]+?):(\d+):(\d+): /.exec(message) ??
    /^parse error at \([^/\n]+\/([\s\S]+?):(\d+)\): /.exec(message);
  if (pos) return { helmPath: pos[1], line: Number(pos[2]), column: pos[3] ? Number(pos[3]) : undefined };
  const yaml = /^YAML parse error on [^/\n]+\/([\s\S]+?): error converting YAML to JSON: /.exec(message);
  return yaml ? { helmPath: yaml[1] } : undefined;
}

/**
 * Helm's error as an InputError: at the template position when helm gives one
 * (`execution error at (<chart>/templates/x.yaml:12:3): ...`, `template: <chart>/templates/x.yaml:12:3: ...`),
 * at line 1 of the template when helm names only the file (`YAML parse error on <chart>/templates/x.yaml`),
 * else at the chart directory.
 */
export function helmError(stderr: string, chartDisplay: string): InputError {
  const text = helmMessage(stderr);
  const message = `helm template failed: ${text || 'no message (helm exited with an error)'}`;
  const pos = helmErrorPosition(text);
  if (pos) return { file: `${chartDisplay}/${pos.helmPath}`, line: pos.line ?? 1, column: pos.column ?? 1, message };
  // A values file or Chart.yaml that is not YAML: at that file and the line helm's YAML reader gives.
  const values = /^failed to parse ([^\n]+?): error converting YAML to JSON: yaml: line (\d+): ([^\n]*)/.exec(text);
  if (values) return { file: displayPath(values[1]), line: Number(values[2]), column: 1, message: `values file is not valid YAML: ${values[3]}; fix the values file (the chart ${chartDisplay} was not linted)` };
  const chartYaml = /^cannot load Chart\.yaml: error converting YAML to JSON: yaml: line (\d+): ([^\n]*)/.exec(text);
  if (chartYaml) return { file: `${chartDisplay}/Chart.yaml`, line: Number(chartYaml[1]), column: 1, message: `Chart.yaml is not valid YAML: ${chartYaml[2]}; fix it (the chart was not linted)` };
  return { file: chartDisplay, line: 1, column: 1, message };
}

/** A path helm printed (absolute: kubegrace passes values files so), relative to the working directory when under it. */
function displayPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

/** Library charts only define templates for other charts; helm refuses to render them. */
function isLibraryChart(chartDir: string): boolean {
  try {
    return parseDocument(fs.readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')).get('type') === 'library';
  } catch {
    return false; // helm will say what is wrong with it
  }
}

/** A ChartRenderer running `helm template kubegrace <chartDir> [--kube-version X.Y.Z] [-f FILE]...`. */
export function helmChartRenderer(opts: HelmRendererOptions = {}): ChartRenderer {
  const kube = opts.kubeVersion !== undefined ? kubeVersionArg(opts.kubeVersion) : undefined;
  let helm: string | undefined = opts.helm;
  let notFound: string | undefined;
  return (chartDir, displayName) => {
    if (isLibraryChart(chartDir)) return { sources: [], errors: [] };
    const fail = (e: InputError) => {
      opts.onError?.(e);
      return { sources: [], errors: [e] };
    };
    if (!helm && notFound === undefined) {
      try {
        helm = findHelm({ ...process.env, ...opts.env });
      } catch (e) {
        notFound = (e as Error).message;
      }
    }
    if (!helm) return fail({ file: displayName, line: 1, column: 1, message: `cannot render this Helm chart: ${notFound}` });
    const args: string[] = [];
    if (kube) args.push('--kube-version', kube);
    if (opts.namespace) args.push('--namespace', opts.namespace);
    for (const f of opts.valuesFiles ?? []) args.push('--values', path.resolve(f));
    for (const v of opts.set ?? []) args.push('--set', v);
    const run = (dir: string): RenderAttempt => {
      const r = runHelm(['template', opts.release ?? RELEASE_NAME, dir, ...args], { helm, env: opts.env });
      return r.status === 0 ? { ok: true, stdout: r.stdout } : { ok: false, stderr: r.stderr };
    };
    let rec;
    try {
      rec = renderWithRecovery(path.resolve(chartDir), {
        render: run,
        describe: (stderr) => ({ error: helmError(stderr, displayName), helmPath: helmErrorPosition(helmMessage(stderr))?.helmPath }),
        maxRuns: opts.maxRenders ?? MAX_RENDERS,
      });
    } catch (e) {
      if (e instanceof HelmOutputTooLargeError) return fail({ file: displayName, line: 1, column: 1, message: `cannot render this Helm chart: ${e.message}` });
      if (e instanceof HelmNotFoundError) return fail({ file: displayName, line: 1, column: 1, message: `cannot render this Helm chart: ${e.message}; install helm 3 or set HELM_BIN` });
      const code = e instanceof MirrorError ? 'an unreadable archive' : (e as NodeJS.ErrnoException).code;
      if (typeof code === 'string') return fail({ file: displayName, line: 1, column: 1, message: `cannot render this Helm chart: ${code} while preparing a copy of it without its failing templates (${(e as Error).message})` });
      throw e;
    }
    const errors: InputError[] = rec.failures.map((f) => {
      // In a packaged subchart the template is no file on disk: helm's name for it is kept.
      const e = f.template && !f.template.archive ? { ...f.error, file: `${displayName}/${f.template.diskPath}` } : { ...f.error };
      // helm named a helper (or nothing): the template that failed is the one to look at, at line 1.
      if (f.bisected && f.template) Object.assign(e, { file: `${displayName}/${f.template.archive ? f.template.helmPath : f.template.diskPath}`, line: 1, column: 1, message: `${e.message} (while rendering ${f.template.archive ? f.template.helmPath : f.template.diskPath})` });
      const shown = f.template?.archive ? `${f.template.helmPath} (in ${f.template.archive.file})` : f.template?.diskPath;
      if (f.template && rec.stdout !== undefined) e.message += `; the rest of the chart was linted without ${shown} (findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart)`;
      return e;
    });
    if (rec.exhausted) {
      errors.push({
        file: displayName,
        line: 1,
        column: 1,
        message: `cannot render this Helm chart: stopped after ${rec.runs} helm template runs with ${rec.failures.length} failing template${rec.failures.length === 1 ? '' : 's'} found; the other templates were not linted: fix these and lint again`,
      });
    }
    for (const e of errors) opts.onError?.(e);
    const omitted = rec.failures.flatMap((f) => (f.template ? [f.template.archive ? f.template.helmPath : f.template.diskPath] : []));
    const sources = rec.stdout !== undefined ? renderedSources(rec.stdout, displayName, opts.namespace) : [];
    if (omitted.length) for (const s of sources) s.partial = omitted;
    return { sources, errors };
  };
}

/** The key a YAML line writes (`  key: ...` or `- key: ...`), if any. */
function lineKey(line: string | undefined): { key: string; column: number } | undefined {
  const m = /^(\s*(?:-\s+)*)("[^"]*"|'[^']*'|[^\s:#'"{][^:]*?):(?:\s|$)/.exec(line ?? '');
  return m ? { key: m[2], column: m[1].length + 1 } : undefined;
}

/** A line of a template that holds only template actions (`{{- if ... }}`, `{{- toYaml ... | nindent 8 }}`). */
const ACTION_ONLY = /^\s*(\{\{[\s\S]*?\}\}\s*)+$/;

/** A line that writes a key: its key path, and the text of the line that opened each level of it. */
export interface KeyLine {
  /** Parent keys and `-` for each sequence level, then the key, joined by newlines (keys can hold dots and slashes). */
  path: string;
  /** Per level of the path, the trimmed text of the line that opened it (a sequence level: the item's first line). */
  texts: string[];
}

/**
 * The key lines of a YAML text (block style, as helm prints it and as templates are written).
 * Indentation decides nesting; `---` starts a new document; lines inside a block scalar (`key: |`)
 * are content, not keys. In a template, lines that hold only actions are skipped.
 */
export function keyLines(lines: string[], template = false): (KeyLine | undefined)[] {
  let stack: { indent: number; seg: string; text: string }[] = [];
  let scalarAbove: number | undefined;
  return lines.map((line) => {
    if (/^---\s*$/.test(line)) {
      stack = [];
      scalarAbove = undefined;
      return undefined;
    }
    const indent = /^\s*/.exec(line)![0].length;
    if (line.trim() === '' || /^\s*#/.test(line)) return undefined;
    if (scalarAbove !== undefined && indent > scalarAbove) return undefined;
    scalarAbove = undefined;
    if (template && ACTION_ONLY.test(line)) return undefined;
    const text = line.trim();
    let col = indent;
    let rest = line.slice(indent);
    for (let d = /^-(\s+|$)/.exec(rest); d; d = /^-(\s+|$)/.exec(rest)) {
      stack = stack.filter((e) => e.indent < col);
      stack.push({ indent: col, seg: '-', text });
      col += d[0].length;
      rest = rest.slice(d[0].length);
    }
    const k = lineKey(rest);
    if (!k) return undefined;
    stack = stack.filter((e) => e.indent < col);
    stack.push({ indent: col, seg: k.key.replace(/^(["'])(.*)\1$/, '$2'), text });
    if (/:\s*[|>][-+0-9]*\s*(#.*)?$/.test(rest)) scalarAbove = col;
    return { path: stack.map((e) => e.seg).join('\n'), texts: stack.map((e) => e.text) };
  });
}

/** The key path of every line (see keyLines), undefined for lines that write no key. */
export function keyPaths(lines: string[], template = false): (string | undefined)[] {
  return keyLines(lines, template).map((k) => k?.path);
}

/** Line ranges [start, end) of the documents of a text (split at `---` lines). */
function docRanges(lines: string[]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  lines.forEach((l, i) => {
    if (/^---\s*$/.test(l)) {
      out.push([start, i]);
      start = i + 1;
    }
  });
  out.push([start, lines.length]);
  return out;
}

/** A document's top-level `kind:` when written literally (a template may compute it: then undefined). */
function docKind(lines: string[], [s, e]: [number, number]): string | undefined {
  for (let i = s; i < e; i++) {
    const m = /^kind:\s*["']?([A-Za-z][A-Za-z0-9]*)["']?\s*(#.*)?$/.exec(lines[i]);
    if (m) return m[1];
  }
  return undefined;
}

/** A text's documents: their line ranges and literal kinds (producingDocument's input). */
type DocTable = { range: [number, number]; kind?: string }[];

function docTable(lines: string[]): DocTable {
  return docRanges(lines).map((range) => ({ range, kind: docKind(lines, range) }));
}

/**
 * The template document that wrote the rendered document holding line `line` (0-based), and that
 * rendered document: helm sorts a file's documents by kind (a PodDisruptionBudget before the
 * Service before the Deployment), so the n-th document of a kind in the output is the n-th
 * template document with that literal `kind:`. Undefined when the kind is not written literally.
 */
function producingDocument(rendered: DocTable, template: DocTable, line: number): { rendered: [number, number]; template: [number, number] } | undefined {
  const rd = rendered.find(({ range: [s, e] }) => line >= s && line < e);
  if (!rd?.kind) return undefined;
  const nth = rendered.filter((d) => d.kind === rd.kind).indexOf(rd);
  const tDocs = template.filter((d) => d.kind === rd.kind);
  return tDocs.length ? { rendered: rd.range, template: tDocs[Math.min(nth, tDocs.length - 1)].range } : undefined;
}

/**
 * Moves findings on rendered chart output (`CHART/templates/x.yaml (rendered)`) to the template file on
 * disk, so SARIF and GitHub annotations land on a real file. Only the template document that wrote
 * the object is searched (producingDocument), and rendered lines are counted from that object's own
 * document. The reported line's key path (its parent
 * keys and sequence levels) is looked up among the template's lines with the same path; of those, the
 * ones whose levels were opened by the same text (the same container item, `- name: proxy`; the same
 * line) win, and among equals the n-th, n counted among the rendered lines with that path (clamped to
 * the last), so a key that a `toYaml` block or a false `if` branch also writes does not shift the line.
 * Keys a template writes only through `toYaml` are not in it: then the nearest ancestor key it writes
 * (the block's own key, `env:`, `livenessProbe:`), else the n-th line writing the same key alone, else
 * line 1 of the template. The message is unchanged; `helm template --show-only
 * templates/x.yaml` shows the rendered text.
 */
export function mapFindingsToTemplates<T extends { file: string; line: number; column: number }>(findings: T[], sources: { file: string; text: string }[], cwd: string): T[] {
  const byFile = new Map(sources.map((s) => [s.file, s.text]));
  const templates = new Map<string, { lines: string[]; keys: (KeyLine | undefined)[]; table: DocTable } | undefined>();
  // Per rendered file, read once for all its findings: its lines, key paths and documents.
  const renderedFiles = new Map<string, { lines: string[]; keys: (KeyLine | undefined)[]; table: DocTable }>();
  return findings.map((f) => {
    if (!f.file.endsWith(RENDERED_SUFFIX)) return f;
    const file = f.file.slice(0, -RENDERED_SUFFIX.length);
    const rendered = byFile.get(f.file);
    if (!templates.has(file)) {
      try {
        const lines = fs.readFileSync(path.resolve(cwd, file), 'utf8').split('\n');
        templates.set(file, { lines, keys: keyLines(lines, true), table: docTable(lines) });
      } catch {
        templates.set(file, undefined);
      }
    }
    const tpl = templates.get(file);
    if (!tpl || rendered === undefined) return f;
    let rf = renderedFiles.get(f.file);
    if (!rf) {
      const split = rendered.split('\n');
      renderedFiles.set(f.file, (rf = { lines: split, keys: keyLines(split), table: docTable(split) }));
    }
    const { lines, keys } = rf;
    let line = 1;
    let column = 1;
    const at = (i: number) => {
      line = i + 1;
      column = lineKey(tpl.lines[i])!.column;
    };
    const r = keys[f.line - 1];
    // Only the template document that wrote the reported object is searched, and rendered lines are
    // counted from its own start: a Deployment and its Service in one template are not mixed up.
    const doc = producingDocument(rf.table, tpl.table, f.line - 1);
    const [t0, t1] = doc?.template ?? [0, tpl.lines.length];
    const r0 = doc?.rendered[0] ?? 0;
    const inDoc = (i: number) => i >= t0 && i < t1;
    // The reported line's path, else its nearest ancestor key the template writes (a key under a
    // `toYaml` block lands on the block's key: `env:`, `livenessProbe:`).
    let found = false;
    const segs = r ? r.path.split('\n') : [];
    for (let n = segs.length; r && n > 0 && !found; n--) {
      if (segs[n - 1] === '-') continue;
      const p = segs.slice(0, n).join('\n');
      const texts = r.texts.slice(0, n);
      const byPath = tpl.keys.flatMap((q, i) => (q?.path === p && inDoc(i) ? [i] : []));
      if (!byPath.length) continue;
      // The template lines whose levels were opened by the same lines as the reported one's (the same
      // container item, `- name: proxy`) come first; among equals, the n-th by order.
      const score = (i: number) => tpl.keys[i]!.texts.reduce((c, t, j) => c + (t === texts[j] ? 1 : 0), 0);
      const best = Math.max(...byPath.map(score));
      const tied = byPath.filter((i) => score(i) === best);
      // Rendered lines with that path before the reported one (for an ancestor, its own line is the last of them).
      const before = keys.slice(r0, f.line - 1).filter((q) => q?.path === p).length;
      const nth = n === segs.length ? before : Math.max(before - 1, 0);
      at(tied[Math.min(nth, tied.length - 1)]);
      found = true;
    }
    if (!found) {
      const k = lineKey(lines[f.line - 1]);
      if (k) {
        const nth = lines.slice(r0, f.line - 1).filter((l) => lineKey(l)?.key === k.key).length;
        const hits = tpl.lines.flatMap((l, i) => (lineKey(l)?.key === k.key && inDoc(i) ? [i] : []));
        if (hits.length) at(hits[Math.min(nth, hits.length - 1)]);
      }
    }
    return { ...f, file, line, column };
  });
}
