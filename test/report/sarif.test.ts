import { toBeValidSarifLog } from '@microsoft/jest-sarif';
import { loadPolicy, ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources, LintResult } from '../../lib/engine/run';
import { RuleMeta } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { Source } from '../../lib/model/sources';
import { artifactLocation, FINGERPRINT_KEY, pascalCase, SarifLog, SarifResult, toSarif } from '../../lib/report/sarif';
import { ALL_RULES } from '../../lib/rules';

expect.extend({ toBeValidSarifLog });

const RULE = 'grace-period-budget';
const CWD = '/repo';
const META: RuleMeta[] = ALL_RULES.map((r) => r.meta);

function policy(overrides: ResolvedPolicy['rules'] = new Map()): ResolvedPolicy {
  const p = loadPolicy('recommended', ALL_RULES);
  return { ...p, rules: new Map([...p.rules, ...overrides]) };
}

function lint(sources: Source[], p = policy()): LintResult {
  return lintSources(sources, { rules: ALL_RULES, policy: p, version: KubeVersion.parse('1.33') });
}

function sarif(result: LintResult, docsBaseUri?: string): SarifLog {
  return toSarif(result, META, { cwd: CWD, toolVersion: '0.1.0', docsBaseUri });
}

/** A served Deployment whose preStop sleep (40s) exceeds the default grace (30s): an error. */
function app(name: string, opts: { annotations?: string; container?: string } = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
${opts.annotations ? `      annotations:\n${opts.annotations}` : ''}    spec:
      containers:
      - name: ${opts.container ?? 'app'}
        image: web:1
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 40}}}
---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: shop}
spec:
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: 8080}]
`;
}

const SUPPRESSED = `        kubegrace.dev/ignore: ${RULE}\n        kubegrace.dev/ignore-reason: "drain handled by the <LB> & \\"proxy\\""\n`;
const BROKEN = `---
apiVersion: v1
kind: ConfigMap
metadata: {name: broken
data: [unclosed
`;

const ruleResults = (log: SarifLog): SarifResult[] => log.runs[0].results.filter((r) => r.ruleId === RULE);

describe('toSarif', () => {
  const inputs: Array<[string, Source[]]> = [
    ['a firing finding', [{ file: 'deploy/web.yaml', text: app('web') }]],
    ['a suppressed finding', [{ file: 'deploy/web.yaml', text: app('web', { annotations: SUPPRESSED }) }]],
    ['an input error next to findings', [{ file: 'a.yaml', text: app('web') + BROKEN }]],
    ['stdin', [{ file: '<stdin>', text: app('web') }]],
    ['no findings at all', [{ file: 'empty.yaml', text: '# nothing\n' }]],
    ['odd file names and a file outside the working directory', [
      { file: 'dir with space/#1?.yaml', text: app('a') },
      { file: '/elsewhere/b c.yaml', text: app('b') },
      { file: 'C:weird.yaml', text: app('c') },
    ]],
    ['a message with quotes, newlines and markup', [{ file: 'q.yaml', text: app('q', { container: '"a<b>&c, d:e %25\\nnext"' }) }]],
  ];

  test.each(inputs)('validates against the SARIF 2.1.0 schema: %s', (_name, sources) => {
    const log = sarif(lint(sources));
    expect(log).toBeValidSarifLog();
    // And survives serialization (the CLI writes JSON).
    expect(JSON.parse(JSON.stringify(log))).toBeValidSarifLog();
  });

  test('the schema check is not vacuous', () => {
    const log = sarif(lint([{ file: 'a.yaml', text: app('web') }]));
    expect({ version: '2.1.0' }).not.toBeValidSarifLog();
    const bad = JSON.parse(JSON.stringify(log));
    bad.runs[0].results[0].level = 'info';
    expect(bad).not.toBeValidSarifLog();
  });

  test('the log header and the driver', () => {
    const log = sarif(lint([{ file: 'a.yaml', text: app('web') }]));
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/);
    expect(log.runs).toHaveLength(1);
    const driver = log.runs[0].tool.driver;
    expect(driver).toMatchObject({ name: 'kubegrace', version: '0.1.0', semanticVersion: '0.1.0' });
    expect(driver.informationUri).toMatch(/^https:\/\//);
    expect(driver.rules.map((r) => r.id)).toEqual(META.map((m) => m.id));
    expect(log.runs[0].originalUriBaseIds['%SRCROOT%'].uri).toBe('file:///repo/');
    expect(log.runs[0].properties.kubernetesVersion).toBe('1.33');
    expect(log.runs[0].invocations[0]).toEqual({ executionSuccessful: true, toolExecutionNotifications: [] });
  });

  test('a rule descriptor carries the metadata and points at the rule doc', () => {
    const log = sarif(lint([]));
    const meta = META.find((m) => m.id === RULE)!;
    const d = log.runs[0].tool.driver.rules.find((r) => r.id === RULE)!;
    expect(d.name).toBe('GracePeriodBudget');
    expect(d.shortDescription.text).toBe(meta.description);
    expect(d.fullDescription.text.length).toBeGreaterThan(0);
    expect(d.fullDescription.text).not.toContain('\n');
    expect(d.help!.text).toBe(meta.doc);
    expect(d.help!.markdown).toContain(meta.doc);
    expect(d.helpUri).toBe('https://github.com/kubegrace/kubegrace/blob/main/docs/rules/grace-period-budget.md');
    expect(d.defaultConfiguration.level).toBe('error');
    expect(d.properties).toMatchObject({ fixable: meta.fixable, spec: meta.spec });
    expect(d.properties.tags).toContain(meta.spec);
    expect(sarif(lint([]), 'https://example.com/kg').runs[0].tool.driver.rules[0].helpUri).toBe(`https://example.com/kg/docs/rules/${META[0].id}.md`);
  });

  test('pascalCase', () => {
    expect(pascalCase('grace-period-budget')).toBe('GracePeriodBudget');
    expect(pascalCase('pdb-missing')).toBe('PdbMissing');
    expect(pascalCase('native-sidecar-grace-budget')).toBe('NativeSidecarGraceBudget');
  });

  test('a result: rule index, level, message, physical and logical location', () => {
    const result = lint([{ file: 'deploy/web.yaml', text: app('web') }]);
    const log = sarif(result);
    const f = result.findings.find((x) => x.ruleId === RULE)!;
    const [r] = ruleResults(log);
    expect(log.runs[0].tool.driver.rules[r.ruleIndex].id).toBe(RULE);
    expect(r.level).toBe('error');
    expect(r.message.text).toBe(f.message);
    expect(r.locations).toEqual([
      {
        physicalLocation: { artifactLocation: { uri: 'deploy/web.yaml', uriBaseId: '%SRCROOT%' }, region: { startLine: f.line, startColumn: f.column } },
        logicalLocations: [{ name: 'web', fullyQualifiedName: 'shop/Deployment/web', kind: 'object' }],
      },
    ]);
    expect(f.line).toBe(15); // the preStop of the first document
    expect(r.suppressions).toEqual([]);
    expect(r.properties.pointer).toBe('/spec/template/spec/containers/0/lifecycle/preStop');
    expect(r.partialFingerprints[FINGERPRINT_KEY]).toMatch(/^[0-9a-f]{64}$/);
    // Every result's ruleIndex agrees with its ruleId.
    for (const x of log.runs[0].results) expect(log.runs[0].tool.driver.rules[x.ruleIndex].id).toBe(x.ruleId);
  });

  test('severities map to SARIF levels: info is note', () => {
    const result = lint([{ file: 'a.yaml', text: app('web') }], policy(new Map([[RULE, { severity: 'info' as const }]])));
    const log = sarif(result);
    expect(ruleResults(log)[0].level).toBe('note');
    expect(log).toBeValidSarifLog();
  });

  test('a suppressed finding is kept, with an inSource suppression and its justification', () => {
    const log = sarif(lint([{ file: 'a.yaml', text: app('web', { annotations: SUPPRESSED }) }]));
    const [r] = ruleResults(log);
    expect(r.suppressions).toEqual([{ kind: 'inSource', status: 'accepted', justification: 'drain handled by the <LB> & "proxy"' }]);
    expect(r.level).toBe('error');
  });

  test('a suppression without a reason has no justification', () => {
    const log = sarif(lint([{ file: 'a.yaml', text: app('web', { annotations: `        kubegrace.dev/ignore: all\n` }) }]));
    for (const r of log.runs[0].results) expect(r.suppressions).toEqual([{ kind: 'inSource', status: 'accepted' }]);
    expect(ruleResults(log)).toHaveLength(1);
    expect(log).toBeValidSarifLog();
  });

  test('input errors are tool execution notifications, and the other documents are still reported', () => {
    const result = lint([{ file: 'a.yaml', text: app('web') + BROKEN }]);
    expect(result.errors.length).toBeGreaterThan(0);
    const log = sarif(result);
    const inv = log.runs[0].invocations[0];
    expect(inv.executionSuccessful).toBe(false);
    expect(inv.toolExecutionNotifications).toHaveLength(result.errors.length);
    const [n] = inv.toolExecutionNotifications;
    const e = result.errors[0];
    expect(n).toEqual({
      level: 'error',
      message: { text: e.message },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'a.yaml', uriBaseId: '%SRCROOT%' }, region: { startLine: e.line, startColumn: e.column } } }],
      descriptor: { id: 'input-error' },
    });
    expect(e.line).toBeGreaterThan(22); // in the second part of the file
    expect(ruleResults(log)).toHaveLength(1);
  });

  test('stdin findings name a non-resolving "stdin" artifact', () => {
    const [r] = ruleResults(sarif(lint([{ file: '<stdin>', text: app('web') }])));
    expect(r.locations[0].physicalLocation!.artifactLocation).toEqual({ uri: 'stdin', description: { text: 'standard input' } });
  });

  test('artifact URIs are relative to the working directory, with forward slashes, percent-encoded', () => {
    expect(artifactLocation('deploy/web.yaml', '/repo')).toEqual({ uri: 'deploy/web.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('/repo/deploy/web.yaml', '/repo')).toEqual({ uri: 'deploy/web.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('/repo/deploy/web.yaml', '/repo/')).toEqual({ uri: 'deploy/web.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('dir with space/#1?.yaml', '/repo')).toEqual({ uri: 'dir%20with%20space/%231%3F.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('C:weird.yaml', '/repo')).toEqual({ uri: 'C%3Aweird.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('..data/x.yaml', '/repo')).toEqual({ uri: '..data/x.yaml', uriBaseId: '%SRCROOT%' });
    expect(artifactLocation('/elsewhere/b c.yaml', '/repo')).toEqual({ uri: 'file:///elsewhere/b%20c.yaml' });
    expect(artifactLocation('../sibling/x.yaml', '/repo')).toEqual({ uri: 'file:///sibling/x.yaml' });
  });

  test('fingerprints survive lines inserted above and differ between objects', () => {
    const text = app('web') + '---\n' + app('api');
    const before = sarif(lint([{ file: 'a.yaml', text }]));
    const shifted = '# a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\ndata: {k: v}\n---\n' + text;
    const after = sarif(lint([{ file: 'a.yaml', text: shifted }]));
    const fp = (log: SarifLog) => ruleResults(log).map((r) => r.partialFingerprints[FINGERPRINT_KEY]);
    const lines = (log: SarifLog) => ruleResults(log).map((r) => r.locations[0].physicalLocation!.region.startLine);
    expect(fp(before)).toHaveLength(2);
    expect(new Set(fp(before)).size).toBe(2);
    expect(fp(after)).toEqual(fp(before));
    expect(lines(after)).toEqual(lines(before).map((l) => l + 7));
    // Every fingerprint in the run is distinct, and stable across runs.
    const all = before.runs[0].results.map((r) => r.partialFingerprints[FINGERPRINT_KEY]);
    expect(new Set(all).size).toBe(all.length);
    expect(sarif(lint([{ file: 'a.yaml', text }]))).toEqual(before);
    // A different file is a different finding.
    expect(fp(sarif(lint([{ file: 'b.yaml', text }])))).not.toEqual(fp(before));
  });

  test('a finding of a rule not passed in gets a minimal descriptor', () => {
    const result = lint([{ file: 'a.yaml', text: app('web') }]);
    const log = toSarif(result, [], { cwd: CWD, toolVersion: 'dev' });
    const ids = log.runs[0].tool.driver.rules.map((r) => r.id);
    expect(new Set(ids)).toEqual(new Set(result.findings.map((f) => f.ruleId)));
    for (const r of log.runs[0].results) expect(ids[r.ruleIndex]).toBe(r.ruleId);
    expect(log.runs[0].tool.driver.semanticVersion).toBeUndefined();
    expect(log).toBeValidSarifLog();
  });
});
