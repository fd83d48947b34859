/**
 * Policy and config errors: every problem of a file is reported at once, each located, with
 * "did you mean" for misspelled policy names, rule IDs, fields and values.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig, loadPolicy, PolicyError } from '../../lib/engine/policy';
import { generateValidatorsModule } from '../../lib/engine/schema-codegen';
import { GENERATED_FILE } from '../../lib/engine/schema-options';
import { closest, editDistance } from '../../lib/engine/suggest';
import { ALL_RULES } from '../../lib/rules';

const ROOT = path.resolve(__dirname, '../..');

function tmp(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-polerr-'));
  for (const [f, t] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), t);
  return dir;
}

function policyError(fn: () => unknown): PolicyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PolicyError) return e;
    throw e;
  }
  throw new Error('no PolicyError thrown');
}

describe('did you mean', () => {
  test('edit distance counts a transposition as one edit', () => {
    expect(editDistance('recomended', 'recommended')).toBe(1);
    expect(editDistance('wraning', 'warning')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });
  test('suggests close names and prefixes, nothing for unrelated ones', () => {
    expect(closest('recomended', ['recommended', 'strict'])).toBe('recommended');
    expect(closest('stricter', ['recommended', 'strict'])).toBe('strict');
    expect(closest('warn', ['error', 'warning', 'info'])).toBe('warning');
    expect(closest('grace-period-budgett', ALL_RULES.map((r) => r.meta.id))).toBe('grace-period-budget');
    expect(closest('frobnicate', ['recommended', 'strict'])).toBeUndefined();
    expect(closest('x', ['error', 'warning', 'info'])).toBeUndefined();
  });
});

describe('policy errors', () => {
  test('several problems in one policy are all reported, located, with suggestions', () => {
    const dir = tmp({
      'p.yaml': `apiVersion: kubegrace.dev/v1
kind: Policy
metadata: {name: mine}
spec:
  extends: [recomended]
  rulez: {}
  rules:
    grace-period-budgett: warning
    prestop-missing: warn
    min-ready-seconds: {severity: wraning}
`,
    });
    const e = policyError(() => loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES));
    const file = path.join(dir, 'p.yaml');
    expect(e.problems.map((p) => [p.line, p.column, p.pointer, p.message])).toEqual([
      [5, 13, '/spec/extends/0', expect.stringMatching(/^policy "recomended" not found: .*; did you mean "recommended"\?$/)],
      [6, 3, '/spec', 'unknown field "rulez"; did you mean "rules"?'],
      [8, 5, '/spec/rules/grace-period-budgett', 'unknown rule "grace-period-budgett"; did you mean "grace-period-budget"?; run `kubegrace rules` for the list'],
      [9, 5, '/spec/rules/prestop-missing', 'must be equal to one of the allowed values: off, error, warning, info; did you mean "warning"?'],
      [10, 25, '/spec/rules/min-ready-seconds/severity', 'must be equal to one of the allowed values: error, warning, info; did you mean "warning"?'],
    ]);
    expect(e.problems.every((p) => p.file === file)).toBe(true);
    const lines = e.message.split('\n');
    expect(lines[0]).toBe(`5 problems in policy file ${file} (policy rejected; see policies/policy.schema.json):`);
    expect(lines.slice(1)).toEqual(e.problems.map((p) => `  ${file}:${p.line}:${p.column}: ${p.pointer}: ${p.message}`));
  });

  test('problems in an extended policy are reported with the ones of the policy extending it', () => {
    const dir = tmp({
      'base.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: base}\nspec:\n  rules:\n    no-such-rule: warning\n',
      'child.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: child}\nspec:\n  extends: [base.yaml]\n  rules:\n    prestop-missing: loud\n',
    });
    const e = policyError(() => loadPolicy('child.yaml', ALL_RULES, dir));
    expect(e.problems.map((p) => `${path.basename(p.file)}:${p.line} ${p.pointer}`).sort()).toEqual(['base.yaml:6 /spec/rules/no-such-rule', 'child.yaml:7 /spec/rules/prestop-missing']);
    expect(e.message).toMatch(/^2 problems in policy files /);
  });

  test('a policy extending itself is one problem, not a loop', () => {
    const dir = tmp({ 'a.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: a}\nspec:\n  extends: [b.yaml]\n', 'b.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: b}\nspec:\n  extends: [a.yaml]\n' });
    const e = policyError(() => loadPolicy('a.yaml', ALL_RULES, dir));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0].message).toMatch(/policy extends itself \(.*a\.yaml -> .*b\.yaml -> .*a\.yaml\)/);
  });

  test('an unknown policy name suggests the built-in one it resembles', () => {
    expect(policyError(() => loadPolicy('stricter', ALL_RULES, os.tmpdir())).message).toMatch(/^policy "stricter" not found: it is neither a built-in policy \(recommended, strict\) nor a file \(.*\); did you mean "strict"\?$/);
    expect(policyError(() => loadPolicy('frobnicate', ALL_RULES, os.tmpdir())).message).not.toMatch(/did you mean/);
  });

  test('a value of the wrong type in a oneOf names the types, without branch noise', () => {
    const dir = tmp({ 'p.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: x}\nspec:\n  rules:\n    prestop-missing: [warning]\n' });
    const e = policyError(() => loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES));
    expect(e.problems.map((p) => `${p.pointer}: ${p.message}`)).toEqual(['/spec/rules/prestop-missing: must be string or object']);
  });
});

describe('config errors', () => {
  test('every problem of .kubegrace.yaml, with "quote the version" and suggestions', () => {
    const dir = tmp({ '.kubegrace.yaml': 'policy: stricter\nkubernetesVersion: 1.30\nfailOn: warn\nrules:\n  pdb-mising: "off"\nfail-on: error\n' });
    const e = policyError(() => loadConfig(path.join(dir, '.kubegrace.yaml'), ALL_RULES));
    expect(e.problems.map((p) => [p.line, p.pointer, p.message])).toEqual([
      [1, '/policy', expect.stringMatching(/^policy "stricter" not found: .*; did you mean "strict"\?$/)],
      [2, '/kubernetesVersion', 'must be a string, but YAML reads the unquoted 1.30 as the number 1.3; quote it: kubernetesVersion: "1.30"'],
      [3, '/failOn', 'must be equal to one of the allowed values: error, warning, info, never; did you mean "warning"?'],
      [5, '/rules/pdb-mising', 'unknown rule "pdb-mising"; did you mean "pdb-missing"?; run `kubegrace rules` for the list'],
      [6, '', 'unknown field "fail-on"; did you mean "failOn"?'],
    ]);
    expect(e.message).toMatch(/^5 problems in config file .*\.kubegrace\.yaml \(config rejected; see policies\/config\.schema\.json\):\n/);
  });
  test('extends in a config file points to policy: (extends belongs to a policy file)', () => {
    const dir = tmp({ '.kubegrace.yaml': 'extends: [recomended]\n' });
    const e = policyError(() => loadConfig(path.join(dir, '.kubegrace.yaml'), ALL_RULES));
    expect(e.problems.map((p) => [p.line, p.message])).toEqual([
      [1, 'unknown field "extends"; a config file chooses its policy with `policy: NAME` (recommended, strict or a policy file); a policy file extends others in spec.extends'],
    ]);
  });
});

describe('precompiled schema validators', () => {
  test(`${GENERATED_FILE} is current (regenerate: npm run build && node build/scripts/gen-validators.js)`, () => {
    const committed = fs.readFileSync(path.join(ROOT, GENERATED_FILE), 'utf8');
    expect(committed === generateValidatorsModule(path.join(ROOT, 'policies'))).toBe(true);
  });
});
