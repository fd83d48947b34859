import * as fs from 'fs';
import * as path from 'path';
import { InputError } from './types';

/** A unit of input text: a file, stdin, or a rendered Helm chart. */
export interface Source {
  /** The name used in output: relative to the working directory when under it. */
  file: string;
  text: string;
  /** Absolute path on disk, if the text came from one file (absent for stdin and renders). */
  path?: string;
  /** Set for sources rendered from a Helm chart: the chart directory. */
  chart?: string;
}

export const STDIN_NAME = '<stdin>';
const MANIFEST_EXT = /\.(ya?ml|json)$/i;

export interface ChartRenderer {
  (chartDir: string, displayName: string): { sources: Source[]; errors: InputError[] };
}

export interface CollectOptions {
  cwd?: string;
  readStdin?: () => string;
  /** Renders a Helm chart directory; without it a chart directory is an error. */
  renderChart?: ChartRenderer;
}

export function displayName(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
}

/** Decodes bytes as UTF-8 text; refuses binary data and invalid UTF-8. */
export function decodeText(bytes: Buffer): { text?: string; problem?: string } {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return { problem: 'binary file (contains NUL bytes), not YAML or JSON; remove it from the paths to lint' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { problem: 'not valid UTF-8 text; Kubernetes manifests must be UTF-8 (re-encode the file, e.g. with iconv)' };
  }
}

function walk(dir: string, seen: Set<string>, out: string[], charts: string[]): void {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch {
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      try {
        const st = fs.statSync(p);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch {
        continue;
      }
    }
    if (isDir) {
      if (fs.existsSync(path.join(p, 'Chart.yaml'))) charts.push(p);
      else walk(p, seen, out, charts);
    } else if (isFile && MANIFEST_EXT.test(e.name)) {
      out.push(p);
    }
  }
}

/**
 * Expands the CLI's PATH arguments into sources. Unreadable paths become errors; every readable
 * file is still returned, so one bad path never hides the findings of the others.
 */
export function collectSources(paths: string[], opts: CollectOptions = {}): { sources: Source[]; errors: InputError[] } {
  const cwd = opts.cwd ?? process.cwd();
  const sources: Source[] = [];
  const errors: InputError[] = [];
  const readFile = (abs: string, shown: string): void => {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(abs);
    } catch (e) {
      errors.push({ file: shown, line: 1, column: 1, message: `cannot read file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; check the path and its permissions` });
      return;
    }
    const { text, problem } = decodeText(bytes);
    if (problem) errors.push({ file: shown, line: 1, column: 1, message: problem });
    else sources.push({ file: shown, text: text!, path: abs });
  };
  const renderChart = (dir: string): void => {
    const shown = displayName(dir, cwd);
    if (!opts.renderChart) {
      errors.push({ file: shown, line: 1, column: 1, message: 'this is a Helm chart directory; rendering charts is not available here, lint `helm template` output instead' });
      return;
    }
    const r = opts.renderChart(dir, shown);
    sources.push(...r.sources);
    errors.push(...r.errors);
  };
  for (const p of paths) {
    if (p === '-') {
      const text = (opts.readStdin ?? (() => fs.readFileSync(0, 'utf8')))();
      sources.push({ file: STDIN_NAME, text });
      continue;
    }
    const abs = path.resolve(cwd, p);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      errors.push({ file: p, line: 1, column: 1, message: 'no such file or directory; check the path' });
      continue;
    }
    if (st.isDirectory()) {
      if (fs.existsSync(path.join(abs, 'Chart.yaml'))) {
        renderChart(abs);
        continue;
      }
      const files: string[] = [];
      const charts: string[] = [];
      walk(abs, new Set(), files, charts);
      for (const f of files) readFile(f, displayName(f, cwd));
      for (const c of charts) renderChart(c);
    } else {
      readFile(abs, displayName(abs, cwd));
    }
  }
  return { sources, errors };
}
