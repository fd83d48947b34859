/**
 * Differential test of the JSON fast path (lib/model/fast-json.ts) against the position-keeping
 * path (lib/model/parse.ts, which reads YAML and JSON as Kubernetes does): over the corpus objects
 * written as JSON in several layouts, and over generated and hostile JSON, the fast path either
 * declines (and parse.ts is used) or gives the same values, the same positions for every pointer,
 * the same errors and the same findings.
 */
import * as fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources, runRules, sortFindings } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { keyBound, parseJsonFast, parseJsonListBytes, parseJsonListFile, ParsedObjects, textKeyCount } from '../../lib/model/fast-json';
import { collectSources, streamedFile, utf8Bytes, utf8Source } from '../../lib/model/sources';
import * as os from 'os';
import { parseText } from '../../lib/model/parse';
import { Json } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { expectEqual } from '../helpers/equal';
import { locatedAt, pointers, view } from '../helpers/parse-compare';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.31') };

/**
 * 'declined', or 'same' after asserting that both paths agree on everything. A List is also read
 * from its bytes (parseJsonListBytes); it may decline where parseJsonFast reads, never the reverse
 * (both make the same checks), and must agree with parse.ts wherever it reads.
 */
function compare(text: string, file = 'in.json', findings = true): 'declined' | 'same' {
  const fromBytes = parseJsonListBytes(file, Buffer.from(text, 'utf8'));
  const fast = parseJsonFast(file, text);
  if (!fast) {
    expect(fromBytes).toBeUndefined();
    return 'declined';
  }
  const slow = parseText(file, text);
  if (fromBytes) {
    listRead++;
    agree(fromBytes, slow, file, findings);
  }
  agree(fast, slow, file, findings);
  return 'same';
}

/** How many inputs the bytes path read (the tests check it is exercised). */
let listRead = 0;

function agree(fast: ParsedObjects, slow: ParsedObjects, file: string, findings: boolean): void {
  expectEqual(fast.errors, slow.errors);
  expect(fast.documents).toBe(slow.documents);
  expectEqual(fast.objects.map(view), slow.objects.map(view));
  fast.objects.forEach((f, i) => {
    const s = slow.objects[i];
    expectEqual(f.raw, s.raw);
    // Every pointer of the first objects (the findings below check the reported ones of all).
    if (i < 12) {
      const ps = pointers(s.raw);
      expectEqual(locatedAt(f, ps), locatedAt(s, ps));
    }
  });
  if (findings) {
    const a = sortFindings(runRules(fast.objects, OPTS), [file]);
    const b = sortFindings(runRules(slow.objects, OPTS), [file]);
    expectEqual(a, b);
    expectEqual(a.map((f) => [f.line, f.column]), b.map((f) => [f.line, f.column]));
  }
}

/** A value and everything in it frozen (a test that changed a shared corpus object would throw). */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

const parsedCorpus = new Map<string, Json[]>();
/**
 * The objects of a corpus file as parse.ts reads them, parsed once for the three tests that write
 * them as JSON (each parse of the whole corpus with `yaml` cost ~1.2 s), frozen.
 */
function corpusObjects(f: string): Json[] {
  let objects = parsedCorpus.get(f);
  if (!objects) {
    objects = deepFreeze(parseText(f, fs.readFileSync(path.join(CORPUS, f), 'utf8')).objects.map((o) => o.raw));
    parsedCorpus.set(f, objects);
  }
  return objects;
}

