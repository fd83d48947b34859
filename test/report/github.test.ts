import { loadPolicy, ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources, LintResult } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { Source } from '../../lib/model/sources';
import { escapeData, escapeProperty, toGithub } from '../../lib/report/github';
import { ALL_RULES } from '../../lib/rules';

const RULE = 'grace-period-budget';

function policy(overrides: ResolvedPolicy['rules'] = new Map()): ResolvedPolicy {
  const p = loadPolicy('recommended', ALL_RULES);
  return { ...p, rules: new Map([...p.rules, ...overrides]) };
}

function lint(sources: Source[], p = policy()): LintResult {
  return lintSources(sources, { rules: ALL_RULES, policy: p, version: KubeVersion.parse('1.33') });
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

/**
 * The workflow-command syntax the runner parses: `::command k=v,k=v::data`. Property values may not
 * hold `,` `:` CR or LF (escaped); the data may not hold CR or LF.
 */
const PROP = '(?:file|line|col|endLine|endColumn|title)=[^,:\\r\\n]*';
const COMMAND = new RegExp(`^::(error|warning|notice) (${PROP}(?:,${PROP})*)::([^\\r\\n]*)$`);

/** The runner's side: one pass over %XX sequences, so an escaped `%25` never decodes twice. */
const unescape = (s: string) =>
  s.replace(/%(25|0D|0A|3A|2C)/g, (_m, code: string) => ({ '25': '%', '0D': '\r', '0A': '\n', '3A': ':', '2C': ',' })[code]!);

interface Decoded {
  command: string;
  props: Record<string, string>;
  message: string;
}

function decode(line: string): Decoded {
  const m = COMMAND.exec(line);
  if (!m) throw new Error(`not a workflow command: ${JSON.stringify(line)}`);
  const props: Record<string, string> = {};
  for (const kv of m[2].split(',')) {
    const i = kv.indexOf('=');
    props[kv.slice(0, i)] = unescape(kv.slice(i + 1));
  }
  return { command: m[1], props, message: unescape(m[3]) };
}

function lines(out: string): string[] {
  expect(out === '' || out.endsWith('\n')).toBe(true);
  return out === '' ? [] : out.slice(0, -1).split('\n');
}

describe('toGithub', () => {
  test('one workflow command per unsuppressed finding, in order, with file, line, col and title', () => {
    const result = lint([{ file: 'deploy/web.yaml', text: app('web') }]);
    const out = lines(toGithub(result));
    expect(out).toHaveLength(result.findings.length);
    for (const l of out) expect(l).toMatch(COMMAND);
    const decoded = out.map(decode);
    expect(decoded).toEqual(
      result.findings.map((f) => ({
        command: f.severity === 'info' ? 'notice' : f.severity,
        props: { file: 'deploy/web.yaml', line: String(f.line), col: String(f.column), title: f.ruleId },
        message: f.message,
      })),
    );
    const budget = out.find((l) => l.includes(`title=${RULE}`))!;
    expect(budget).toMatch(/^::error file=deploy\/web\.yaml,line=15,col=\d+,title=grace-period-budget::container "app": preStop delay 40s/);
  });

  test('severities: error, warning, and notice for info', () => {
    const sev = (s: 'error' | 'warning' | 'info') =>
      decode(lines(toGithub(lint([{ file: 'a.yaml', text: app('web') }], policy(new Map([[RULE, { severity: s }]]))))).find((l) => l.includes(`title=${RULE}`))!).command;
    expect(sev('error')).toBe('error');
    expect(sev('warning')).toBe('warning');
    expect(sev('info')).toBe('notice');
  });

  test('suppressed findings are not annotated', () => {
    const annotations = `        kubegrace.dev/ignore: ${RULE}\n        kubegrace.dev/ignore-reason: handled by the LB\n`;
    const result = lint([{ file: 'a.yaml', text: app('web', { annotations }) }]);
    expect(result.findings.find((f) => f.ruleId === RULE)!.suppressed).toBe(true);
    const out = lines(toGithub(result));
    expect(out).toHaveLength(result.findings.filter((f) => !f.suppressed).length);
    expect(out.some((l) => l.includes(`title=${RULE}`))).toBe(false);
    const all = lint([{ file: 'a.yaml', text: app('web', { annotations: '        kubegrace.dev/ignore: all\n' }) }]);
    expect(toGithub(all)).toBe('');
  });

  test('input errors are error commands titled kubegrace, and the rest is still reported', () => {
    const broken = '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\ndata: [unclosed\n';
    const result = lint([{ file: 'a.yaml', text: app('web') + broken }]);
    expect(result.errors.length).toBeGreaterThan(0);
    const out = lines(toGithub(result)).map(decode);
    const errs = out.filter((d) => d.props.title === 'kubegrace');
    expect(errs).toEqual(
      result.errors.map((e) => ({ command: 'error', props: { file: 'a.yaml', line: String(e.line), col: String(e.column), title: 'kubegrace' }, message: e.message })),
    );
    expect(out.some((d) => d.props.title === RULE)).toBe(true);
  });

  test('messages and file names with commas, colons, %, CR and newlines are escaped as the toolkit does, and round-trip', () => {
    // The container name lands in the messages; YAML escapes give it the awkward characters.
    const name = String.raw`"x,y:z 100% %0A %25 ::a\nb\r\nc"`;
    const file = 'dir,1/a:b %2C.yaml';
    const result = lint([{ file, text: app('web', { container: name }) }]);
    const f = result.findings.find((x) => x.ruleId === RULE)!;
    expect(f.message).toContain('x,y:z 100% %0A %25 ::a\nb\r\nc');
    const raw = lines(toGithub(result));
    expect(raw).toHaveLength(result.findings.length); // no line was split by a raw newline
    const budget = raw.find((l) => l.includes(`title=${RULE}`))!;
    expect(budget).toMatch(COMMAND);
    expect(budget.startsWith(`::error file=dir%2C1/a%3Ab %252C.yaml,line=${f.line},col=${f.column},title=${RULE}::`)).toBe(true);
    expect(budget).toContain('x,y:z 100%25 %250A %2525 ::a%0Ab%0D%0Ac');
    const d = decode(budget);
    expect(d.props.file).toBe(file);
    expect(d.message).toBe(f.message);
  });

  test('escapeData and escapeProperty match actions/toolkit', () => {
    expect(escapeData('a%b\r\nc:d,e')).toBe('a%25b%0D%0Ac:d,e');
    expect(escapeProperty('a%b\r\nc:d,e')).toBe('a%25b%0D%0Ac%3Ad%2Ce');
    expect(escapeProperty('%3A')).toBe('%253A');
    for (const s of ['plain', '%%', 'a\n\n', ':,:,', '%0A literally', '\r']) {
      expect(unescape(escapeProperty(s))).toBe(s);
      expect(unescape(escapeData(s))).toBe(s);
    }
  });

  test('stdin has no file to annotate: the position moves into the message', () => {
    const result = lint([{ file: '<stdin>', text: app('web') }]);
    const f = result.findings.find((x) => x.ruleId === RULE)!;
    const d = lines(toGithub(result)).map(decode).find((x) => x.props.title === RULE)!;
    expect(d.props).toEqual({ title: RULE });
    expect(d.message).toBe(`stdin:${f.line}:${f.column}: ${f.message}`);
  });

  test('nothing to report: empty output', () => {
    expect(toGithub(lint([]))).toBe('');
    expect(toGithub(lint([{ file: 'ns.yaml', text: 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n' }]))).toBe('');
  });
});
