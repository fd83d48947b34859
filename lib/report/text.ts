import { styleText } from 'util';
import { LintResult, summarize } from '../engine/run';
import { Finding, SEVERITY_RANK } from '../engine/types';
import { InputError } from '../model/types';

export interface TextOptions {
  color: boolean;
  /** Only errors (findings and input errors); the summary still counts everything. */
  quiet?: boolean;
  /** Where rule docs live, for the footer. */
  docsPath?: (ruleId: string) => string;
}

type Style = Parameters<typeof styleText>[0];

/**
 * Human output: grouped by file, then object; each line `file:line:col severity rule-id message`
 * so editors and terminals can jump to it; a summary line at the end.
 */
export function toText(result: LintResult, opts: TextOptions): string {
  const paint = (style: Style, s: string) => (opts.color ? styleText(style, s) : s);
  const sev = (s: Finding['severity'] | 'error') => paint(s === 'error' ? 'red' : s === 'warning' ? 'yellow' : 'cyan', s.padEnd(7));
  const shown = result.findings.filter((f) => !f.suppressed && (!opts.quiet || f.severity === 'error'));
  const byFile = new Map<string, { findings: Finding[]; errors: InputError[] }>();
  const group = (file: string) => {
    let g = byFile.get(file);
    if (!g) byFile.set(file, (g = { findings: [], errors: [] }));
    return g;
  };
  for (const e of result.errors) group(e.file).errors.push(e);
  for (const f of shown) group(f.file).findings.push(f);
  const lines: string[] = [];
  for (const [file, g] of byFile) {
    lines.push(paint('underline', file));
    for (const e of g.errors) lines.push(`  ${file}:${e.line}:${e.column} ${sev('error')} ${paint('bold', 'input')} ${e.message}`);
    let lastObject = '';
    for (const f of g.findings) {
      const obj = `${f.object.kind}/${f.object.name}${f.object.namespace ? ` (${f.object.namespace})` : ''}`;
      if (obj !== lastObject) {
        lines.push(`  ${paint('bold', obj)}`);
        lastObject = obj;
      }
      lines.push(`  ${file}:${f.line}:${f.column} ${sev(f.severity)} ${paint('dim', f.ruleId)} ${f.message}`);
    }
    lines.push('');
  }
  const s = summarize(result);
  const problems = s.error + s.warning + s.info;
  const counts = `${s.error} error${s.error === 1 ? '' : 's'}, ${s.warning} warning${s.warning === 1 ? '' : 's'}, ${s.info} info, ${s.suppressed} suppressed`;
  const inputs = result.errors.length ? `, ${result.errors.length} input error${result.errors.length === 1 ? '' : 's'}` : '';
  const head = problems + result.errors.length === 0 ? paint('green', 'No problems') : paint(s.error || result.errors.length ? 'red' : 'yellow', `${problems} problem${problems === 1 ? '' : 's'}`);
  lines.push(`${head} (${counts}${inputs}) in ${s.files} file${s.files === 1 ? '' : 's'}, ${s.objects} object${s.objects === 1 ? '' : 's'}`);
  if (opts.docsPath && shown.length) {
    const ids = [...new Set(shown.map((f) => f.ruleId))].sort();
    const worst = (id: string) => Math.max(...shown.filter((f) => f.ruleId === id).map((f) => SEVERITY_RANK[f.severity]));
    ids.sort((a, b) => worst(b) - worst(a) || (a < b ? -1 : 1));
    lines.push(paint('dim', `Rule docs: ${ids.map((id) => opts.docsPath!(id)).join(', ')}`));
  }
  return lines.join('\n') + '\n';
}
