import { LintResult, summarize } from '../engine/run';
import { jsonInert } from './escape';

/** The JSON contract of DESIGN.md, version 1. Key order is part of the output's stability. */
export function toJson(result: LintResult): string {
  const doc = {
    version: 1,
    kubernetesVersion: result.kubernetesVersion,
    findings: result.findings.map((f) => {
      const o: Record<string, unknown> = {
        ruleId: f.ruleId,
        severity: f.severity,
        message: f.message,
        file: f.file,
        line: f.line,
        column: f.column,
        object: f.object,
        pointer: f.pointer,
        suppressed: f.suppressed,
        fixable: f.fixable,
      };
      if (f.suppressed && f.suppressionReason !== undefined) o.suppressionReason = f.suppressionReason;
      return o;
    }),
    errors: result.errors.map((e) => ({ file: e.file, line: e.line, column: e.column, message: e.message })),
    summary: summarize(result),
  };
  return jsonInert(JSON.stringify(doc, null, 2)) + '\n';
}
