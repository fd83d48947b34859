import { styleText } from 'util';
import { LintResult, summarize } from '../engine/run';
import { Severity, SEVERITY_RANK } from '../engine/types';
import { escapeControl } from './escape';

export interface TextOptions {
  color: boolean;
  /** Only errors (findings and input errors); the summary still counts everything. */
  quiet?: boolean;
  /** Where rule docs live, for the footer. */
  docsPath?: (ruleId: string) => string;
  /** Each finding's full message (the advice after its first sentence) and pointer, under it. */
  verbose?: boolean;
  /**
   * The terminal width, when the report goes to a terminal: messages are wrapped to it. Without
   * it (a pipe or a file) every finding stays on one line, for grep.
   */
  width?: number;
}

type Style = Parameters<typeof styleText>[0];

/**
 * Splits a message into its first sentence and the rest. Messages read "condition: consequence;
 * advice", so the first sentence ends at the first `; ` or `. ` outside brackets and quotes.
 */
export function splitMessage(message: string): { summary: string; rest: string } {
  let depth = 0;
  let quote = false;
  for (let i = 0; i < message.length - 1; i++) {
    const c = message[i];
    if (c === '"') quote = !quote;
    else if (quote) continue;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if (depth === 0 && (c === ';' || (c === '.' && /[A-Z]/.test(message[i + 2] ?? ''))) && message[i + 1] === ' ') {
      return { summary: message.slice(0, i), rest: message.slice(i + 2).trim() };
    }
  }
  return { summary: message.replace(/\.$/, ''), rest: '' };
}

/**
 * Control characters (ANSI escapes, carriage returns, newlines) from manifests and file names
 * must not reach the terminal as such: shown as \u001b etc., so a finding is one line and cannot
 * repaint the screen.
 */
function printable(s: string): string {
  return escapeControl(s);
}

/** Greedy word wrap to `width` columns (a word longer than the width gets its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const word of text.split(' ')) {
    if (cur && cur.length + 1 + word.length > width) {
      lines.push(cur);
      cur = word;
    } else {
      cur = cur ? `${cur} ${word}` : word;
    }
  }
  if (cur) lines.push(cur);
  return lines;
}

interface Row {
  pos: string;
  severity: Severity;
  /** What the row shows: the first sentence, or the whole message (--verbose; input errors always). */
  summary: string;
  /** The whole message as written (a final period dropped), for --verbose. */
  full: string;
  ruleId: string;
  pointer?: string;
}

/**
 * Human output, laid out like ESLint's stylish formatter: each file once, its findings under it
 * grouped by object as `line:col  severity  message  rule-id` with the message's first sentence
 * (the whole message with --verbose; an input error always whole, as what to do follows it),
 * then a summary line and where the rule docs are.
 */