describe('JSON fast path agrees with parse.ts', () => {
  const files = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.yaml')).sort();
  test.each(files)('corpus %s as JSON: one file per object, pretty and compact, and one kind: List', (f) => {
    const objects = corpusObjects(f);
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects.slice(0, 8)) {
      expect(compare(JSON.stringify(o, null, 2), 'o.json', false)).toBe('same');
      expect(compare(JSON.stringify(o), 'o.json', false)).toBe('same');
    }
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
    const before = listRead;
    expect(compare(JSON.stringify(list, null, 4), `${f}.json`)).toBe('same');
    // kubectl's layout is read from the bytes (CRLF, below, is declined there by design).
    expect(listRead).toBe(before + 1);
    expect(compare(`\uFEFF${JSON.stringify(list, null, '\t').replace(/\n/g, '\r\n')}\n`, `${f}.json`)).toBe('same');
  });

  test('the whole lint gives the same findings through either path', () => {
    const objects = files.flatMap(corpusObjects);
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2);
    const viaFast = lintSources([{ file: 'all.json', text }], OPTS);
    const slow = parseText('all.json', text);
    expect(viaFast.objects).toBe(slow.objects.length);
    expect(viaFast.findings).toEqual(sortFindings(runRules(slow.objects, OPTS), ['all.json']));
    expect(viaFast.findings.length).toBeGreaterThan(100);
    // A file read from disk: its List is read from the bytes, and its text is never decoded.
    const src = utf8Source('all.json', Buffer.from(text, 'utf8'));
    const viaBytes = lintSources([src], OPTS);
    expect(viaBytes.parsed[0].objects[0].constructor.name).toBe('JsonItemView');
    expect(Object.getOwnPropertyDescriptor(src, 'text')?.get).toBeDefined();
    expect(viaBytes.findings).toEqual(viaFast.findings);
  });

  /** The text written to a temporary file, read in chunks of `chunk` bytes (tiny chunks: every cut falls across them). */
  function fromFile(text: string, chunk: number, name = 'l.json') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-chunks-'));
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    const st = fs.statSync(p);
    return { p, dir, parsed: parseJsonListFile(name, { path: p, size: st.size, mtimeMs: st.mtimeMs }, chunk) };
  }

  test('a List read in chunks from its file: the same as from its bytes and as parse.ts, positions read again from the file', () => {
    const objects = files.flatMap(corpusObjects);
    const items = [...objects, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'é😀' }, data: { 'k😀': 'ü\n"x"' } }];
    for (const [indent, chunk] of [[4, 7], [2, 64], ['\t', 1000], [1, 1 << 20]] as const) {
      const text = `\uFEFF${JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } }, null, indent)}\n`;
      const { parsed, dir } = fromFile(text, chunk);
      const slow = parseText('l.json', text);
      expect(parsed).toBeDefined();
      agree(parsed!, slow, 'l.json', indent === 2);
      fs.rmSync(dir, { recursive: true });
    }
  });

  test('a List read in chunks: positions fall back to the item when the file changed after it was read', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: 'y' } }] }, null, 2);
    const { parsed, p, dir } = fromFile(text, 16);
    const o = parsed!.objects[0];
    expect(o.locate('/data/x')).toEqual(parseText('l.json', text).objects[0].locate('/data/x'));
    fs.writeFileSync(p, text.replace('"y"', '"yy"'));
    fs.utimesSync(p, new Date(), new Date(Date.now() + 5000));
    // (The one item read last is cached: another item's text would be read again.)
    const again = parseJsonListFile('l.json', { path: p, size: fs.statSync(p).size - 1, mtimeMs: 0 }, 16);
    expect(again).toBeUndefined();
    const view = fromFile(text, 16);
    fs.appendFileSync(view.p, ' ');
    expect(view.parsed!.objects[0].locate('/data/x')).toEqual({ line: view.parsed!.objects[0].line, column: view.parsed!.objects[0].column });
    fs.rmSync(dir, { recursive: true });
    fs.rmSync(view.dir, { recursive: true });
  });

  test.each([
    ['compact JSON', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }] })],
    ['a CR', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }] }, null, 2).replace(/\n/g, '\r\n')],
    ['an object that is not a List', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', items: [{ a: 1 }] }, null, 2)],
    ['a duplicate key in an item', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "kind": "Secret", "metadata": {"name": "a"}\n  }\n]}'],
    ['YAML', 'apiVersion: v1\nkind: List\nitems: []\n'],
  ])('a List read in chunks declines %s (the whole text is read instead)', (_name, text) => {
    const { parsed, dir } = fromFile(text, 8);
    expect(parsed).toBeUndefined();
    fs.rmSync(dir, { recursive: true });
  });

  test('collectSources keeps a large file on disk for the plain lint only, and only when it is UTF-8 without NUL', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-stream-'));
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] } } } }] }, null, 4);
    fs.writeFileSync(path.join(dir, 'a.json'), list);
    fs.writeFileSync(path.join(dir, 'b.json'), Buffer.concat([Buffer.from(list.slice(0, 40)), Buffer.from([0xe9]), Buffer.from(list.slice(40))]));
    fs.writeFileSync(path.join(dir, 'c.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n');
    const streamed = collectSources([dir], { stream: true, streamFrom: 10 });
    const [a, b, c] = ['a.json', 'b.json', 'c.yaml'].map((n) => streamed.sources.find((s) => s.file.endsWith(n)));
    expect(streamedFile(a!)).toBeDefined();
    expect(a!.bytes).toBeUndefined();
    expect(streamedFile(b!)).toBeUndefined(); // not UTF-8: read whole, and reported
    expect(streamed.errors.map((e) => e.file)).toEqual([expect.stringMatching(/b\.json$/)]);
    expect(streamedFile(c!)?.json).toBe(false); // YAML: read in chunks too (fast-yaml.test.ts)
    const whole = collectSources([path.join(dir, 'a.json')], {});
    expect(streamedFile(whole.sources[0])).toBeUndefined();
    // The same lint either way.
    const viaFile = lintSources([a!], OPTS);
    expect(viaFile.parsed[0].objects[0].constructor.name).toBe('JsonItemView');
    expect(viaFile.findings).toEqual(lintSources(whole.sources, OPTS).findings);
    expect(viaFile.findings.length).toBeGreaterThan(0);
    expect(a!.text).toBe(list);
    fs.rmSync(dir, { recursive: true });
  });

  test('collectSources checks UTF-8 across its reading chunks (a character split by the 8 MiB boundary)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-stream-'));
    const head = '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "';
    const fill = 'a'.repeat(8 * 1024 * 1024 - Buffer.byteLength(head) - 1);
    const text = `${head}${fill}😀"}\n  }\n]}`;
    fs.writeFileSync(path.join(dir, 'big.json'), text);
    const r = collectSources([dir], { stream: true, streamFrom: 10 });
    expect(r.errors).toEqual([]);
    expect(streamedFile(r.sources[0])).toBeDefined();
    expect((lintSources(r.sources, OPTS).parsed[0].objects[0].raw.data as Record<string, string>).x.endsWith('a😀')).toBe(true);
    // The same file with the emoji's last byte missing is not UTF-8.
    const bad = Buffer.from(text);
    const at = bad.indexOf(Buffer.from('😀'));
    fs.writeFileSync(path.join(dir, 'big.json'), Buffer.concat([bad.subarray(0, at + 3), bad.subarray(at + 4)]));
    const r2 = collectSources([dir], { stream: true, streamFrom: 10 });
    expect(r2.sources.every((s) => !streamedFile(s))).toBe(true);
    expect(r2.errors.length).toBe(1);
    fs.rmSync(dir, { recursive: true });
  });

  test('the bytes are read instead of the text only while the text is theirs', () => {
    const bytes = Buffer.from('{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}\n  }\n]}', 'utf8');
    const src = utf8Source('a.json', bytes);
    expect(utf8Bytes(src)).toBe(bytes);
    expect(src.text).toBe(bytes.toString('utf8'));
    expect(utf8Bytes(src)).toBe(bytes);
    // --fix hands the lint copies with the fixed text: those are read from the text.
    const copy = { ...src, text: '{"apiVersion": "v1", "kind": "List", "items": []}' };
    expect(utf8Bytes(copy)).toBeUndefined();
    expect(lintSources([copy], OPTS).objects).toBe(0);
    src.text = copy.text;
    expect(utf8Bytes(src)).toBeUndefined();
    expect(lintSources([src], OPTS).objects).toBe(0);
  });

  test('a List read from the bytes: non-ASCII items, tabs, and positions in UTF-16 columns', () => {
    const items = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'é', annotations: { 'a/é😀': 'x\u2028y' } }, data: { k: '😀😀 "quoted" \n', 'ü': 'é' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { template: { spec: { containers: [{ name: 'c😀', image: 'x', ports: [{ containerPort: 80 }] }] } } } },
    ];
    for (const indent of [1, 2, 4, '\t']) {
      const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } }, null, indent);
      const before = listRead;
      expect(compare(text, 'u.json')).toBe('same');
      expect(listRead).toBe(before + 1);
    }
    // A BOM before the List.
    expect(compare(`\uFEFF${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2)}`, 'b.json')).toBe('same');
  });

  test.each([
    ['a nested object closing at the items\' indentation', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {\n  }, "x": 1\n  },\n  {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}\n  }\n]}'],
    ['two items on one line', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}\n  }\n]}'],
    ['an item of another indentation', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}\n  },\n    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}\n    }\n]}'],
    ['a string holding an escaped line feed and a brace', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "\\n  },\\n  {"}\n  }\n]}'],
    ['a second items member', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}\n  }\n], "items": []}'],
    ['a duplicate key in an item', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "kind": "Secret", "metadata": {"name": "a"}\n  }\n]}'],
    ['an integer -0 in an item', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "x": -0\n  }\n]}'],
    ['a null item', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}\n  },\n  null\n]}'],
    ['an object with items that is not a List', '{"apiVersion": "v1", "kind": "ConfigMap", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}\n  }\n]}'],
    ['an empty List', '{"apiVersion": "v1", "kind": "List", "items": []}'],
    ['trailing text', '{"apiVersion": "v1", "kind": "List", "items": [\n  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}\n  }\n]} x'],
  ])('a List read from the bytes agrees with parse.ts, or declines: %s', (_name, text) => {
    compare(text, 'h.json');
    const slow = (() => {
      try {
        return parseText('h.json', text);
      } catch {
        return undefined;
      }
    })();
    const fromBytes = parseJsonListBytes('h.json', Buffer.from(text, 'utf8'));
    if (fromBytes && slow) expect(fromBytes.objects.map((o) => o.raw)).toEqual(slow.objects.map((o) => o.raw));
    if (fromBytes) expect(fromBytes.errors).toEqual([]);
  });

  test('generated Lists of objects in every layout: read from the bytes exactly as parse.ts reads them', () => {
    const obj = fc.record({ apiVersion: fc.constantFrom('v1', 'apps/v1'), kind: fc.constantFrom('Deployment', 'Service', 'ConfigMap'), metadata: fc.record({ name: fc.string({ minLength: 1, maxLength: 5 }), namespace: fc.string({ maxLength: 3 }) }), spec: value, data: fc.dictionary(key, fc.string({ maxLength: 12 }), { maxKeys: 3 }) });
    const before = listRead;
    fc.assert(
      fc.property(fc.array(obj, { maxLength: 5 }), fc.constantFrom<string | number>(1, 2, 4, '\t', '   '), (items, indent) => {
        compare(JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items }, null, indent), 'gl.json', false);
      }),
      { numRuns: 200, seed: 1616 },
    );
    expect(listRead - before).toBeGreaterThan(100);
  });

  const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('apiVersion', 'kind', 'metadata', 'name', 'spec', 'items', '<<', '__proto__', 'a/b', 'c~d', 'yes', '010', 'é"\\'));
  const scalar = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(true, false, null, 0, -0, 1e21, 1e-7, 2 ** 53 + 1, 'yes', 'off', '010', '\u2028', '\ud800'),
  );
  const value: fc.Arbitrary<Json> = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, scalar as fc.Arbitrary<Json>, fc.array(tie('v'), { maxLength: 4 }) as fc.Arbitrary<Json>, fc.dictionary(key, tie('v'), { maxKeys: 4 }) as fc.Arbitrary<Json>),
  })).v;
  const k8s = fc.record({ apiVersion: fc.constantFrom('v1', 'apps/v1'), kind: fc.constantFrom('Deployment', 'Service', 'ConfigMap', 'List'), metadata: fc.record({ name: fc.string({ minLength: 1, maxLength: 5 }) }), spec: value, items: fc.array(value, { maxLength: 3 }) });
  const layout = fc.constantFrom<(v: unknown) => string>(
    (v) => JSON.stringify(v),
    (v) => JSON.stringify(v, null, 2),
    (v) => JSON.stringify(v, null, '\t'),
    (v) => ` \n${JSON.stringify(v, null, 1).replace(/\n/g, '\r\n')}\n\n`,
  );

  test('generated objects and values: same result, or declined', () => {
    let same = 0;
    fc.assert(
      fc.property(k8s, layout, (v, show) => {
        if (compare(show(v), 'g.json', false) === 'same') same++;
      }),
      { numRuns: 300, seed: 16 },
    );
    expect(same).toBeGreaterThan(200);
  });

  test.each([
    ['duplicate keys (parse.ts reports them)', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "name": "b"}}'],
    ['integer -0 (go-yaml reads 0)', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": -0}}'],
    ['float overflow (go-yaml keeps the text)', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "x": 1e400}'],
    ['a key over the 1024-character implicit-key limit', `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "${'k'.repeat(1100)}": 1}`],
    ['nesting deeper than 128', `{"apiVersion": "v1", "kind": "ConfigMap", "x": ${'['.repeat(200)}${']'.repeat(200)}}`],
    ['two JSON texts', '{"apiVersion": "v1", "kind": "ConfigMap"}\n{"apiVersion": "v1", "kind": "Secret"}'],
    ['YAML that starts like JSON', '{apiVersion: v1, kind: ConfigMap}'],
    ['a lone CR line break', '{"apiVersion": "v1",\r"kind": "ConfigMap"}'],
    ['an array with a duplicate key', '[{"apiVersion": "v1", "kind": "ConfigMap", "kind": "Secret"}]'],
    // Keys are counted in the text and in the parsed value: strings that look like keys must not
    // make up for a duplicate.
    ['a duplicate key beside a string value starting with a colon', '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": ":x", "b": "1", "b": "2"}}'],
    ['a duplicate key beside an escaped quote before a colon', '{"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "x\\":y", "b": "1", "b": "2"}}'],
    ['a duplicate key in a List item', '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "kind": "ConfigMap"}]}'],
    ['a key over the limit once its escapes are counted', `{"apiVersion": "v1", "kind": "ConfigMap", "${'\\u0041'.repeat(200)}": 1}`],
    ['the integer -0 in an array', '{"apiVersion": "v1", "kind": "ConfigMap", "x": [1,-0]}'],
  ])('declines %s', (_name, text) => {
    expect(parseJsonFast('x.json', text)).toBeUndefined();
  });

  test.each([['[{"apiVersion": "v1", "kind": "ConfigMap"}]'], ['  [1, 2]'], ['[]'], ['[{"a": 1}, {"kind": "Pod", "apiVersion": "v1"}]']])('an array (%s): no object, and the error parse.ts reports when it holds objects', (text) => {
    const fast = parseJsonFast('x.json', text)!;
    expect(fast).toBeDefined();
    agree(fast, parseText('x.json', text), 'x.json', false);
  });

  test('colons and escaped quotes inside strings are not keys', () => {
    expect(compare('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"a": ":x", "b": "x\\":y", "c": "\\\\", "d": ": \\" :"}}')).toBe('same');
    expect(compare('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "-0", "y": "a-0"}, "z": -0.0}')).toBe('same');
  });

  test('escaped keys and strings, unicode, and -0.0 are read alike', () => {
    expect(compare('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a\\u00e9\\/b", "n\\"x": 1}, "data": {"k\\\\": "\\ud83d\\ude00\\n", "z": -0.0, "big": 123456789012345678901234567890, "e": 1.5E+300}}')).toBe('same');
  });
  // Duplicate keys are found by counting keys in the text against the parsed value: first with a
  // cheap upper bound of the text's keys (keyBound), then, where it does not prove the counts
  // equal or a key may be over the length limit, with the exact count (textKeyCount).
  const CM = (data: string) => `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": ${data}}`;

  test.each([
    ['a duplicate written with an escape', CM('{"k": "1", "\\u006b": "2"}')],
    ['a duplicate with blanks and a line feed before its colon', CM('{"k" : "1", "k"\t\n:"2"}')],
    ['a duplicate key ending in an escaped backslash', CM('{"a\\\\": 1, "a\\\\"  : 2}')],
    ['a duplicate key holding an escaped quote and a colon', CM('{"x\\":y": 1, "x\\":y": 2}')],
    ['a duplicate beside strings that start with a colon (the bound counts them too)', CM('{"a": ": x", "b": " :", "c": 1, "c": 2}')],
    ['a duplicate in an object inside arrays', CM('{"a": [[{"p": 1}, {"q": 1, "q": 1}]]}')],
    ['a duplicate beside a long key (the exact count runs for the length)', CM(`{"${'k'.repeat(300)}": 1, "d": 1, "d": 2}`)],
    ['a key of 1023 characters between its quotes', CM(`{"${'k'.repeat(1023)}": 1}`)],
    ['a key of 171 escapes (1026 characters, 171 once read)', CM(`{"${'\\u0041'.repeat(171)}": 1}`)],
    ['a key of 170 escapes and 3 characters (1023 characters)', CM(`{"${'\\u0041'.repeat(170)}abc": 1}`)],
  ])('declines %s', (_name, text) => {
    expect(parseJsonFast('x.json', text)).toBeUndefined();
    const list = `{"apiVersion": "v1", "kind": "List", "items": [\n  ${text.replace(/}$/, '\n  }')}\n]}`;
    expect(parseJsonListBytes('x.json', Buffer.from(list))).toBeUndefined();
    const { parsed, dir } = fromFile(list, 5);
    expect(parsed).toBeUndefined();
    fs.rmSync(dir, { recursive: true });
  });

  test.each([
    ['JSON in a string (escaped quotes before colons, a key written twice)', CM('{"last-applied": "{\\"a\\":1,\\"a\\" :2}", "b": "x\\\\\\":y"}')],
    ['strings that start with a colon (the bound is too high: the exact count decides)', CM('{"a": ": x", "b": " :", "c": "\\" :"}')],
    ['keys with blanks before their colon, escaped quotes, backslashes and colons', CM('{"a" :1, "b"\n\t: 2, "x\\":y": 3, "\\\\": 4, "\\\\\\"": 5, ":": 6, "é😀": 7}')],
    ['a key of 1022 characters between its quotes', CM(`{"${'k'.repeat(1022)}": 1}`)],
    ['a key of 170 escapes (1020 characters)', CM(`{"${'\\u0041'.repeat(170)}": 1}`)],
    ['a key of 170 escapes and 2 characters (1022 characters, 172 once read)', CM(`{"${'\\u0041'.repeat(170)}ab": 1}`)],
  ])('reads %s as parse.ts does', (_name, text) => {
    expect(compare(text)).toBe('same');
    const list = `{"apiVersion": "v1", "kind": "List", "items": [\n  ${text.replace(/}$/, '\n  }')}\n]}`;
    const before = listRead;
    expect(compare(list)).toBe('same');
    expect(listRead).toBe(before + 1);
    const { parsed, dir } = fromFile(list, 5);
    expect(parsed?.objects.map((o) => o.raw)).toEqual(parseText('l.json', list).objects.map((o) => o.raw));
    fs.rmSync(dir, { recursive: true });
  });

  test('keyBound is the exact count of keys plus the strings that start with a colon (blanks apart)', () => {
    const tricky = fc.constantFrom('', ':', ' :', '\t:x', '":', '\\":', '" :', 'a\\', '\\\\', '{"a":1}', 'é😀', '\n:');
    /** JSON with `blank` between every key and its colon. */
    const write = (v: unknown, blank: string): string => {
      if (Array.isArray(v)) return `[${v.map((x) => write(x, blank)).join(', ')}]`;
      if (typeof v === 'object' && v !== null) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}${blank}: ${write(x, blank)}`).join(',\n')}}`;
      return JSON.stringify(v);
    };
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.flatMap(strings) : typeof v === 'object' && v !== null ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]) : typeof v === 'string' ? [v] : [];
    let over = 0;
    fc.assert(
      fc.property(value, fc.dictionary(tricky, tricky, { maxKeys: 3 }), fc.constantFrom('', ' ', '\t', '\n  '), (v, extra, blank) => {
        const o = { v, extra };
        const t = write(o, blank);
        const colonFirst = strings(o).filter((x) => /^[ \t]*:/.test(JSON.stringify(x).slice(1))).length;
        over += colonFirst;
        expect(keyBound(t, 0, t.length)).toBe(textKeyCount(t) + colonFirst);
        // Bounds over parts add up: a colon is counted where it is.
        const half = t.length >> 1;
        expect(keyBound(t, 0, half) + keyBound(t, half, t.length)).toBe(keyBound(t, 0, t.length));
      }),
      { numRuns: 300, seed: 1617 },
    );
    expect(over).toBeGreaterThan(50);
  });

  /** An object whose keys are written in several ways (escapes, blanks before the colon), some twice. */
  interface Written {
    entries: Array<{ key: string; escape: boolean; blank: string; again: boolean; value: Written | string | number }>;
  }
  const tricky = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('k', 'x":y', 'a\\', '\\', ':', ' :', '"', 'é', '😀', '__proto__', ': x', '\\":', '{"a":1,"a":2}'));
  const written: fc.Arbitrary<Written> = fc.letrec((tie) => ({
    o: fc.record({
      entries: fc.array(
        fc.record({ key: tricky, escape: fc.boolean(), blank: fc.constantFrom('', ' ', '\t', '\n'), again: fc.boolean(), value: fc.oneof({ depthSize: 'small' }, tricky, fc.nat(), tie('o') as fc.Arbitrary<Written>) }),
        { maxLength: 4 },
      ),
    }),
  })).o as fc.Arbitrary<Written>;
  /** The text, and whether some object has a key twice. */
  function write(o: Written): { text: string; twice: boolean } {
    const seen = new Set<string>();
    let twice = false;
    const parts = o.entries.map((e, i) => {
      // `again`: the key of the entry before, written in this entry's way.
      const key = e.again && i > 0 ? o.entries[i - 1].key : e.key;
      if (seen.has(key)) twice = true;
      seen.add(key);
      const k = e.escape ? `"${[...key].map((c) => c.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"` : JSON.stringify(key);
      let v: string;
      if (typeof e.value === 'object') {
        const inner = write(e.value);
        twice ||= inner.twice;
        v = inner.text;
      } else v = JSON.stringify(e.value);
      return `${k}${e.blank}: ${v}`;
    });
    return { text: `{${parts.join(', ')}}`, twice };
  }

  test('generated keys written twice in every way are declined, and all others read (text, bytes and chunks)', () => {
    let declined = 0;
    let read = 0;
    fc.assert(
      fc.property(written, (o) => {
        const { text: data, twice } = write(o);
        const text = CM(data);
        const list = `{"apiVersion": "v1", "kind": "List", "items": [\n  ${text.replace(/}$/, '\n  }')}\n]}`;
        if (twice) {
          declined++;
          expect(parseJsonFast('x.json', text)).toBeUndefined();
          expect(parseJsonListBytes('x.json', Buffer.from(list))).toBeUndefined();
        } else {
          read++;
          expect(compare(text, 'x.json', false)).toBe('same');
          expect(compare(list, 'x.json', false)).toBe('same');
          expect(parseJsonListBytes('x.json', Buffer.from(list))).toBeDefined();
        }
      }),
      { numRuns: 400, seed: 1618 },
    );
    expect(declined).toBeGreaterThan(50);
    expect(read).toBeGreaterThan(50);
  });
  test('a List read in chunks of every size from 1 byte: the same objects and positions as from its bytes', () => {
    const items = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'é' }, data: { 'k😀': 'ü\n"x" :', 'j': '{"a": 1}' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'n' }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'x:1', ports: [{ containerPort: 80 }] }] } } } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } },
    ];
    for (const [bom, indent] of [['', 2], ['\uFEFF', '\t']] as const) {
      const text = `${bom}${JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items }, null, indent)}\n`;
      const bytes = parseJsonListBytes('l.json', Buffer.from(text, 'utf8'))!;
      expect(bytes).toBeDefined();
      agree(bytes, parseText('l.json', text), 'l.json', false);
      const ps = bytes.objects.map((o) => pointers(o.raw));
      const expected = { raw: bytes.objects.map((o) => o.raw), views: bytes.objects.map(view), at: bytes.objects.map((o, i) => locatedAt(o, ps[i])) };
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-chunks-'));
      const p = path.join(dir, 'l.json');
      fs.writeFileSync(p, text);
      const st = fs.statSync(p);
      for (let chunk = 1; chunk <= Buffer.byteLength(text) + 1; chunk++) {
        const parsed = parseJsonListFile('l.json', { path: p, size: st.size, mtimeMs: st.mtimeMs }, chunk);
        expect(parsed).toBeDefined();
        const got = { raw: parsed!.objects.map((o) => o.raw), views: parsed!.objects.map(view), at: parsed!.objects.map((o, i) => locatedAt(o, ps[i])) };
        if (JSON.stringify(got) !== JSON.stringify(expected)) expectEqual({ chunk, ...got }, { chunk, ...expected });
      }
      // A CR anywhere, in any chunk: declined.
      fs.writeFileSync(p, `${text.slice(0, -1)}\r\n`);
      const cr = fs.statSync(p);
      for (const chunk of [1, 2, 3, 64, 1 << 20]) expect(parseJsonListFile('l.json', { path: p, size: cr.size, mtimeMs: cr.mtimeMs }, chunk)).toBeUndefined();
      fs.rmSync(dir, { recursive: true });
    }
  });

  test('a List read in chunks: an item and a prefix many chunks long (the reading buffer grows)', () => {
    const big = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, `v${i}`.repeat(i % 7)])) };
    const small = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } };
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '', annotations: { long: 'x'.repeat(5000) } }, items: [small, big, small, big, small] };
    const text = JSON.stringify(list, null, 4);
    const slow = parseText('l.json', text);
    for (const chunk of [5, 100, 1000]) {
      const { parsed, dir } = fromFile(text, chunk);
      expect(parsed).toBeDefined();
      agree(parsed!, slow, 'l.json', false);
      fs.rmSync(dir, { recursive: true });
    }
  });
  test('positions inside a List item asked for in any order: pointers sharing prefixes, empty keys, ~ and / in keys, missing members', () => {
    const item = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { '': { '': [1, { '': 2 }] }, a: { b: 5, '~1': 6, '1b': 7 }, 'a/b': { '~1': 'x', '~': ['y'] }, 'a~1b': 3, '~': { '1b': 8 }, '\\': { '"': 4 } }, spec: { template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } } } };
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [item, item] }, null, 2);
    const slow = parseText('m.json', text).objects;
    const ps = pointers(item as unknown as Json);
    expect(ps.length).toBeGreaterThan(40);
    const orders = [ps, [...ps].reverse(), ps.map((p, i) => ps[(i * 7) % ps.length]), ps.flatMap((p) => [p, '/spec/template', p])];
    const { parsed, dir } = fromFile(text, 64);
    for (const fast of [parseJsonListBytes('m.json', Buffer.from(text))!, parsed!]) {
      for (const order of orders) {
        for (const k of [0, 1]) expectEqual(locatedAt(fast.objects[k], order), locatedAt(slow[k], order));
      }
    }
    fs.rmSync(dir, { recursive: true });
  });
});
