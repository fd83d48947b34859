/**
 * --fix's text splices (lib/fix/splice.ts) against the yaml Document route they stand in for:
 * - the text's reading of a document (TextTree) gives surgical.ts the same edit, byte for byte, as
 *   yaml's Document (yamlTree) wherever it answers: over every document of the corpus and over
 *   generated objects written in random layouts, with comment and blank lines;
 * - applyJsonEdits gives the value that edit.ts's applyEdits leaves in the Document;
 * - layouts the text reading must not guess at are declined;
 * - fixSources with and without splices writes the same files and reports the same fixes.
 */
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import * as jsyaml from 'js-yaml';
import { Document, parseAllDocuments } from 'yaml';
import { FixEdit } from '../../lib/engine/types';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources, FixResult } from '../../lib/fix';
import { applyEdits } from '../../lib/fix/edit';
import { cloneDocument } from '../../lib/fix/clone';
import { detectStyle } from '../../lib/fix/format';
import { markerSlices, piecewiseText } from '../../lib/fix/pieces';
import { applyJsonEdits, TextTree } from '../../lib/fix/splice';
import { DocEdit, treeEdit, yamlTree } from '../../lib/fix/surgical';
import { sameValue } from '../../lib/fix/values';
import { parseYamlFast } from '../../lib/model/fast-yaml';
import { PARSE_OPTIONS } from '../../lib/model/parse';
import { Json } from '../../lib/model/types';
import { k8sValue } from '../../lib/model/yaml11';
import { ALL_RULES } from '../../lib/rules';
import { expectEqual } from '../helpers/equal';
import { yamlFiles } from '../helpers/files';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus');
const RUNS = Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 200);
const SEED = Number(process.env.KUBEGRACE_FUZZ_SEED ?? 16);

/** A document read by the fast path (one object) and by yaml, alone. */
function readBoth(seg: string): { value: Json; doc: Document.Parsed } | undefined {
  const fast = parseYamlFast('x.yaml', seg);
  if (!fast || fast.objects.length !== 1 || fast.objects[0].basePointer !== '') return undefined;
  const docs = parseAllDocuments(seg, PARSE_OPTIONS) as unknown as Document.Parsed[];
  if (docs.length !== 1 || docs[0].errors.length) return undefined;
  return { value: fast.objects[0].raw as Json, doc: docs[0] };
}

/** Every node of a value with its path. */
function nodes(v: unknown, at: string[] = [], out: [string[], unknown][] = []): [string[], unknown][] {
  out.push([at, v]);
  if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) nodes(x, [...at, k], out);
  return out;
}

/** Edits at every place of a value: set each scalar, add keys (with missing parents) to each mapping, append to each sequence. */
function editsFor(value: unknown): DocEdit[][] {
  const out: DocEdit[][] = [];
  for (const [p, v] of nodes(value)) {
    // Through a null or empty entry: it becomes a block mapping.
    if (p.length && (v === null || (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length))) out.push([{ op: 'set', segs: [...p, 'inner', 'leaf'], value: { k: [1] } }]);
    if (v === null || typeof v !== 'object') {
      if (p.length) out.push([{ op: 'set', segs: p, value: typeof v === 'number' ? v + 1 : typeof v === 'string' ? `${v}x` : 'yes' }]);
    } else if (Array.isArray(v)) {
      if (p.length) out.push([{ op: 'append', segs: p, value: { name: 'added', n: 1 } }]);
    } else {
      out.push([{ op: 'set', segs: [...p, 'newKey'], value: { a: { b: [1, 'x'] } } }]);
      out.push([{ op: 'set', segs: [...p, 'm1', 'm2'], value: 3 }]);
      out.push([{ op: 'append', segs: [...p, 'list'], value: 'q' }]);
    }
  }
  // Pairs of edits at different places.
  const n = out.length;
  for (let k = 0; k + 5 < n; k += 5) out.push([...out[k], ...out[k + 5]]);
  return out;
}

