import * as fs from 'fs';
import { ResolvedPolicy } from '../engine/policy';
import { Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { lintResultOf, LintResult, sortFindings } from '../engine/run';
import type { AppliedFix, SkippedFix } from '../fix';
import type { TextPosition } from '../fix/format';
import { Source } from '../model/sources';
import { InputError } from '../model/types';
import { CliIO, fixWriteProblem, UsageError, writeAtomic, WriteRefused } from './io';

/** What `lint --fix`, `--fix-dry-run` and `--fix-proposals` ask for. */
export interface FixMode {
  /** Write the fixed files (`--fix`); false for `--fix-dry-run`. */
  write: boolean;
  proposals: boolean;
}

export const FIX_USAGE = `  --fix                 apply the safe repairs (each rule's doc says which are safe) to the files,
                        keeping comments and formatting; stdin input is printed fixed to stdout.
                        Then lints again: the report and exit code are about what remains
  --fix-dry-run         print the repairs as a unified diff on stdout instead of writing (exactly
                        what --fix would write); the report and exit code are about what would
                        remain, at the lines of the files as they are on disk
  --fix-proposals       also apply proposals (new PDBs, strategy changes, spread constraints, ...);
                        needs --fix or --fix-dry-run
`;

export const FIX_NOTES = `
With --fix-dry-run, or --fix on stdin input, stdout carries the diff or the fixed YAML, so the
report that would go there goes to stderr (formats with --output FILE are written as usual).
Helm chart directories are never written: --fix refuses them (exit 2); --fix-dry-run shows what
it would change in the other files.
`;

export function fixModeOf(values: { fix?: boolean; 'fix-dry-run'?: boolean; 'fix-proposals'?: boolean }): FixMode | undefined {
  if (values.fix && values['fix-dry-run']) throw new UsageError('--fix and --fix-dry-run exclude each other: use --fix-dry-run to see the changes, --fix to write them');
  if (values['fix-proposals'] && !values.fix && !values['fix-dry-run']) throw new UsageError('--fix-proposals needs --fix or --fix-dry-run');
  if (!values.fix && !values['fix-dry-run']) return undefined;
  return { write: !!values.fix, proposals: !!values['fix-proposals'] };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : /(x|s|sh|ch)$/.test(word) ? 'es' : 's'}`;
}

/** Where a position of the fixed text of a file is in the file the user has (identity when unchanged). */
type Relocate = (file: string, pos: TextPosition) => TextPosition;

function appliedLine(a: AppliedFix, at: Relocate): string {
  return `  ${a.file}:${at(a.file, { line: a.line, column: 1 }).line} ${a.ruleId} ${a.description}${a.safety === 'proposal' ? ' (proposal)' : ''}\n`;
}

function skippedLine(s: SkippedFix, withReason: boolean, at: Relocate): string {
  const f = s.finding;
  return `  ${f.file}:${at(f.file, f).line} ${f.ruleId} ${f.fix?.description ?? ''}${withReason ? `: ${s.reason}` : ''}\n`;
}

/**
 * Applies the fixes for `lint`: writes the files (or prints the diff), prints a summary on stderr,
 * and returns the sources as fixed, for the lint that reports what remains, with `relocate`, which
 * moves that report onto the files the user has: for --fix the fixed files (identity), for
 * --fix-dry-run the files on disk, which the dry run leaves as they are.
 */
export function runFixes(
  sources: Source[],
  opts: { rules: Rule[]; policy: ResolvedPolicy; version: KubeVersion },
  mode: FixMode,
  io: CliIO,
): {
  sources: Source[];
  stdoutTaken: boolean;
  relocate: (r: LintResult) => LintResult;
  errors: InputError[];
  /** The report of what remains from the fixer's last lint, when it linted exactly `sources` (no file refused). */
  remaining?: (extraErrors: InputError[]) => LintResult;
} {
  if (mode.write) {
    const charts = [...new Set(sources.flatMap((s) => (s.chart === undefined ? [] : [s.chart])))];
    if (charts.length) {
      throw new UsageError(
        `--fix cannot write into the Helm chart ${charts.join(', ')}: its manifests are rendered from templates; fix the chart's templates or values by hand (to see the repairs on the rendered manifests: helm template RELEASE CHART > rendered.yaml, then kubegrace lint rendered.yaml --fix-dry-run)`,
      );
    }
  }
  // The fixer (and its diff library) is loaded only when a fix is asked for.
  const { fixSources, PROPOSAL_REASON, unifiedDiff, positionMapping, lineChunksBoth } = require('../fix') as typeof import('../fix');
  const result = fixSources(sources, { ...opts, proposals: mode.proposals });
  // stdout belongs to the diff, or to the fixed stdin YAML, even when it stays empty.
  const stdoutTaken = !mode.write || sources.some((s) => s.path === undefined && s.chart === undefined);
  // A dry run writes nothing: its report points at the lines of the unchanged files.
  const maps = new Map<string, (p: TextPosition) => TextPosition>();
  // The diff of a large file is planned once for both directions (chunks.ts).
  const plans = new Map<string, ReturnType<typeof lineChunksBoth>>();
  if (!mode.write)
    for (const f of result.files) {
      if (!f.changed) continue;
      const plan = lineChunksBoth(f.original, f.text);
      plans.set(f.file, plan);
      maps.set(f.file, positionMapping(f.text, f.original, { chunks: plan.backward }));
    }
  const at: Relocate = (file, pos) => {
    const m = maps.get(file);
    return m ? m(pos) : { line: pos.line, column: pos.column };
  };
  const errors: InputError[] = [];
  const refused = new Map<string, string>();
  const refuse = (src: Source, reason: string) => {
    refused.set(src.file, reason);
    errors.push({ file: src.file, line: 1, column: 1, message: `--fix did not write this file: ${reason}` });
  };
  // Every file is checked before any is written, so a problem never leaves the set half fixed.
  const writes: Array<{ src: Source; text: readonly string[]; target: string }> = [];
  for (const f of result.files) {
    const src = sources.find((s) => s.file === f.file)!;
    if (!mode.write) {
      const plan = plans.get(f.file);
      const diff = unifiedDiff(f.file, f.original, f.text, plan && { chunks: plan.forward });
      // A diff always ends its last line, whatever the file does (jsdiff marks a missing final newline itself).
      io.stdout(diff && !diff.endsWith('\n') ? `${diff}\n` : diff);
    } else if (src.path === undefined) {
      // stdin: never written anywhere; the fixed YAML goes to stdout.
      io.stdout(f.text);
    } else if (f.changed) {
      if (src.unwritable) {
        refuse(src, src.unwritable);
        continue;
      }
      let target: string;
      try {
        // A symbolic link is written through: the target is fixed, the link stays a link.
        target = fs.realpathSync(src.path);
      } catch (e) {
        refuse(src, `cannot resolve the path (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        continue;
      }
      const problem = fixWriteProblem(target);
      if (problem) refuse(src, problem);
      else writes.push({ src, text: f.chunks(), target });
    }
  }
  for (const p of writes) {
    try {
      writeAtomic(p.target, p.text, { expect: p.src.bytes });
    } catch (e) {
      refuse(p.src, e instanceof WriteRefused ? e.message : `writing failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the file is unchanged`);
    }
  }
  // File by file, by line (as the report lists findings): a later pass's fixes (a PDB proposed
  // once an HPA's minReplicas was raised) go where they are, not after the first pass's.
  const applied = result.files
    .filter((f) => !refused.has(f.file))
    .flatMap((f) =>
      f.applied
        .map((a, i) => ({ a, i, line: at(a.file, { line: a.line, column: 1 }).line }))
        .sort((x, y) => x.line - y.line || x.i - y.i)
        .map((x) => x.a),
    );
  const changedFiles = result.files.filter((f) => f.changed && !refused.has(f.file)).length;
  const verb = mode.write ? 'fixed' : 'would fix';
  // Fixes found in files that could not be written are not "nothing to fix".
  const unwritten = result.files.filter((f) => refused.has(f.file)).reduce((n, f) => n + f.applied.length, 0);
  let out = applied.length
    ? `kubegrace: ${verb} ${plural(applied.length, 'problem')} in ${plural(changedFiles, 'file')}:\n${applied.map((a) => appliedLine(a, at)).join('')}`
    : unwritten
      ? `kubegrace: ${plural(unwritten, 'fix')} found, none written\n`
      : 'kubegrace: nothing to fix\n';
  if (refused.size) out += `kubegrace: ${plural(refused.size, 'file')} not written:\n${[...refused].map(([f, r]) => `  ${f}: ${r}\n`).join('')}`;
  const proposals = result.skipped.filter((s) => s.reason === PROPOSAL_REASON);
  const others = result.skipped.filter((s) => s.reason !== PROPOSAL_REASON);
  if (proposals.length) out += `kubegrace: ${plural(proposals.length, 'proposal')} not applied (review them, then add --fix-proposals):\n${proposals.map((s) => skippedLine(s, false, at)).join('')}`;
  if (others.length) out += `kubegrace: ${plural(others.length, 'fix')} not applied:\n${others.map((s) => skippedLine(s, true, at)).join('')}`;
  io.stderr(out);
  // The report is about what is on disk: a file not written keeps its text.
  const fixed = sources.map((s) => {
    const f = result.files.find((x) => x.file === s.file);
    if (!f || !f.changed || refused.has(s.file)) return s;
    // (Its text is made whole only if something reads it: the fixer's last lint has read it. The
    // copy takes the source's properties as they are, without reading its text.)
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(s)) as Source;
    return Object.defineProperty(copy, 'text', {
      enumerable: true,
      configurable: true,
      get: () => f.text,
      set: (v: string) => Object.defineProperty(copy, 'text', { enumerable: true, configurable: true, writable: true, value: v }),
    });
  });
  const relocate = (r: LintResult): LintResult => {
    if (!maps.size) return r;
    const move = <T extends { file: string; line: number; column: number }>(x: T): T => (maps.has(x.file) ? { ...x, ...at(x.file, x) } : x);
    return {
      ...r,
      findings: sortFindings(r.findings.map(move), sources.map((s) => s.file)),
      errors: r.errors.map(move),
    };
  };
  // The fixer's last lint read and linted exactly these texts unless a file was not written.
  const remaining = refused.size ? undefined : (extraErrors: InputError[]) => lintResultOf(fixed, result.lint.parsed, result.lint.findings, opts.version, extraErrors);
  return { sources: fixed, stdoutTaken, relocate, errors, remaining };
}
