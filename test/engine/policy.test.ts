import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { discoverConfig, loadConfig, loadPolicy, PolicyError, withOverrides } from '../../lib/engine/policy';
import { exitCode, lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

function tmp(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-pol-'));
  for (const [f, t] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), t);
  }
  return dir;
}

const BAD_GRACE = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: x, lifecycle: {preStop: {sleep: {seconds: 40}}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
`;

describe('policies', () => {
  test('the built-in policies validate and load', () => {
    expect(loadPolicy('recommended', ALL_RULES).name).toBe('recommended');
    const strict = loadPolicy('strict', ALL_RULES);
    expect(strict.rules.get('grace-period-budget')?.remap).toEqual({ info: 'warning' });
  });

  test('a bad policy is rejected with the JSON path and position of the bad field', () => {
    const dir = tmp({
      'p.yaml': `apiVersion: kubegrace.dev/v1
kind: Policy
metadata: {name: mine}
spec:
  rules:
    grace-period-budget: loud
`,
    });
    expect(() => loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES)).toThrow(PolicyError);
    expect(() => loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES)).toThrow(/p\.yaml:6:5: \/spec\/rules\/grace-period-budget: must be equal to one of the allowed values/);
  });

  test.each([
    ['unknown top-level field', 'spec:\n  rulez: {}\n', /\/spec: unknown field "rulez"/],
    ['unknown rule ID', 'spec:\n  rules:\n    no-such-rule: warning\n', /\/spec\/rules\/no-such-rule: unknown rule "no-such-rule"/],
    ['bad params for a rule', 'spec:\n  rules:\n    grace-period-budget: {params: {waitPatterns: 3}}\n', /\/spec\/rules\/grace-period-budget\/params\/waitPatterns: must be array/],
    ['wrong kind', 'spec: {}\n', /\/kind: must be equal to constant "Policy"/],
  ])('%s', (_name, body, re) => {
    const kind = _name === 'wrong kind' ? 'Polizy' : 'Policy';
    const dir = tmp({ 'p.yaml': `apiVersion: kubegrace.dev/v1\nkind: ${kind}\nmetadata: {name: x}\n${body}` });
    expect(() => loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES)).toThrow(re);
  });

  test('severity override, off, extends, and remap', () => {
    const dir = tmp({
      'base.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: base}\nspec:\n  rules:\n    grace-period-budget: warning\n',
      'child.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: child}\nspec:\n  extends: [base.yaml]\n',
      'off.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: off}\nspec:\n  extends: [recommended]\n  rules:\n    grace-period-budget: "off"\n',
    });
    const run = (p: string) => lintSources([{ file: 'a.yaml', text: BAD_GRACE }], { rules: ALL_RULES, policy: loadPolicy(p, ALL_RULES, dir), version: KubeVersion.parse('1.33') }).findings.filter((f) => f.ruleId === 'grace-period-budget');
    expect(run('recommended').map((f) => f.severity)).toEqual(['error']);
    expect(run('child.yaml').map((f) => f.severity)).toEqual(['warning']);
    expect(run('off.yaml')).toEqual([]);
  });

  test('custom rules: a JSON Schema matched against objects of given kinds', () => {
    const dir = tmp({
      'p.yaml': `apiVersion: kubegrace.dev/v1
kind: Policy
metadata: {name: team}
spec:
  customRules:
  - id: team-label
    severity: warning
    kinds: [Deployment]
    message: workloads must carry a team label
    pointer: /metadata
    schema:
      type: object
      required: [metadata]
      properties:
        metadata:
          type: object
          required: [labels]
          properties: {labels: {type: object, required: [team]}}
`,
    });
    const r = lintSources([{ file: 'a.yaml', text: BAD_GRACE }], { rules: ALL_RULES, policy: loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES), version: KubeVersion.parse('1.33') });
    const f = r.findings.filter((x) => x.ruleId === 'team-label');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'warning', pointer: '/metadata', line: 3 });
    expect(f[0].message).toMatch(/team label/);
  });

  test('a custom rule whose schema does not compile is rejected with its path', () => {
    const dir = tmp({
      'p.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: t}\nspec:\n  customRules:\n  - id: x\n    kinds: [Deployment]\n    message: m\n    schema: {type: nonsense}\n',
    });
    expect(() => loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES)).toThrow(/\/spec\/customRules\/0\/schema: the custom rule's schema does not compile/);
  });
});

describe('config', () => {
  test('.kubegrace.yaml is discovered upward and validated', () => {
    const dir = tmp({ '.kubegrace.yaml': 'kubernetesVersion: "1.29"\nfailOn: warning\nrules:\n  grace-period-budget: "off"\n', 'a/b/c/x.yaml': '' });
    const found = discoverConfig(path.join(dir, 'a', 'b', 'c'));
    expect(found).toBe(path.join(dir, '.kubegrace.yaml'));
    const cfg = loadConfig(found!, ALL_RULES);
    expect(cfg.kubernetesVersion).toBe('1.29');
    const pol = withOverrides(loadPolicy('recommended', ALL_RULES), cfg.rules);
    expect(pol.rules.get('grace-period-budget')?.off).toBe(true);
  });
  test('a bad config names the field', () => {
    const dir = tmp({ '.kubegrace.yaml': 'failOn: sometimes\n' });
    expect(() => loadConfig(path.join(dir, '.kubegrace.yaml'), ALL_RULES)).toThrow(/\.kubegrace\.yaml:1:1: \/failOn: must be equal to one of the allowed values: error, warning, info, never/);
  });
});

describe('run', () => {
  test('exit codes: input errors 2, findings at/above failOn 1, else 0', () => {
    const f = { findings: [{ severity: 'warning', suppressed: false }], errors: [] } as never;
    expect(exitCode(f, 'error')).toBe(0);
    expect(exitCode(f, 'warning')).toBe(1);
    expect(exitCode(f, 'info')).toBe(1);
    expect(exitCode(f, 'never')).toBe(0);
    expect(exitCode({ findings: [{ severity: 'error', suppressed: true }], errors: [] } as never, 'info')).toBe(0);
    expect(exitCode({ findings: [], errors: [{}] } as never, 'never')).toBe(2);
  });
  test('kube versions', () => {
    const v = KubeVersion.parse('1.35.4');
    expect(v.atLeast(1, 35, 4)).toBe(true);
    expect(v.atLeast(1, 35, 5)).toBe(false);
    expect(KubeVersion.parse('v1.30').atLeast(1, 30)).toBe(true);
    expect(() => KubeVersion.parse('latest')).toThrow(/X\.Y/);
  });
});
