import { Lexer, parseAllDocuments } from 'yaml';
import { ResolvedPolicy } from '../../lib/engine/policy';
import { Rule } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources, FixResult } from '../../lib/fix';
import { runRule } from './rule-tester';

export interface FixCase {
  name: string;
  /** One or more YAML documents (the whole linted set) on which the rule fires with a fix. */
  yaml: string;
  kubeVersion?: string;
  params?: Record<string, unknown>;
  /** Apply proposals too (`--fix-proposals`); needed when the case's fix is a proposal. */
  proposals?: boolean;
  /** Substrings expected in the fixed text. */
  contains?: string[];
}

function policyFor(rule: Rule, params?: Record<string, unknown>): ResolvedPolicy {
  return { name: 'test', rules: new Map(params ? [[rule.meta.id, { params }]] : []), customRules: [] };
}

/** Runs the fixer with only `rule` over one file named test.yaml. */
export function fixWith(rule: Rule, yaml: string, c: Pick<FixCase, 'kubeVersion' | 'params' | 'proposals'> = {}): FixResult {
  return fixSources([{ file: 'test.yaml', text: yaml }], {
    rules: [rule],
    policy: policyFor(rule, c.params),
    version: KubeVersion.parse(c.kubeVersion ?? '1.33'),
    proposals: c.proposals,
    // Every fix case also checks that the piecewise read-back equals reading the whole file.
    verifyPiecewise: true,
  });
}

/** Whole-line comments (trimmed text starts with '#') and trailing `# ...` comments of a YAML text. */
export function commentsOf(yaml: string): { lines: string[]; trailing: string[] } {
  const lines = yaml.split(/\r?\n/).filter((l) => l.trimStart().startsWith('#'));
  const all: string[] = [];
  for (const tok of new Lexer().lex(yaml)) if (tok.startsWith('#')) all.push(tok);
  const whole = new Set(lines.map((l) => l.trim()));
  return { lines, trailing: all.filter((t) => !whole.has(t.trim())) };
}

/**
 * Registers one jest test per case: the rule fires with a fix; the fix applies; the rule no longer
 * fires on the result; every comment survives byte for byte; the output parses; a second fix
 * run changes nothing; and the `contains` strings are present.
 */
export function fixTester(rule: Rule, cases: FixCase[]): void {
  describe(`${rule.meta.id} fix`, () => {
    for (const c of cases) {
      test(c.name, () => {
        const before = runRule(rule, c.yaml, c.kubeVersion, c.params);
        expect(before.filter((f) => !f.suppressed && f.fix).length).toBeGreaterThan(0);

        const first = fixWith(rule, c.yaml, c);
        const fixed = first.files[0].text;
        expect(first.skipped.map((s) => `${s.finding.ruleId}: ${s.reason}`)).toEqual([]);
        expect(first.converged).toBe(true);
        expect(first.files[0].applied.length).toBeGreaterThan(0);
        expect(fixed).not.toBe(c.yaml);

        const docs = parseAllDocuments(fixed);
        const errors = (Array.isArray(docs) ? docs : []).flatMap((d) => d.errors.map((e) => e.message));
        expect(errors).toEqual([]);

        const after = runRule(rule, fixed, c.kubeVersion, c.params).filter((f) => !f.suppressed);
        expect(after.map((f) => `${f.severity} ${f.pointer} ${f.message}`)).toEqual([]);

        const outLines = new Set(fixed.split(/\r?\n/));
        const { lines, trailing } = commentsOf(c.yaml);
        for (const l of lines) expect({ comment: l, kept: outLines.has(l) }).toEqual({ comment: l, kept: true });
        for (const t of trailing) expect({ comment: t, kept: fixed.includes(t) }).toEqual({ comment: t, kept: true });

        const second = fixWith(rule, fixed, c);
        expect(second.files[0].applied).toEqual([]);
        expect(second.files[0].text).toBe(fixed);

        for (const s of c.contains ?? []) expect({ contains: s, fixed }).toEqual({ contains: s, fixed: expect.stringContaining(s) });
      });
    }
  });
}