/** Compares the two readings on one document; returns how many edits the text reading made. */
function compareTrees(seg: string, edits: DocEdit[][]): { yaml: number; text: number } {
  const both = readBoth(seg);
  if (!both) return { yaml: 0, text: 0 };
  const style = detectStyle(seg);
  let yaml = 0;
  let text = 0;
  for (const e of edits) {
    const byYaml = treeEdit(yamlTree(both.doc, seg), seg, 0, seg.length, e, style, '\n');
    const byText = treeEdit(new TextTree(seg, 0, seg.length, both.value), seg, 0, seg.length, e, style, '\n');
    if (byYaml !== undefined) yaml++;
    if (byText === undefined) continue;
    text++;
    // Wherever the text answers, it is yaml's answer. (expectEqual: one jest expect per edit, tens
    // of thousands, cost more than the comparison.)
    expectEqual({ edits: e, text: byText }, { edits: e, text: byYaml });
  }
  return { yaml, text };
}

describe('text splices: the text reading gives the Document reading edits', () => {
  test('every document of the corpus, edits everywhere', () => {
    let yaml = 0;
    let text = 0;
    let docs = 0;
    for (const abs of fs.existsSync(CORPUS) ? yamlFiles(CORPUS) : []) {
      const t = fs.readFileSync(abs, 'utf8');
      if (!piecewiseText(t)) continue;
      const starts = markerSlices(t);
      for (let i = 0; i < starts.length; i++) {
        const seg = t.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : t.length);
        const both = readBoth(seg);
        if (!both) continue;
        docs++;
        const all = editsFor(both.value);
        // A sample of each document's edits (all of them for small ones).
        const r = compareTrees(seg, all.filter((_, k) => k % Math.max(1, Math.floor(all.length / 30)) === 0));
        yaml += r.yaml;
        text += r.text;
      }
    }
    expect(docs).toBeGreaterThan(500);
    // The text reading answers for most edits yaml's answers for (it declines block-scalar-heavy CRDs).
    expect(text).toBeGreaterThan(yaml * 0.85);
  });

  const word = fc.constantFrom('a', 'name', 'x y', 'é', 'k.l/m', '1x', "it's", 'a#b', 'v w', '010', 'yes', 'on', '~', '', 'line\nbreak', `long ${'w'.repeat(50)}`);
  const key = fc.constantFrom('a', 'b', 'name', 'image', 'app.kubernetes.io/name', 'x_y', 'k-1', 'yes', '80', 'é', 'a b', '"q"');
  const value: fc.Arbitrary<Json> = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.oneof(word, fc.integer(), fc.boolean(), fc.constant(null)) as fc.Arbitrary<Json>,
      fc.array(tie('v'), { maxLength: 3 }) as fc.Arbitrary<Json>,
      fc.dictionary(key, tie('v'), { maxKeys: 4 }) as fc.Arbitrary<Json>,
    ),
  })).v;
  const style = fc.record({ indent: fc.integer({ min: 1, max: 4 }), flowLevel: fc.constantFrom(-1, -1, -1, 2, 3), noArrayIndent: fc.boolean(), forceQuotes: fc.boolean(), quotingType: fc.constantFrom<'"' | "'">('"', "'"), lineWidth: fc.constantFrom(-1, 40) });
  const notes = fc.array(fc.tuple(fc.nat(), fc.nat(8), fc.boolean()), { maxLength: 4 });

  test('generated objects in random layouts, with comment and blank lines', () => {
    let made = 0;
    fc.assert(
      fc.property(value, value, style, notes, (spec, data, opts, lines) => {
        const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'n' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], extra: spec } } }, data };
        const out = jsyaml.dump(obj, { ...opts, noRefs: true }).split('\n');
        for (const [at, indent, blank] of lines) out.splice(at % out.length, 0, blank ? '' : `${' '.repeat(indent)}# note`);
        const seg = out.join('\n');
        const both = readBoth(seg);
        if (!both) return;
        made += compareTrees(seg, editsFor(both.value)).text;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(made).toBeGreaterThan(RUNS);
  });
});

