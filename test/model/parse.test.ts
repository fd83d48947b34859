import { indentContinuations, parseText, withoutStacks } from '../../lib/model/parse';
import { collectSources, decodeText, Source } from '../../lib/model/sources';
import { parseSource } from '../../lib/engine/run';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cpuMs } from '../helpers/cpu';

describe('parseText', () => {
  test('multi-document YAML with positions, empty documents and --- runs', () => {
    const text = `---
---
# comment only
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: {app: web}
---
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: app
        image: x
`;
    const p = parseText('a.yaml', text);
    expect(p.errors).toEqual([]);
    expect(p.objects.map((o) => [o.kind, o.name, o.namespace, o.line, o.column])).toEqual([
      ['Service', 'web', 'shop', 5, 1],
      ['Deployment', 'web', 'default', 14, 1],
    ]);
    const d = p.objects[1];
    expect(d.locate('/spec/template/spec/containers/0')).toEqual({ line: 21, column: 9 });
    expect(d.locate('/spec/template/spec/containers/0/image')).toEqual({ line: 22, column: 9 });
    // A missing field points at the deepest existing ancestor.
    expect(d.locate('/spec/template/spec/containers/0/lifecycle/preStop')).toEqual({ line: 21, column: 9 });
    expect(d.locate('/spec/replicas')).toEqual({ line: 17, column: 1 });
  });

  test('kind: List and *List items become objects with their own positions', () => {
    const text = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: b, namespace: x}
  spec: {replicas: 2}
---
apiVersion: v1
kind: ConfigMapList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
`;
    const p = parseText('l.yaml', text);
    expect(p.objects.map((o) => `${o.kind}/${o.name}@${o.line}:${o.column} ${o.basePointer}`)).toEqual([
      'ConfigMap/a@4:3 /items/0',
      'Deployment/b@7:3 /items/1',
      'ConfigMap/c@15:3 /items/0',
    ]);
    expect(p.objects[1].locate('/spec/replicas')).toEqual({ line: 10, column: 10 });
  });

  test('JSON (kubectl get -o json) with positions', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' }, spec: { replicas: 3 } }] }, null, 2);
    const p = parseText('d.json', text);
    expect(p.errors).toEqual([]);
    expect(p.objects).toHaveLength(1);
    const o = p.objects[0];
    expect(o.name).toBe('w');
    const pos = o.locate('/spec/replicas');
    expect(text.split('\n')[pos.line - 1]).toContain('"replicas": 3');
  });

  test('a syntax error in one document keeps the other documents', () => {
    const text = `apiVersion: v1
kind: Service
metadata: {name: a}
---
apiVersion: v1
kind: Service
metadata: {name: [unclosed
---
apiVersion: v1
kind: Service
metadata: {name: c}
`;
    const p = parseText('bad.yaml', text);
    expect(p.objects.map((o) => o.name)).toEqual(['a', 'c']);
    expect(p.errors.length).toBeGreaterThan(0);
    expect(p.errors[0].file).toBe('bad.yaml');
    expect(p.errors[0].line).toBeGreaterThanOrEqual(7);
    expect(p.errors[0].message).toMatch(/YAML syntax error/);
  });

  test('after a broken document with a multi-line scalar, later positions are on their own lines', () => {
    // yaml's parser records the line breaks inside a scalar only when the scalar becomes a node:
    // here `]` ends the document early and "master\n  x" is an error token (its line was lost).
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n]  role: master\n  x: y\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: after\n';
    const p = parseText('b.yaml', text);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]).toMatchObject({ line: 7, column: 1 });
    expect(p.objects.map((o) => [o.name, o.line, o.locate('/metadata/name').line])).toEqual([['after', 10, 13]]);
  });

  test('a stray token right after `---` is an error of that document, not of the one before', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n]apiVersion: v1\nkind: Service\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: c}\n';
    const p = parseText('s.yaml', text);
    expect(p.objects.map((o) => o.name)).toEqual(['a', 'c']);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]).toMatchObject({ line: 5, column: 1 });
    expect(p.errors[0].message).toMatch(/Unexpected flow-seq-end token/);
  });

  test('a quote left open after its document\'s node runs to the end: the documents after the next `---` are read again', () => {
    // The block scalar ends the document's node; `b: 'x` then reads on (no `'` closes it) as
    // tokens outside the document, which took the documents after it.
    const text = `---\n |\n    block\n  b: 'x\n---\napiVersion: v1\nkind: Service\nmetadata: {name: later}\n`;
    const p = parseText('q.yaml', text);
    expect(p.objects.map((o) => [o.name, o.line])).toEqual([['later', 6]]);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0].line).toBe(4);
  });

  test('an error that quotes a token yaml could not place shows the token\'s first line only (a quote left open runs to the end)', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n\n!!st'r ------\n# between\n'open ${'z'.repeat(70)}\nand on\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b}\n`;
    const p = parseText('t.yaml', text);
    expect(p.objects.map((o) => o.name)).toEqual(['a', 'b']);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]).toMatchObject({ line: 8, column: 1 });
    expect(p.errors[0].message).toContain(`Unexpected single-quoted-scalar token in YAML stream: "'open ${'z'.repeat(54)}…";`);
  });

  test('a document cut at the next `---` with a `#` inside a plain scalar before its open quote: read, not looped on', () => {
    // (unterminatedQuote never moved past the `#` of `tem#plate`: parseText did not return.)
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\nspec:\n \n   tem#plate:\n    spec:\n      image: &a "x\n\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n';
    const p = parseText('h.yaml', text);
    expect(p.objects.map((o) => o.name)).toEqual(['s']);
    expect(p.errors).toHaveLength(1);
  });

  test('a stray token right after `...` is an error of the document it starts', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata: {name: a}\n...\n]apiVersion: v1\nkind: Service\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: c}\n`;
    const p = parseText('t.yaml', text);
    expect(p.objects.map((o) => o.name)).toEqual(['a', 'c']);
    expect(p.errors.map((e) => [e.line, e.column])).toEqual([[5, 1]]);
  });

  test('a quote left open in a broken document, read past the document\'s node with no error of its own: the documents after it are read again', () => {
    const text = "apiVersion: v1\nkind: RoleBinding\nmetadata:\n  labels:\n -    a: b\n  name: x\nroleRef:\n  'apiGroup: rbac\n  kind: Role\n---\napiVersion: v1\nkind: Service\nmetadata: {name: later}\n";
    const p = parseText('q.yaml', text);
    expect(p.documents).toBe(2);
    expect(p.objects.map((o) => [o.name, o.line])).toEqual([['later', 11]]);
    expect(p.errors.map((e) => [e.line, e.column])).toEqual([[4, 10]]);
  });

  test('alias bombs are refused with a clear error', () => {
    let text = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++) text += `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
    const c0 = cpuMs();
    const p = parseText('bomb.yaml', text);
    expect(cpuMs() - c0).toBeLessThan(2000);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0].message).toMatch(/excessive aliasing/);
    expect(p.errors[0].message).toMatch(/alias bomb/);
  });

  test('syntax errors are made without stack traces (the parse of a broken file), and the limit is restored; a parse that throws is run again with stack traces', () => {
    const limit = Error.stackTraceLimit;
    const p = parseText('broken.yaml', 'a: [b\n- c: d\n  e\n"x\n---\nb: 1\n');
    expect(p.errors.length).toBeGreaterThan(0);
    const err = withoutStacks(() => new Error('inside'));
    expect(err.stack).toBe('Error: inside');
    expect(Error.stackTraceLimit).toBe(limit);
    // A parse that throws is a bug: it is run again with stack traces, for the internal-error report.
    let runs = 0;
    let thrown: Error | undefined;
    try {
      withoutStacks(() => {
        runs++;
        throw new Error('thrown');
      });
    } catch (e) {
      thrown = e as Error;
    }
    expect(runs).toBe(2);
    expect(thrown?.stack).toMatch(/^Error: thrown\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('after').stack).toMatch(/\n\s+at /);
  });

  test('absurdly deep nesting is refused, not a crash', () => {
    for (const text of ['a: ' + '['.repeat(100000) + ']'.repeat(100000), 'a: ' + '['.repeat(300) + ']'.repeat(300)]) {
      const p = parseText('deep.yaml', text);
      expect(p.errors.length).toBeGreaterThan(0);
      expect(p.errors[0].message).toMatch(/nests/);
    }
  });

  test('non-Kubernetes documents are ignored; CRDs and custom resources pass through', () => {
    const text = `replicaCount: 3
image: {repository: x}
---
- a
- b
---
plain string
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`;
    const p = parseText('v.yaml', text);
    expect(p.errors).toEqual([]);
    expect(p.documents).toBe(4);
    expect(p.objects.map((o) => o.kind)).toEqual(['Widget']);
  });

  test('cluster-scoped kinds have no namespace', () => {
    const p = parseText('n.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n');
    expect(p.objects[0].namespace).toBeUndefined();
  });
});

