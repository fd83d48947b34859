import { SaxesParser } from 'saxes';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources, LintResult } from '../../lib/engine/run';
import { Finding, Severity } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { Source } from '../../lib/model/sources';
import { toJunit } from '../../lib/report/junit';
import { ALL_RULES } from '../../lib/rules';

const RULE = 'grace-period-budget';

function lint(sources: Source[]): LintResult {
  return lintSources(sources, { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') });
}

/** A served Deployment; a preStop sleep of 40s (> the default grace of 30s) fires grace-period-budget as an error. */
function app(name: string, opts: { annotations?: string; container?: string; sleep?: number; namespace?: string } = {}): string {
  const ns = opts.namespace ?? 'shop';
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
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
        lifecycle: {preStop: {sleep: {seconds: ${opts.sleep ?? 40}}}}
---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: 8080}]
`;
}

const BROKEN = `---
apiVersion: v1
kind: ConfigMap
metadata: {name: broken
data: [unclosed
`;

/** A parsed element: attributes as the parser decoded them, text as concatenated character data. */
interface XNode {
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
  text: string;
}

/** Parses with saxes, a strict, conforming XML 1.0 parser: any well-formedness error throws. */
function parseXml(xml: string): { decl: { version?: string; encoding?: string }; root: XNode } {
  const parser = new SaxesParser();
  const doc: XNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XNode[] = [doc];
  let decl: { version?: string; encoding?: string } = {};
  parser.on('xmldecl', (d) => (decl = { version: d.version, encoding: d.encoding }));
  parser.on('opentag', (t) => {
    const n: XNode = { name: t.name, attrs: { ...(t.attributes as Record<string, string>) }, children: [], text: '' };
    stack[stack.length - 1].children.push(n);
    stack.push(n);
  });
  parser.on('text', (t) => (stack[stack.length - 1].text += t));
  parser.on('closetag', () => stack.pop());
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(xml).close();
  expect(doc.children).toHaveLength(1);
  return { decl, root: doc.children[0] };
}

const kids = (n: XNode, name: string) => n.children.filter((c) => c.name === name);
const suite = (root: XNode, file: string) => kids(root, 'testsuite').find((s) => s.attrs.name === file)!;
const testcase = (s: XNode, name: string) => kids(s, 'testcase').find((c) => c.attrs.name === name)!;
const line = (f: Finding) => `${f.file}:${f.line}:${f.column} ${f.severity} ${f.ruleId} ${f.message}`;

function junit(result: LintResult, failOn: Severity | 'never' = 'error'): XNode {
  const xml = toJunit(result, failOn);
  const { decl, root } = parseXml(xml);
  expect(decl).toEqual({ version: '1.0', encoding: 'UTF-8' });
  return root;
}

/** The counts on a suite (or the root) agree with its testcases. */
function expectConsistentCounts(root: XNode): void {
  const suites = kids(root, 'testsuite');
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const s of suites) {
    const cases = kids(s, 'testcase');
    const f = cases.filter((c) => kids(c, 'failure').length > 0).length;
    const e = cases.filter((c) => kids(c, 'error').length > 0).length;
    expect(s.attrs).toMatchObject({ tests: String(cases.length), failures: String(f), errors: String(e), skipped: '0' });
    for (const c of cases) expect(c.attrs.classname).toBe(s.attrs.name);
    tests += cases.length;
    failures += f;
    errors += e;
  }
  expect(root.attrs).toEqual({ name: 'kubegrace', tests: String(tests), failures: String(failures), errors: String(errors) });
}

describe('toJunit', () => {
  test('one suite per file, one case per object, a failure per finding at or above --fail-on', () => {
    const result = lint([
      { file: 'deploy/web.yaml', text: app('web') },
      { file: 'deploy/ns.yaml', text: 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n' },
      { file: 'deploy/values.yaml', text: 'replicas: 3\n' },
    ]);
    const root = junit(result);
    expect(root.name).toBe('testsuites');
    expect(kids(root, 'testsuite').map((s) => s.attrs.name)).toEqual(['deploy/web.yaml', 'deploy/ns.yaml']);
    const web = suite(root, 'deploy/web.yaml');
    expect(kids(web, 'testcase').map((c) => c.attrs.name)).toEqual(['Deployment/shop/web', 'Service/shop/web']);
    expect(kids(suite(root, 'deploy/ns.yaml'), 'testcase').map((c) => c.attrs.name)).toEqual(['Namespace/shop']);

    const deployment = testcase(web, 'Deployment/shop/web');
    const errors = result.findings.filter((f) => !f.suppressed && f.severity === 'error' && f.object.kind === 'Deployment');
    expect(errors.map((f) => f.ruleId)).toContain(RULE);
    expect(kids(deployment, 'failure').map((f) => ({ type: f.attrs.type, message: f.attrs.message, body: f.text }))).toEqual(
      errors.map((f) => ({ type: f.ruleId, message: f.message, body: line(f) })),
    );
    const budget = kids(deployment, 'failure').find((f) => f.attrs.type === RULE)!;
    expect(budget.text).toMatch(/^deploy\/web\.yaml:15:\d+ error grace-period-budget container "app": preStop delay 40s/);
    // Findings below --fail-on are listed, not failed.
    const below = result.findings.filter((f) => f.object.kind === 'Deployment' && f.severity !== 'error');
    const out = kids(deployment, 'system-out');
    if (below.length) expect(out[0].text.split('\n')).toEqual(below.map(line));
    else expect(out).toHaveLength(0);
    expectConsistentCounts(root);
  });

  test('--fail-on moves findings between failures and system-out', () => {
    const result = lint([{ file: 'a.yaml', text: app('web') }]);
    const dep = (failOn: Severity | 'never') => testcase(suite(junit(result, failOn), 'a.yaml'), 'Deployment/shop/web');
    const all = result.findings.filter((f) => f.object.kind === 'Deployment' && !f.suppressed);
    expect(all.some((f) => f.severity === 'warning')).toBe(true);
    expect(kids(dep('info'), 'failure')).toHaveLength(all.length);
    expect(kids(dep('warning'), 'failure')).toHaveLength(all.filter((f) => f.severity !== 'info').length);
    const never = dep('never');
    expect(kids(never, 'failure')).toHaveLength(0);
    expect(kids(never, 'system-out')[0].text.split('\n')).toEqual(all.map(line));
    for (const failOn of ['error', 'warning', 'info', 'never'] as const) expectConsistentCounts(junit(result, failOn));
    expect(junit(result, 'never').attrs.failures).toBe('0');
  });

  test('suppressed findings are never failures: system-out with the reason', () => {
    const annotations = `        kubegrace.dev/ignore: ${RULE}\n        kubegrace.dev/ignore-reason: "drain handled by the <LB> & \\"proxy\\""\n`;
    const result = lint([{ file: 'a.yaml', text: app('web', { annotations }) }]);
    const f = result.findings.find((x) => x.ruleId === RULE)!;
    expect(f.suppressed).toBe(true);
    const dep = testcase(suite(junit(result, 'info'), 'a.yaml'), 'Deployment/shop/web');
    expect(kids(dep, 'failure').map((x) => x.attrs.type)).not.toContain(RULE);
    expect(kids(dep, 'system-out')[0].text.split('\n')).toContain(`${line(f)} (suppressed: drain handled by the <LB> & "proxy")`);

    const noReason = lint([{ file: 'a.yaml', text: app('web', { annotations: `        kubegrace.dev/ignore: all\n` }) }]);
    const dep2 = testcase(suite(junit(noReason, 'info'), 'a.yaml'), 'Deployment/shop/web');
    expect(kids(dep2, 'failure')).toHaveLength(0);
    const g = noReason.findings.find((x) => x.ruleId === RULE)!;
    expect(kids(dep2, 'system-out')[0].text.split('\n')).toContain(`${line(g)} (suppressed)`);
  });

  test('input errors are error testcases; the other documents are still checked', () => {
    const result = lint([
      { file: 'a.yaml', text: app('web') + BROKEN },
      { file: 'b.yaml', text: ': : :\n  - [\n' },
    ]);
    expect(result.errors.length).toBeGreaterThanOrEqual(2);
    const root = junit(result);
    const a = suite(root, 'a.yaml');
    expect(kids(a, 'testcase').map((c) => c.attrs.name).slice(0, 2)).toEqual(['Deployment/shop/web', 'Service/shop/web']);
    const aErrors = result.errors.filter((e) => e.file === 'a.yaml');
    const errorCases = kids(a, 'testcase').filter((c) => kids(c, 'error').length);
    expect(errorCases).toHaveLength(aErrors.length);
    const [e] = aErrors;
    expect(errorCases[0].attrs.name).toBe(`input error at ${e.line}:${e.column}`);
    expect(kids(errorCases[0], 'error')[0].attrs).toEqual({ message: e.message, type: 'input-error' });
    expect(kids(errorCases[0], 'error')[0].text).toBe(`a.yaml:${e.line}:${e.column} error ${e.message}`);
    // A file with nothing but errors still gets its suite.
    const b = suite(root, 'b.yaml');
    expect(kids(b, 'testcase').every((c) => kids(c, 'error').length === 1)).toBe(true);
    expect(Number(root.attrs.errors)).toBe(result.errors.length);
    expectConsistentCounts(root);
  });

  test('messages with markup, quotes, newlines and entity look-alikes survive the round trip', () => {
    // The container name lands in the messages; YAML escapes give it every awkward character.
    const name = String.raw`"a<b>&c 'q' \"dq\" &amp; &#10; ]]> x,y:z %25\nnext\ttab\rcr"`;
    const result = lint([{ file: 'odd & <name>.yaml', text: app('web', { container: name }) }]);
    const f = result.findings.find((x) => x.ruleId === RULE)!;
    expect(f.message).toContain(`a<b>&c 'q' "dq" &amp; &#10; ]]> x,y:z %25\nnext\ttab\rcr`);
    const root = junit(result);
    const s = suite(root, 'odd & <name>.yaml');
    expect(s).toBeDefined();
    const failure = kids(testcase(s, 'Deployment/shop/web'), 'failure').find((x) => x.attrs.type === RULE)!;
    // Attributes are exact: newline, tab and CR are written as character references.
    expect(failure.attrs.message).toBe(f.message);
    // Text content is one line per finding: control characters from the manifest are shown as
    // \u000a etc., so a printed report cannot start lines of its own (issue 12 item 17).
    expect(failure.text).toBe(line(f).replace(/\n/g, '\\u000a').replace(/\t/g, '\\u0009').replace(/\r/g, '\\u000d'));
    expect(testcase(s, 'Deployment/shop/web').attrs.classname).toBe('odd & <name>.yaml');
  });

  test('characters XML cannot represent are replaced, never written raw', () => {
    const result = lint([{ file: 'a.yaml', text: app('web', { container: String.raw`"bell\x07 nul\0 ok"` }) }]);
    const f = result.findings.find((x) => x.ruleId === RULE)!;
    expect(f.message).toContain('bell\u0007 nul\u0000 ok');
    const xml = toJunit(result, 'error');
    expect(xml).not.toMatch(/[\u0000\u0007]/);
    const failure = kids(testcase(suite(parseXml(xml).root, 'a.yaml'), 'Deployment/shop/web'), 'failure').find((x) => x.attrs.type === RULE)!;
    expect(failure.attrs.message).toBe(f.message.replace(/[\u0000\u0007]/g, '\uFFFD'));
  });

  test('a finding goes to the right object when an identity repeats in a file', () => {
    const text = app('web', { sleep: 5 }) + '---\n' + app('web');
    const result = lint([{ file: 'a.yaml', text }]);
    const budget = result.findings.filter((f) => f.ruleId === RULE);
    expect(budget).toHaveLength(1);
    const cases = kids(suite(junit(result), 'a.yaml'), 'testcase').filter((c) => c.attrs.name === 'Deployment/shop/web');
    expect(cases).toHaveLength(2);
    expect(kids(cases[0], 'failure').map((f) => f.attrs.type)).not.toContain(RULE);
    expect(kids(cases[1], 'failure').map((f) => f.attrs.type)).toContain(RULE);
  });

  test('stdin, no input at all, and a clean run', () => {
    const stdin = junit(lint([{ file: '<stdin>', text: app('web') }]));
    expect(kids(stdin, 'testsuite').map((s) => s.attrs.name)).toEqual(['<stdin>']);
    const empty = junit(lint([]));
    expect(empty.attrs).toEqual({ name: 'kubegrace', tests: '0', failures: '0', errors: '0' });
    expect(empty.children).toHaveLength(0);
    const clean = junit(lint([{ file: 'ns.yaml', text: 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n' }]));
    expect(clean.attrs).toEqual({ name: 'kubegrace', tests: '1', failures: '0', errors: '0' });
    const [c] = kids(kids(clean, 'testsuite')[0], 'testcase');
    expect(c.children).toHaveLength(0);
  });

  test('the output is deterministic and ends with a newline', () => {
    const result = lint([{ file: 'a.yaml', text: app('web') + BROKEN }]);
    const xml = toJunit(result, 'warning');
    expect(xml).toBe(toJunit(result, 'warning'));
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    expect(xml.endsWith('</testsuites>\n')).toBe(true);
  });
});