describe('text splices: values', () => {
  /** The value applyEdits leaves in a clone of the document, or undefined when it refuses. */
  function byDocument(doc: Document.Parsed, base: string, edits: FixEdit[]): unknown {
    const c = cloneDocument(doc);
    try {
      applyEdits(c, base, edits);
    } catch {
      return undefined;
    }
    const r = k8sValue(c);
    return r.error ? undefined : r.value;
  }

  const cases: { name: string; text: string; edits: FixEdit[]; refused?: true }[] = [
    { name: 'a missing key with missing parents', text: 'a:\n  b: 1\n', edits: [{ op: 'set', pointer: '/a/c/d/e', value: { f: [1] } }] },
    { name: 'a null parent becomes a mapping', text: 'a:\n  b:\n  c: 1\n', edits: [{ op: 'set', pointer: '/a/b/x', value: 2 }] },
    { name: 'a set replaces a whole mapping', text: 'a:\n  b: {x: 1, w: 2}\n', edits: [{ op: 'set', pointer: '/a/b', value: { w: 3 } }] },
    { name: 'a sequence item and the end of a sequence', text: 'a:\n  - 1\n  - 2\n', edits: [{ op: 'set', pointer: '/a/1', value: 5 }, { op: 'set', pointer: '/a/2', value: 6 }] },
    { name: 'append to a missing, a null and an existing sequence', text: 'a:\n  s: [1]\n  nul: null\n', edits: [{ op: 'append', pointer: '/a/s', value: 2 }, { op: 'append', pointer: '/a/nul', value: 3 }, { op: 'append', pointer: '/a/m', value: 4 }] },
    { name: 'through a scalar: refused by both', text: 'a: 1\n', edits: [{ op: 'set', pointer: '/a/b', value: 1 }], refused: true },
    { name: 'past the end of a sequence: refused by both', text: 'a: [1]\n', edits: [{ op: 'set', pointer: '/a/3', value: 1 }], refused: true },
    { name: 'append to a scalar: refused by both', text: 'a: 1\n', edits: [{ op: 'append', pointer: '/a', value: 1 }], refused: true },
  ];
  test.each(cases)('$name: the value applyEdits leaves, or declined', ({ text, edits, refused }) => {
    const doc = parseAllDocuments(text, PARSE_OPTIONS)[0] as Document.Parsed;
    const value = k8sValue(doc).value;
    const frozen = JSON.stringify(value);
    const got = applyJsonEdits(value, '', edits);
    const want = byDocument(doc, '', edits);
    expect(want === undefined).toBe(!!refused);
    expect(got).toEqual(want);
    // The value read by the lint is never changed.
    expect(JSON.stringify(value)).toBe(frozen);
  });

  test('removals are the Document route\'s', () => {
    expect(applyJsonEdits({ a: [1, 2] }, '', [{ op: 'remove', pointer: '/a/0' }])).toBeUndefined();
  });

  test('random edits on random values: the value applyEdits leaves whenever applyJsonEdits answers', () => {
    const seg = fc.constantFrom('a', 'b', '0', '1', '2', 'c');
    const edit: fc.Arbitrary<FixEdit> = fc.oneof(
      fc.record({ op: fc.constant('set' as const), pointer: fc.array(seg, { minLength: 1, maxLength: 4 }).map((s) => '/' + s.join('/')), value: fc.oneof(fc.integer(), fc.constant({ z: 1 }), fc.constant([1])) }),
      fc.record({ op: fc.constant('append' as const), pointer: fc.array(seg, { minLength: 1, maxLength: 4 }).map((s) => '/' + s.join('/')), value: fc.integer() }),
    ) as fc.Arbitrary<FixEdit>;
    const tree: fc.Arbitrary<Json> = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.oneof(fc.integer(), fc.constant(null)) as fc.Arbitrary<Json>, fc.array(tie('v'), { maxLength: 3 }) as fc.Arbitrary<Json>, fc.dictionary(seg, tie('v'), { maxKeys: 3 }) as fc.Arbitrary<Json>),
    })).v;
    let answered = 0;
    fc.assert(
      fc.property(fc.dictionary(seg, tree, { maxKeys: 3 }), fc.array(edit, { minLength: 1, maxLength: 3 }), (root, edits) => {
        const doc = parseAllDocuments(jsyaml.dump(root), PARSE_OPTIONS)[0] as Document.Parsed;
        const got = applyJsonEdits(k8sValue(doc).value, '', edits);
        if (got === undefined) return;
        answered++;
        expect(got).toEqual(byDocument(doc, '', edits));
      }),
      { numRuns: RUNS * 2, seed: SEED },
    );
    expect(answered).toBeGreaterThan(RUNS / 2);
  });
});

