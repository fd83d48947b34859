import { LintResult } from '../engine/run';
import { Severity } from '../engine/types';
import { STDIN_NAME } from '../model/sources';
import { escapeControlKeepNewlines } from './escape';

/*
 * GitHub Actions workflow commands (`::error file=F,line=L,col=C,title=T::message`), one per
 * unsuppressed finding, so the runner shows them as annotations on the pull request.
 * Escaping is exactly that of actions/toolkit packages/core/src/command.ts.
 */

export type GithubCommand = 'error' | 'warning' | 'notice';

const COMMAND: Record<Severity, GithubCommand> = { error: 'error', warning: 'warning', info: 'notice' };

/** The command value (message): `%`, CR and LF, as the toolkit's escapeData. */
export function escapeData(s: string): string {
  // Other control characters (ESC, ...) are shown as \u001b: GitHub's escaping leaves them raw.
  return escapeControlKeepNewlines(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value: escapeData plus `:` and `,`, as the toolkit's escapeProperty. */
export function escapeProperty(s: string): string {
  return escapeControlKeepNewlines(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface Annotation {
  command: GithubCommand;
  file: string;
  line: number;
  column: number;
  title: string;
  message: string;
}

function format(a: Annotation): string {
  const props: Array<[string, string]> = [];
  let message = a.message;
  if (a.file === STDIN_NAME) {
    // There is no file in the repository to annotate: keep the position in the message instead.
    message = `stdin:${a.line}:${a.column}: ${message}`;
  } else {
    props.push(['file', a.file], ['line', String(a.line)], ['col', String(a.column)]);
  }
  props.push(['title', a.title]);
  const head = props.map(([k, v]) => `${k}=${escapeProperty(v)}`).join(',');
  return `::${a.command} ${head}::${escapeData(message)}`;
}

/** Workflow-command lines: input errors first, then findings in the result's order. Pure. */
export function toGithub(result: LintResult): string {
  const lines: string[] = [];
  for (const e of result.errors) {
    lines.push(format({ command: 'error', file: e.file, line: e.line, column: e.column, title: 'kubegrace', message: e.message }));
  }
  for (const f of result.findings) {
    if (f.suppressed) continue;
    lines.push(format({ command: COMMAND[f.severity], file: f.file, line: f.line, column: f.column, title: f.ruleId, message: f.message }));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