describe('sources', () => {
  test('binary and non-UTF-8 data are reported, not crashed on', () => {
    expect(decodeText(Buffer.from([0x61, 0x00, 0x62])).problem).toMatch(/binary/);
    expect(decodeText(Buffer.from([0x61, 0xff, 0xfe, 0x62])).problem).toMatch(/UTF-8/);
    expect(decodeText(Buffer.from('kind: x', 'utf8')).text).toBe('kind: x');
  });

  test('directories are walked recursively for yaml, yml and json, in sorted order', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-src-'));
    fs.mkdirSync(path.join(dir, 'sub', 'deeper'), { recursive: true });
    fs.mkdirSync(path.join(dir, '.git'));
    fs.writeFileSync(path.join(dir, 'b.yaml'), 'a: 1');
    fs.writeFileSync(path.join(dir, 'a.yml'), 'a: 1');
    fs.writeFileSync(path.join(dir, 'sub', 'c.json'), '{}');
    fs.writeFileSync(path.join(dir, 'sub', 'deeper', 'd.YAML'), 'a: 1');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
    fs.writeFileSync(path.join(dir, '.git', 'x.yaml'), 'a: 1');
    const { sources, errors } = collectSources([dir, path.join(dir, 'missing.yaml')], { cwd: dir });
    expect(sources.map((s) => s.file)).toEqual(['a.yml', 'b.yaml', 'sub/c.json', 'sub/deeper/d.YAML']);
    expect(errors).toEqual([{ file: path.join(dir, 'missing.yaml'), line: 1, column: 1, message: expect.stringMatching(/no such file/) }]);
  });
});