describe('text splices: what the text reading declines', () => {
  const base = (body: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n${body}`;
  const declined: [string, string, DocEdit[]][] = [
    ['a flow mapping', base('data: {a: b}\n'), [{ op: 'set', segs: ['data', 'c'], value: 'd' }]],
    ['an empty flow mapping with a comment after it', base('data: {} # c\n'), [{ op: 'set', segs: ['data', 'c'], value: 'd' }]],
    ['an empty flow mapping as a sequence item', base('data:\n  - {}\n'), [{ op: 'set', segs: ['data', '0', 'c'], value: 'd' }]],
    ['a null on the next line', base('data:\n  null\n'), [{ op: 'set', segs: ['data', 'c'], value: 'd' }]],
    ['an anchored scalar', base('data:\n  a: &x b\n  c: *x\n'), [{ op: 'set', segs: ['data', 'a'], value: 'z' }]],
    ['an alias', base('data:\n  a: &x b\n  c: *x\n'), [{ op: 'set', segs: ['data', 'c'], value: 'z' }]],
    ['a tag', base('data:\n  a: !!str b\n'), [{ op: 'set', segs: ['data', 'a'], value: 'z' }]],
    ['a multi-line plain scalar', base('data:\n  a: one\n    two\n'), [{ op: 'set', segs: ['data', 'a'], value: 'z' }]],
    ['a block scalar', base('data:\n  a: |\n    one\n'), [{ op: 'set', segs: ['data', 'a'], value: 'z' }]],
    ['a scalar yaml reads as another value than Kubernetes (010 is 8)', base('data:\n  a: 010\n'), [{ op: 'set', segs: ['data', 'a'], value: 10 }]],
    ['a key Kubernetes reads as a boolean', base('data:\n  yes: 1\n'), [{ op: 'set', segs: ['data', 'b'], value: 1 }]],
    ['a comment line after the last entry', base('data:\n  a: b\n  # trailing\n'), [{ op: 'set', segs: ['data', 'c'], value: 'd' }]],
    ['an item whose node starts on the next line', base('data:\n  l:\n    -\n      a: 1\n'), [{ op: 'append', segs: ['data', 'l'], value: 'x' }]],
    ['a tab in the indentation', base('data:\n  a: b\n \tc: d\n'), [{ op: 'set', segs: ['data', 'e'], value: 'f' }]],
    ['an empty value', base('data:\n  a:\n'), [{ op: 'set', segs: ['data', 'a'], value: 'f' }]],
  ];
  test.each(declined)('%s', (_, text, edits) => {
    const both = readBoth(text);
    // (Some of these the fast path itself declines; then there is nothing to splice anyway.)
    if (!both) return;
    expect(treeEdit(new TextTree(text, 0, text.length, both.value), text, 0, text.length, edits, detectStyle(text), '\n')).toBeUndefined();
  });

  test.each([
    ['an empty flow mapping', base('data: {}\nz: 1\n'), base('data:\n  c:\n    d: 1\nz: 1\n')],
    ['null', base('data: null\nz: 1\n'), base('data:\n  c:\n    d: 1\nz: 1\n')],
    // (The document's detected indentation is 2: metadata's.)
    ['~ in a sequence item', base('items:\n    -   name: a\n        data: ~\n'), base('items:\n    -   name: a\n        data:\n          c:\n            d: 1\n')],
    ['an empty value, CRLF', base('data:\nz: 1\n').replace(/\n/g, '\r\n'), base('data:\n  c:\n    d: 1\nz: 1\n').replace(/\n/g, '\r\n')],
  ])('a path through %s: a block mapping under the key', (_, text, want) => {
    const both = readBoth(text)!;
    const segs = text.includes('items:') ? ['items', '0', 'data', 'c', 'd'] : ['data', 'c', 'd'];
    const edits: DocEdit[] = [{ op: 'set', segs, value: 1 }];
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const byText = treeEdit(new TextTree(text, 0, text.length, both.value), text, 0, text.length, edits, detectStyle(text), eol);
    expect(byText).toBe(want);
    expect(treeEdit(yamlTree(both.doc, text), text, 0, text.length, edits, detectStyle(text), eol)).toBe(want);
  });

  test('a value that is not the text\'s (keys differ) is declined, not trusted', () => {
    const text = base('data:\n  a: b\n');
    expect(treeEdit(new TextTree(text, 0, text.length, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { z: 'b' } }), text, 0, text.length, [{ op: 'set', segs: ['data', 'c'], value: 1 }], detectStyle(text), '\n')).toBeUndefined();
    expect(treeEdit(new TextTree(text, 0, text.length, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'other' } }), text, 0, text.length, [{ op: 'set', segs: ['data', 'a'], value: 'x' }], detectStyle(text), '\n')).toBeUndefined();
  });

  test('what it makes: keys at the mapping\'s column, items at the dash column, scalars in place', () => {
    const text = `---\n# c\n${base('data:\n  a: "b" # keep\n  l:\n  - x\nz: 1\n')}`;
    const both = readBoth(text)!;
    const out = treeEdit(new TextTree(text, 0, text.length, both.value), text, 0, text.length, [
      { op: 'set', segs: ['data', 'a'], value: 'q' },
      { op: 'append', segs: ['data', 'l'], value: 'w' },
      { op: 'set', segs: ['data', 'k', 'm'], value: 2 },
    ], detectStyle(text), '\n');
    expect(out).toBe(`---\n# c\n${base('data:\n  a: "q" # keep\n  l:\n  - x\n  - w\n  k:\n    m: 2\nz: 1\n')}`);
  });
});