export function toText(result: LintResult, opts: TextOptions): string {
  // The caller decides (TTY, --color, NO_COLOR): node's own stream check would drop --color in a pipe.
  const paint = (style: Style, s: string) => (opts.color ? styleText(style, s, { validateStream: false }) : s);
  const sevStyle = (s: Severity): Style => (s === 'error' ? 'red' : s === 'warning' ? 'yellow' : 'cyan');
  const shown = result.findings.filter((f) => !f.suppressed && (!opts.quiet || f.severity === 'error'));
  const byFile = new Map<string, { errors: Row[]; objects: Map<string, Row[]> }>();
  const group = (file: string) => {
    let g = byFile.get(file);
    if (!g) byFile.set(file, (g = { errors: [], objects: new Map() }));
    return g;
  };
  // An input error is shown whole: what to do about it (quote the value, remove the duplicate key,
  // raise --max-file-size) is the part after its first sentence, and nothing else reports it.
  for (const e of result.errors) {
    const full = printable(e.message).replace(/\.$/, '');
    group(e.file).errors.push({ pos: `${e.line}:${e.column}`, severity: 'error', summary: full, full, ruleId: '' });
  }
  for (const f of shown) {
    const obj = `${f.object.kind}/${f.object.name}${f.object.namespace ? ` (${f.object.namespace})` : ''}`;
    const rows = group(f.file).objects;
    let list = rows.get(obj);
    if (!list) rows.set(obj, (list = []));
    const message = printable(f.message);
    list.push({ pos: `${f.line}:${f.column}`, severity: f.severity, summary: splitMessage(message).summary, full: message.replace(/\.$/, ''), ruleId: f.ruleId, pointer: f.pointer });
  }
  const all = [...byFile.values()].flatMap((g) => [...g.errors, ...[...g.objects.values()].flat()]);
  const posW = Math.max(0, ...all.map((r) => r.pos.length));
  const sevW = Math.max(0, ...all.map((r) => r.severity.length));
  const indent = 4;
  const msgCol = indent + posW + 2 + sevW + 2;
  const lines: string[] = [];
  const row = (r: Row) => {
    const head = `${' '.repeat(indent)}${paint('dim', r.pos)}${' '.repeat(posW - r.pos.length + 2)}${paint(sevStyle(r.severity), r.severity)}${' '.repeat(sevW - r.severity.length + 2)}`;
    const id = r.ruleId ? paint('bold', r.ruleId) : '';
    const text = opts.verbose ? r.full : r.summary;
    if (!opts.width) {
      lines.push(`${head}${text}${id ? `  ${id}` : ''}`);
    } else {
      // On a terminal: wrap the message under itself; the rule ID ends its last line, or gets a line of its own.
      const avail = Math.max(20, opts.width - msgCol);
      const parts = wrap(text, avail);
      const last = parts.length - 1;
      const pad = ' '.repeat(msgCol);
      parts.forEach((p, i) => {
        const start = i === 0 ? head : pad;
        if (i === last && id) {
          if (p.length + 2 + r.ruleId.length <= avail) lines.push(`${start}${p}  ${id}`);
          else lines.push(`${start}${p}`, `${pad}${id}`);
        } else lines.push(`${start}${p}`);
      });
    }
    if (opts.verbose && r.pointer) lines.push(`${' '.repeat(msgCol)}${paint('dim', `at ${r.pointer}`)}`);
  };
  for (const [file, g] of byFile) {
    lines.push(paint('underline', printable(file)));
    for (const r of g.errors) row(r);
    for (const [obj, rows] of g.objects) {
      lines.push(`  ${paint('bold', printable(obj))}`);
      for (const r of rows) row(r);
    }
    lines.push('');
  }
  const s = summarize(result);
  const problems = s.error + s.warning + s.info;
  const counts = `${s.error} error${s.error === 1 ? '' : 's'}, ${s.warning} warning${s.warning === 1 ? '' : 's'}, ${s.info} info, ${s.suppressed} suppressed`;
  const inputs = result.errors.length ? `, ${result.errors.length} input error${result.errors.length === 1 ? '' : 's'}` : '';
  // Input errors are problems too (as ESLint counts a file it cannot parse): the count never reads 0 above them.
  const total = problems + result.errors.length;
  const head = total === 0 ? paint('green', 'No problems') : paint(s.error || result.errors.length ? ['red', 'bold'] : ['yellow', 'bold'], `${total} problem${total === 1 ? '' : 's'}`);
  lines.push(`${head} (${counts}${inputs}) in ${s.files} file${s.files === 1 ? '' : 's'}, ${s.objects} object${s.objects === 1 ? '' : 's'}`);
  if (!opts.verbose && shown.some((f) => splitMessage(f.message).rest)) lines.push('Run with --verbose for the advice on each finding.');
  if (opts.docsPath && shown.length) {
    const worst = new Map<string, number>();
    for (const f of shown) worst.set(f.ruleId, Math.max(worst.get(f.ruleId) ?? 0, SEVERITY_RANK[f.severity]));
    const ids = [...worst.keys()].sort((a, b) => worst.get(b)! - worst.get(a)! || (a < b ? -1 : 1));
    lines.push(`Rule docs: ${ids.map((id) => opts.docsPath!(id)).join(', ')}`);
  }
  return lines.join('\n') + '\n';
}