describe('indentContinuations: quoted scalars as go-yaml reads them', () => {
  // Values as libyaml reads them (PyYAML's safe_load of the same text; go-yaml is its port):
  // a folded line break, the white space that starts a continuation line dropped.
  const cm = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n${data}`;
  test('continuation lines indented less than the key are read, with the values go-yaml gives', () => {
    const text = cm(`  a: "-Xms1g \\\n-Dfoo=bar  \n\n  -Dx=\\"y\\""\n  b: 'one\n two''s\nthree'\n  c: "p\n\t q"\n`);
    expect(parseText('x', text).errors[0].message).toMatch(/Missing closing "quote/);
    const r = indentContinuations(text)!;
    expect(r.lines).toEqual([7, 9, 11, 12, 14]);
    // Only white space is added, at the start of those lines: the same lines, the same other columns.
    expect(r.text.split('\n').map((l) => l.trimStart())).toEqual(text.split('\n').map((l) => l.trimStart()));
    const p = parseText('x', r.text);
    expect(p.errors).toEqual([]);
    expect(p.objects[0].raw.data).toEqual({ a: '-Xms1g -Dfoo=bar\n-Dx="y"', b: "one two's three", c: 'p q' });
  });
  test('a file yaml reads as it is, or with a quote never closed, is left alone', () => {
    expect(indentContinuations(cm('  a: "one\n    two"\n'))).toBeUndefined();
    expect(indentContinuations(cm('  a: "one\ntwo\n'))).toBeUndefined();
  });
  test('a document marker inside the quotes ends the scalar in go-yaml too: no padding', () => {
    expect(indentContinuations(cm('  a: "one\n---\ntwo"\n'))).toBeUndefined();
  });
  test('CRLF line ends', () => {
    const text = cm('  a: "one\r\ntwo"\r\n').replace(/\n/g, '\r\n').replace(/\r\r/g, '\r');
    const r = indentContinuations(text)!;
    expect(parseText('x', r.text).objects[0].raw.data).toEqual({ a: 'one two' });
  });
});

describe('indentContinuations: flow collections as go-yaml reads them', () => {
  // Review round 30 (helm/charts stable/minio 5.0.26, vendored by mattermost-enterprise-edition):
  // `command: [ "/bin/sh",` with its later items at the key's column. yaml refuses it (YAML 1.2);
  // go-yaml tracks no indentation inside a flow collection. Oracle: kubectl 1.32 `label --local -f
  // FILE x=y -o json` (sigs.k8s.io/yaml) on this very text, which gives the values below.
  const cm = (meta: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n${meta}data:\n  m: |\n    ok\n`;
  test('a flow sequence continued at its key\'s column is read, with positions of the file', () => {
    const dep = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: minio\nspec:\n  template:\n    spec:\n      containers:\n        - name: minio\n          command: [ "/bin/sh",\n          "-ce",\n          "/usr/bin/docker-entrypoint.sh minio server /export" ]\n          ports:\n            - containerPort: 9000\n`;
    expect(parseText('x', dep).errors[0].message).toMatch(/Flow sequence in block collection must be sufficiently indented/);
    const r = indentContinuations(dep)!;
    expect(r.lines).toEqual([11, 12]);
    expect(r.flow).toEqual([11, 12]);
    expect(r.quoted).toEqual([]);
    expect([...r.pads]).toEqual([[11, 9], [12, 9]]);
    expect(r.text.split('\n').map((l) => l.trimStart())).toEqual(dep.split('\n').map((l) => l.trimStart()));
    const p = parseText('x', r.text);
    expect(p.errors).toEqual([]);
    const c = (p.objects[0].raw as unknown as { spec: { template: { spec: { containers: { command: unknown; ports: unknown }[] } } } }).spec.template.spec.containers[0];
    expect(c.command).toEqual(['/bin/sh', '-ce', '/usr/bin/docker-entrypoint.sh minio server /export']);
    expect(c.ports).toEqual([{ containerPort: 9000 }]);
    // The lint's reading (parseSource) reports the padded lines at the file's columns, and marks
    // the file unwritable for --fix.
    const s = { file: 'x', text: dep } as Source;
    const o = parseSource(s).objects[0];
    const at = (pointer: string) => o.locate(`/spec/template/spec/containers/0/${pointer}`);
    expect([at('command'), at('command/1'), at('command/2'), at('ports')]).toEqual([
      { line: 10, column: 11 },
      { line: 11, column: 11 },
      { line: 12, column: 11 },
      { line: 13, column: 11 },
    ]);
    expect(s.unwritable).toMatch(/^a flow collection \(\[…\] or \{…\}\) continues on lines 11, 12 indented no more than its key, which Kubernetes' YAML reader \(go-yaml\) accepts/);
  });
  test('flow mappings, lines at column 0, plain and quoted scalars folded across them', () => {
    const text = cm('  labels: {a: b,\n  c: d}\n  annotations: {\nk1: "one\n two", k2: plain\ncontinued,\n k3: "[x, y,\nz]"}\n');
    expect(parseText('x', text).errors[0].message).toMatch(/Flow map in block collection must be sufficiently indented/);
    const r = indentContinuations(text)!;
    const p = parseText('x', r.text);
    expect(p.errors).toEqual([]);
    expect(p.objects[0].raw.metadata).toEqual({ name: 'x', labels: { a: 'b', c: 'd' }, annotations: { k1: 'one two', k2: 'plain continued', k3: '[x, y, z]' } });
    expect(p.objects[0].raw.data).toEqual({ m: 'ok\n' });
  });
  test('a flow collection never closed, or cut by a document marker, is left alone', () => {
    expect(indentContinuations(cm('  labels: {a: b,\n  c: d\n'))).toBeUndefined();
    expect(indentContinuations(cm('  labels: {a: b,\n---\n  c: d}\n'))).toBeUndefined();
    // (A bracket inside quotes or a comment closes nothing.)
    expect(indentContinuations(cm('  labels: {a: "}",  # }\n  c: d\n'))).toBeUndefined();
  });
  test('a file yaml reads as it is is left alone', () => {
    expect(indentContinuations(cm('  labels: {a: b,\n    c: d}\n'))).toBeUndefined();
  });
});
