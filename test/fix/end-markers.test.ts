/**
 * `...` document end markers and --fix's piecewise read-back (fix/pieces.ts piecewiseText). Helm
 * charts write `...` before the next `---` (kiali in the corpus's istio-addons.yaml): such a file
 * was read back whole at every pass, so --fix on the corpus as one stream took 7.1 s against
 * 0.9 s for its lint; it now reads back only the edited documents (1.8 s), with the same result.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { fastReadBack, fixSources } from '../../lib/fix';
import { parseYamlFast } from '../../lib/model/fast-yaml';
import { markerSlices, NOT_PIECEWISE, piecewiseText } from '../../lib/fix/pieces';
import fc from 'fast-check';
import { ALL_RULES } from '../../lib/rules';

const opts = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };

const dep = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - name: app
          image: example.com/${name}:1
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /ready, port: http}}
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: http}]
`;

describe('piecewiseText and `...`', () => {
  const cases: [string, boolean][] = [
    ['a: 1\n...\n---\nb: 2\n', true],
    ['a: 1\n...\n\n---\nb: 2\n', true],
    ['a: 1\n... \n \t\n---\n', true],
    ['a: 1\r\n...\r\n\r\n---\r\nb: 2\r\n', true],
    ['a: 1\n...\n', true],
    ['a: 1\n...', true],
    ['a: "x...y"\nb: |\n  ...\n', true],
    // A document after `...` without `---`, or a comment between: read back whole.
    ['a: 1\n...\nb: 2\n', false],
    ['a: 1\n...\n\nb: 2\n', false],
    ['a: 1\n...\n# c\n---\nb: 2\n', false],
    ['a: 1\n... # c\n---\nb: 2\n', false],
    ['a: 1\n...\n---x: 1\n', false],
    ['%YAML 1.1\n---\na: 1\n', false],
    ['a: 1\rb: 2\n', false],
    // `%` at the start of a line (of any kind a multi-line `^` knows), with and without CRs.
    ['a: 1\n---\n%TAG ! tag:x,2000:\n---\nb: 2\n', false],
    ['a: 1\r\n%YAML 1.1\r\n---\r\n', false],
    ['a: "x\u2028%y"\n', false],
    ['a: "x\u2029%y"\n', false],
    ['a: "50%"\nb: 1\n', true],
    ['a: "50%"\r\nb: 1\r\n', true],
  ];
  test.each(cases)('%j: %s', (text, want) => {
    expect(piecewiseText(text)).toBe(want);
  });

  test('without `...`, exactly the texts NOT_PIECEWISE does not match (lone CRs, `%` at a line start)', () => {
    const unit = fc.constantFrom('%', '\r', '\n', '\r\n', '\u2028', '\u2029', 'a', ' ', ':');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (t) => {
        expect([t, piecewiseText(t)]).toEqual([t, !NOT_PIECEWISE.test(t)]);
      }),
      { numRuns: 5000, seed: 7 },
    );
  });

  test('where it allows `...`, every `---` slice reads alone as yaml reads it in the whole stream', () => {
    for (const [text, ok] of cases) {
      if (!ok) continue;
      const whole = parseAllDocuments(text);
      const starts = markerSlices(text);
      expect(starts).toHaveLength(whole.length);
      starts.forEach((s, i) => {
        const alone = parseAllDocuments(text.slice(s, i + 1 < starts.length ? starts[i + 1] : text.length));
        expect(alone).toHaveLength(1);
        expect(alone[0].errors).toEqual([]);
        expect(alone[0].toJS()).toEqual(whole[i].toJS());
      });
    }
  });
});

describe('--fix on a stream with `...` before `---`', () => {
  const text = [dep('a'), '...\n---\n', dep('b'), '...\n\n---\n', dep('c'), '...\n'].join('');

  test('reads back only the edited documents, as the whole text reads (verifyPiecewise)', () => {
    const r = fixSources([{ file: 'x.yaml', text }], { ...opts, proposals: true, verifyPiecewise: true });
    expect(r.files[0].applied.filter((a) => a.ruleId === 'prestop-missing')).toHaveLength(3);
    expect(r.work.wholeReadBacks).toBe(0);
    expect(r.work.fileParses).toEqual({});
    // The markers stay where they were.
    expect(r.files[0].text.match(/^\.\.\.$/gm)).toHaveLength(3);
  });

  test('the corpus as one stream (istio-addons.yaml has `...` lines) is read back piecewise', () => {
    const dir = path.resolve(__dirname, '../../../shared/corpus/rendered');
    const addons = fs.readFileSync(path.join(dir, 'istio-addons.yaml'), 'utf8');
    expect(addons).toMatch(/^\.\.\.\n\n?---/m);
    expect(piecewiseText(addons)).toBe(true);
    const r = fixSources([{ file: 'addons.yaml', text: addons }], { ...opts, proposals: true, verifyPiecewise: true });
    expect(r.files[0].applied.length).toBeGreaterThan(0);
    expect(r.work.wholeReadBacks).toBe(0);
  });
});

describe('fastReadBack (the read-back of an edited or added document)', () => {
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n';
  test('a clean document is read back by the fast path', () => {
    expect(fastReadBack('f.yaml', cm)?.objects[0].raw).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
  });
  test('a document with an error is no read-back, although the fast path now returns parse.ts reading of it', () => {
    // A duplicate key: parse.ts reads the last value (what the fix wanted) and reports the error.
    const dup = `${cm}  k: w\n`;
    const fast = parseYamlFast('f.yaml', dup);
    expect(fast?.objects).toHaveLength(1);
    expect(fast?.errors.length).toBeGreaterThan(0);
    expect(fastReadBack('f.yaml', dup)).toBeUndefined();
    // A syntax error, and two documents.
    expect(fastReadBack('f.yaml', cm.replace('name: a', 'name: {a'))).toBeUndefined();
    expect(fastReadBack('f.yaml', `${cm}---\n${cm}`)).toBeUndefined();
  });
});