describe('text splices: fixSources with and without them', () => {
  const policy = loadPolicy('recommended', ALL_RULES);
  const version = KubeVersion.parse('1.33');
  const view = (r: FixResult) => ({ files: r.files.map((f) => ({ text: f.text, applied: f.applied })), skipped: r.skipped.map((s) => [s.finding.ruleId, s.finding.line, s.reason]), passes: r.passes, findings: r.lint.findings });
  const podSpec = fc.record({
    indent: fc.integer({ min: 2, max: 4 }),
    noArrayIndent: fc.boolean(),
    lifecycle: fc.constantFrom<Json | undefined>(undefined, {}, null, { postStart: { exec: { command: ['a'] } } }),
    grace: fc.constantFrom<Json | undefined>(undefined, 0, 5, '5'),
    replicas: fc.constantFrom<Json | undefined>(undefined, 1, 3),
    comments: fc.array(fc.tuple(fc.nat(), fc.nat(8)), { maxLength: 3 }),
    containers: fc.integer({ min: 1, max: 3 }),
  });

  test('random workload layouts: the same files, fixes and report; splices are used', () => {
    let spliced = 0;
    fc.assert(
      fc.property(podSpec, fc.boolean(), (p, proposals) => {
        const containers = Array.from({ length: p.containers }, (_, i) => ({ name: `c${i}`, image: 'web:1', ports: [{ containerPort: 8080 }], ...(p.lifecycle === undefined ? {} : { lifecycle: p.lifecycle }) }));
        const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' }, spec: { ...(p.replicas === undefined ? {} : { replicas: p.replicas }), selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { ...(p.grace === undefined ? {} : { terminationGracePeriodSeconds: p.grace }), containers } } } };
        const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'ns' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
        const lines = jsyaml.dump(deploy, { indent: p.indent, noArrayIndent: p.noArrayIndent }).split('\n');
        for (const [at, indent] of p.comments) lines.splice(1 + (at % (lines.length - 1)), 0, `${' '.repeat(indent)}# note`);
        const text = `${lines.join('\n')}---\n${jsyaml.dump(svc, { indent: p.indent })}`;
        const opts = { rules: ALL_RULES, policy, version, proposals, verifyPiecewise: true };
        const withSplices = fixSources([{ file: 'f.yaml', text }], opts);
        const withDocuments = fixSources([{ file: 'f.yaml', text }], { ...opts, textSplice: false });
        expect(view(withSplices)).toEqual(view(withDocuments));
        expect(withDocuments.work.documentsSpliced).toBe(0);
        spliced += withSplices.work.documentsSpliced;
      }),
      { numRuns: Math.max(20, Math.floor(RUNS / 4)), seed: SEED },
    );
    // (`lifecycle: {}` and `lifecycle: null` take the Document route: about half the layouts; and
    // a grace period of 0 is repaired in one pass with its hooks, so a document is spliced once.)
    expect(spliced).toBeGreaterThan(Math.max(20, Math.floor(RUNS / 4)) / 10);
  });
});
