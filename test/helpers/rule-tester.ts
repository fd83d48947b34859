import { ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { Finding, Rule, Severity } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';

export interface ValidCase {
  name: string;
  /** One or more YAML documents (the whole linted set). */
  yaml: string;
  kubeVersion?: string;
  params?: Record<string, unknown>;
}

export interface ExpectedFinding {
  severity: Severity;
  /** Substring (or pattern) the message must contain. */
  message?: string | RegExp;
  pointer?: string;
  /** `Kind/name` of the reported object. */
  object?: string;
  suppressed?: boolean;
  line?: number;
}

export interface InvalidCase extends ValidCase {
  findings: ExpectedFinding[];
}

/** Lints `yaml` with only `rule` enabled and returns its findings. */
export function runRule(rule: Rule, yaml: string, kubeVersion?: string, params?: Record<string, unknown>): Finding[] {
  const policy: ResolvedPolicy = { name: 'test', rules: new Map(params ? [[rule.meta.id, { params }]] : []), customRules: [] };
  const result = lintSources([{ file: 'test.yaml', text: yaml }], { rules: [rule], policy, version: KubeVersion.parse(kubeVersion ?? '1.33') });
  if (result.errors.length) throw new Error(`test input does not parse: ${JSON.stringify(result.errors)}`);
  return result.findings;
}

/**
 * ESLint RuleTester style: every valid case yields no finding; every invalid case yields
 * exactly the listed findings, in order (by position).
 */
export function ruleTester(rule: Rule, cases: { valid: ValidCase[]; invalid: InvalidCase[] }): void {
  describe(rule.meta.id, () => {
    describe('valid', () => {
      for (const c of cases.valid) {
        test(c.name, () => {
          const got = runRule(rule, c.yaml, c.kubeVersion, c.params);
          expect(got.map((f) => `${f.severity} ${f.pointer} ${f.message}`)).toEqual([]);
        });
      }
    });
    describe('invalid', () => {
      for (const c of cases.invalid) {
        test(c.name, () => {
          const got = runRule(rule, c.yaml, c.kubeVersion, c.params);
          expect(got.length).toBe(c.findings.length);
          c.findings.forEach((e, i) => {
            const f = got[i];
            expect(f.ruleId).toBe(rule.meta.id);
            expect(f.severity).toBe(e.severity);
            if (typeof e.message === 'string') expect(f.message).toContain(e.message);
            else if (e.message) expect(f.message).toMatch(e.message);
            if (e.pointer !== undefined) expect(f.pointer).toBe(e.pointer);
            if (e.object !== undefined) expect(`${f.object.kind}/${f.object.name}`).toBe(e.object);
            if (e.suppressed !== undefined) expect(f.suppressed).toBe(e.suppressed);
            if (e.line !== undefined) expect(f.line).toBe(e.line);
          });
        });
      }
    });
  });
}
