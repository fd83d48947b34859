/**
 * Differential test of the YAML fast path (lib/model/fast-yaml.ts: js-yaml values, positions
 * from `yaml` on demand) against the position-keeping path (lib/model/parse.ts, which reads YAML
 * as Kubernetes does): over every YAML file of the shared corpus, the test fixtures, the fuzz
 * suite's mutated manifests and token soups, and YAML 1.1 corner cases, the fast path either
 * declines (and parse.ts is used) or gives the same documents, objects, values, positions for
 * every pointer, input errors and findings.
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as jsyaml from 'js-yaml';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources, runRules, sortFindings } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { parseYamlBytes, parseYamlFast, parseYamlFile } from '../../lib/model/fast-yaml';
import { checkFieldTypes } from '../../lib/model/field-types';
import { MAX_DEPTH, parseText } from '../../lib/model/parse';
import { Json } from '../../lib/model/types';
import { collectSources, streamedFile, utf8Source } from '../../lib/model/sources';
import * as os from 'os';
import * as v8 from 'v8';
import * as vm from 'vm';
import type { ParsedObjects } from '../../lib/model/fast-json';
import { TextLocator, UNSURE } from '../../lib/model/yaml-locate';
import { ALL_RULES } from '../../lib/rules';
import { servedDeployment } from '../helpers/manifests';
import { CORPUS_DIR, mutatedFrom, SEEDS, tokenText, TOKENS } from '../helpers/yaml-inputs';
import { expectEqual } from '../helpers/equal';
import { agreeWith, locatedAt, pointers, view } from '../helpers/parse-compare';

const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.31') };

/** 'declined', or 'same' after asserting that both paths agree on everything. */
/**
 * 'declined', or 'same' after asserting that the fast path agrees with parse.ts on everything.
 * Text that is UTF-8 is also read from its bytes (parseYamlBytes): that declines wherever
 * parseYamlFast does (and on U+2028/9), and agrees with parse.ts wherever it reads.
 */
function compare(text: string, file = 'in.yaml', opts: { findings?: boolean; located?: number } = {}): 'declined' | 'same' {
  const bytes = Buffer.from(text, 'utf8');
  const fromBytes = bytes.toString('utf8') === text && !bytes.includes(0) ? parseYamlBytes(file, bytes) : undefined;
  const fast = parseYamlFast(file, text);
  if (!fast) {
    expect(fromBytes).toBeUndefined();
    return 'declined';
  }
  const slow = parseSlow(file, text);
  if (fromBytes) {
    bytesRead++;
    agree(fromBytes, slow, file, opts);
  }
  agree(fast, slow, file, opts);
  return 'same';
}

/**
 * parse.ts's reading of a text of 10 KB or more, once per file name and text: several tests compare
 * other readings with the same large reference (the corpus files, chunkedText()), and `yaml` is the
 * slow part of this file. parse.ts is deterministic (uids are file#doc+pointer) and the tests only
 * read what it returns. (The corpus's readings hold ~35 MB; the many small inputs are not kept.)
 */
const slowReadings = new Map<string, ParsedObjects>();
function parseSlow(file: string, text: string): ParsedObjects {
  if (text.length < 10_000) return parseText(file, text);
  const key = `${file}\0${text}`;
  let r = slowReadings.get(key);
  if (!r) slowReadings.set(key, (r = parseText(file, text)));
  return r;
}

/** How many inputs parseYamlBytes read (tests check it is exercised). */
let bytesRead = 0;

const agree = (fast: ParsedObjects, slow: ParsedObjects, file: string, opts: { findings?: boolean; located?: number }) => agreeWith(OPTS, fast, slow, file, opts);

function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(dir, f));
}

describe('YAML fast path agrees with parse.ts', () => {
  const rendered = yamlFiles(path.join(CORPUS_DIR, 'rendered'));
  const others = [...yamlFiles(path.join(CORPUS_DIR, 'charts')), ...yamlFiles(path.join(CORPUS_DIR, 'values')), ...yamlFiles(path.resolve(__dirname, '../fixtures'))];

  test('the corpus: every rendered manifest takes the fast path and reads the same, positions read off the text', () => {
    expect(rendered.length).toBeGreaterThan(30);
    const located = jest.spyOn(TextLocator.prototype, 'locate');
    // (Findings: the whole-lint test below.)
    const declined = rendered.filter((f) => compare(fs.readFileSync(f, 'utf8'), path.basename(f), { located: 12, findings: false }) === 'declined');
    // (linkerd's rendered files anchor scalars only; every rendered file is plain YAML 1.1.)
    expect(declined).toEqual([]);
    // Every document of it: no object is read by parse.ts.
    const slow = rendered.flatMap((f) => parseYamlFast(path.basename(f), fs.readFileSync(f, 'utf8'))!.objects.filter((o) => o.constructor.name !== 'YamlObjectView').map((o) => o.uid));
    expect(slow).toEqual([]);
    // The positions compared above came from the text, not from `yaml` parsing the document again.
    const answers = located.mock.results.map((r) => r.value as number);
    located.mockRestore();
    expect(answers.length).toBeGreaterThan(10000);
    expect(answers.filter((a) => a === UNSURE).length).toBeLessThan(answers.length / 100);
  });

  test('files read from their bytes: the corpus, and documents with characters outside ASCII and Latin-1', () => {
    const before = bytesRead;
    for (const f of rendered) compare(fs.readFileSync(f, 'utf8'), path.basename(f), { located: 3, findings: false });
    expect(bytesRead - before).toBe(rendered.length);
    const docs = [
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ascii\ndata:\n  a: b\n',
      '# café, 日本語 😀\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "é😀"\n  annotations: {a: "ü", b: [1,\n    2]}\ndata:\n  k: |\n    line é\n    😀 two\n',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: {x: "😀"}}\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x  # ünïcode\n          ports: [{containerPort: 80}]\n',
    ];
    for (const text of [docs.join('---\n'), `---\n${docs.reverse().join('---\n')}`, `\uFEFF${docs.join('---\n')}`, `${docs[0]}---\n# only é\n---\n${docs[1]}`]) {
      const n = bytesRead;
      expect(compare(text, 'u.yaml', { located: 10 })).toBe('same');
      expect(bytesRead).toBe(n + 1);
    }
  });

  test('the plain lint keeps a YAML file once: its Latin-1 reading instead of its bytes, with the same findings and text', () => {
    const text = rendered.map((f) => fs.readFileSync(f, 'utf8')).join('---\n') + '---\n# é 😀\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "é"\n';
    const kept = utf8Source('all.yaml', Buffer.from(text, 'utf8'));
    const released = utf8Source('all.yaml', Buffer.from(text, 'utf8'));
    const a = lintSources([kept], OPTS);
    const b = lintSources([released], { ...OPTS, releaseBytes: true });
    expect(kept.bytes).toBeDefined();
    expect(released.bytes).toBeUndefined();
    expect(b.findings).toEqual(a.findings);
    expect(b.errors).toEqual(a.errors);
    expect(b.findings.length).toBeGreaterThan(100);
    expect(released.text).toBe(text);
    // A JSON List is read from its bytes, which it keeps for positions.
    const list = utf8Source('l.json', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }] }, null, 2), 'utf8'));
    expect(lintSources([list], { ...OPTS, releaseBytes: true }).objects).toBe(1);
    expect(list.bytes).toBeDefined();
  });

  test('a file read in chunks cut at --- lines: the same objects, positions and findings as parse.ts', () => {
    const text = `\uFEFF# first document has no marker\n${rendered.slice(0, 12).map((f) => fs.readFileSync(f, 'utf8')).join('---\n')}---\n# é 😀\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "é"\n---\n---   \napiVersion: v1\nkind: Secret\nmetadata: {name: s,\n  namespace: x}\n`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-ychunks-'));
    const p = path.join(dir, 'all.yaml');
    fs.writeFileSync(p, text);
    const st = fs.statSync(p);
    const slow = parseSlow('all.yaml', text);
    for (const chunk of [5, 64, 4096, 1 << 20]) {
      const fast = parseYamlFile('all.yaml', { path: p, size: st.size, mtimeMs: st.mtimeMs }, chunk);
      expect(fast).toBeDefined();
      agree(fast!, slow, 'all.yaml', { located: 40, findings: chunk === 64 });
    }
    // The plain lint reads such a file in chunks, with the same findings.
    const streamed = collectSources([p], { stream: true, streamFrom: 10 });
    expect(streamedFile(streamed.sources[0])?.json).toBe(false);
    const a = lintSources(streamed.sources, OPTS);
    expect(a.parsed[0].objects[0].constructor.name).toBe('YamlObjectView');
    expect(a.findings).toEqual(lintSources([{ file: p, text }], OPTS).findings);
    // A document it declines (an anchor on a mapping) is read by parse.ts alone, the others in chunks.
    const withAlias = `${text}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: alias}\na: &x {b: 1}\nc: *x\n`;
    fs.writeFileSync(p, withAlias);
    const st2 = fs.statSync(p);
    const mixed = parseYamlFile('all.yaml', { path: p, size: st2.size, mtimeMs: st2.mtimeMs }, 64)!;
    agree(mixed, parseText('all.yaml', withAlias), 'all.yaml', { located: 40, findings: false });
    expect(mixed.objects.map((o) => o.constructor.name).filter((n) => n !== 'YamlObjectView')).toEqual(['ParsedObject']);
    const declined = collectSources([p], { stream: true, streamFrom: 10 });
    expect(lintSources(declined.sources, OPTS).findings).toEqual(lintSources([{ file: p, text: withAlias }], OPTS).findings);
    // A file that changed since it was checked is read whole.
    expect(parseYamlFile('all.yaml', { path: p, size: st.size, mtimeMs: st.mtimeMs }, 64)).toBeUndefined();
    fs.rmSync(dir, { recursive: true });
  });

  /** A file of documents that exercises the chunked reader's positions: non-ASCII, Lists, layouts only `yaml` locates. */
  const chunkedText = () =>
    `\uFEFF# first document has no marker\n${rendered.slice(0, 6).map((f) => fs.readFileSync(f, 'utf8')).join('---\n')}---\n# é 😀\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "é"\n  labels: {app: "ünïcode-value-é-😀", x: y}\ndata:\n  k: |\n    line é\n    😀 two\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: "item-é", namespace: long-namespace-name}\n-   apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: item-deployment\n    spec: {replicas: 010, template: {spec: {containers: [{name: c, image: "registry.example/app:1.2.3"}]}}}\n---   \napiVersion: v1\nkind: Secret\nmetadata: {name: s,\n  namespace: x}\nstringData:\n  one-line-literal: |-\n    a single line of text\n  quoted: 'it''s a longer quoted value'\n`;

  /** `text` written to a fresh file: its path and stamp. */
  function written(text: string): { p: string; stamp: { path: string; size: number; mtimeMs: number }; done: () => void } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-yreread-'));
    const p = path.join(dir, 'all.yaml');
    fs.writeFileSync(p, text);
    const st = fs.statSync(p);
    return { p, stamp: { path: p, size: st.size, mtimeMs: st.mtimeMs }, done: () => fs.rmSync(dir, { recursive: true }) };
  }

  test('a file read in chunks keeps no text: positions are read again from the file, in blocks of any size, in any order', () => {
    const text = chunkedText();
    const f = written(text);
    const slow = parseSlow('all.yaml', text);
    expect(slow.objects.length).toBeGreaterThan(50);
    for (const [chunk, ahead] of [
      [5, 1],
      [64, 100],
      [4096, 3000],
      [1 << 20, 1 << 20],
    ]) {
      const fast = parseYamlFile('all.yaml', f.stamp, chunk, undefined, ahead)!;
      expect(fast).toBeDefined();
      // Every pointer of every object (positions in input order, as the lint asks them).
      agree(fast, slow, 'all.yaml', { located: slow.objects.length, findings: chunk === 64 });
      // Asked for in the reverse order, and for List items before anything else: the same.
      const again = parseYamlFile('all.yaml', f.stamp, chunk, undefined, ahead)!;
      for (let i = again.objects.length - 1; i >= 0; i -= 3) {
        const ps = pointers(slow.objects[i].raw).slice(0, 40);
        expectEqual(locatedAt(again.objects[i], ps), locatedAt(slow.objects[i], ps));
        expectEqual(view(again.objects[i]), view(slow.objects[i]));
      }
    }
    f.done();
  });

  test('a file read in chunks that changed after it was read: each object\'s own position (a List item\'s document\'s)', () => {
    const text = chunkedText();
    const slow = parseSlow('all.yaml', text);
    const list = slow.objects.findIndex((o) => o.basePointer === '/items/1');
    const last = slow.objects.length - 1;
    const deep = (i: number) => pointers(slow.objects[i].raw).slice(-3)[0];
    for (const change of ['size', 'mtime'] as const) {
      const f = written(text);
      // (One document read at a time: a block read before the change would still serve the
      // documents it holds, with the positions of the text that was read.)
      const fast = parseYamlFile('all.yaml', f.stamp, 64, undefined, 1)!;
      // Before the change: read from the file, deeper than the objects' own positions.
      const before = slow.objects[0].locate('/metadata/name');
      expect(fast.objects[0].locate('/metadata/name')).toEqual(before);
      expect(before).not.toEqual({ line: slow.objects[0].line, column: slow.objects[0].column });
      if (change === 'size') fs.appendFileSync(f.p, '# more\n');
      else fs.utimesSync(f.p, new Date(), new Date(f.stamp.mtimeMs + 5000));
      // (The document of object 0 was the last one read: its text is kept.)
      expect(fast.objects[0].locate('/metadata/name')).toEqual(before);
      const root = fast.objects[last];
      expect(root.locate(deep(last))).toEqual({ line: slow.objects[last].line, column: slow.objects[last].column });
      // A List item's own position needs its document's text: the document's position instead.
      const item = fast.objects[list];
      const doc = fast.objects[list - 1];
      expect(slow.objects[list - 1].basePointer).toBe('/items/0');
      expect(item.locate('/spec/replicas')).toEqual({ line: doc.line, column: doc.column });
      expect({ line: item.line, column: item.column }).toEqual({ line: doc.line, column: doc.column });
      expect(doc.line).toBeLessThan(slow.objects[list].line);
      f.done();
    }
  });

  test('a file read in chunks keeps nothing of its text once read (values are copies, positions read again)', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // The corpus (3 MB) in windows of 1.25 MiB, each an external string (Node makes a Latin-1
    // string of over ~1 MB external): V8 makes a string value sliced from a window (13 characters
    // or more) a view of it, and the documents' texts were kept for positions.
    const text = rendered.map((f) => fs.readFileSync(f, 'utf8')).join('---\n');
    const f = written(text);
    /** External memory that is not ArrayBuffers (whose sweeping lags a collection): external strings. */
    const used = () => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.external - m.arrayBuffers;
    };
    const base = used();
    const fast = parseYamlFile('all.yaml', f.stamp, 1.25 * 2 ** 20)!;
    expect(fast.objects.length).toBeGreaterThan(500);
    const held = used() - base;
    // The whole-file path keeps the file's Latin-1 reading (the measure sees it).
    const whole = parseYamlBytes('all.yaml', fs.readFileSync(f.p))!;
    expect(used() - base - held).toBeGreaterThanOrEqual(text.length);
    // Not one window (measured: 40 bytes; 2.6 MB, two windows, when the values are not copies;
    // all of them when the documents' texts were kept).
    expect(held).toBeLessThan(2 ** 20);
    // Values and positions as read whole.
    expectEqual(fast.objects.map((o) => o.raw), whole.objects.map((o) => o.raw));
    for (const i of [0, 100, 400, fast.objects.length - 1]) expectEqual(locatedAt(fast.objects[i], pointers(whole.objects[i].raw)), locatedAt(whole.objects[i], pointers(whole.objects[i].raw)));
    f.done();
  });

  test('a file read in chunks: long one-line values (over 16383 characters) that differ only in the middle, or repeat, read exactly', () => {
    const long = (mid: string) => `${'a'.repeat(9000)}${mid}${'z'.repeat(9000)}`;
    const values = [long('one'), long('two'), long('one'), long('thr'), long('two'), `"${long('q')}"`, long('one')];
    const text = values.map((v, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\ndata:\n  v: ${v}\n  list: [${v}]\n`).join('---\n');
    const f = written(text);
    const slow = parseSlow('all.yaml', text);
    for (const chunk of [64, 1 << 20]) agree(parseYamlFile('all.yaml', f.stamp, chunk)!, slow, 'all.yaml', { findings: false });
    f.done();
  });

  test.each([
    ['a lone CR', 'metadata:\r  name: a\n'],
    ['a tab before the content', '---\t\nmetadata: {name: a}\n'],
    ['an alias of a mapping', 'a: &x {b: 1}\nc: *x\n'],
  ])('a file read in chunks with %s in its last document: that document is read by parse.ts, the rest in chunks, the same', (_name, tail) => {
    const head = chunkedText();
    const text = `${head}---\napiVersion: v1\nkind: ConfigMap\n${tail}`;
    const f = written(text);
    const slow = parseSlow('all.yaml', text);
    for (const chunk of [64, 1 << 20]) {
      const fast = parseYamlFile('all.yaml', f.stamp, chunk)!;
      agree(fast, slow, 'all.yaml', { located: slow.objects.length, findings: chunk === 64 });
      // The documents before it keep the fast path.
      const tailLine = head.split('\n').length;
      expect(fast.objects.filter((o) => o.line < tailLine && o.constructor.name !== 'YamlObjectView').map((o) => o.uid)).toEqual([]);
    }
    f.done();
  });

  test.each([
    ['a %YAML directive', '%YAML 1.1\n---\nmetadata: {name: a}\n'],
    ['a byte-order mark inside', '---\n\uFEFFmetadata: {name: a}\n'],
    ['U+2028', 'metadata: {name: "a\u2028b"}\n'],
  ])('a file read in chunks with %s in its last document declines; the lint reads it whole, with the same findings', (_name, tail) => {
    const head = chunkedText();
    const text = `${head}---\napiVersion: v1\nkind: ConfigMap\n${tail}`;
    const f = written(text);
    for (const chunk of [64, 1 << 20]) expect(parseYamlFile('all.yaml', f.stamp, chunk)).toBeUndefined();
    const streamed = collectSources([f.p], { stream: true, streamFrom: 10 });
    const r = lintSources(streamed.sources, OPTS);
    expect(r.findings).toEqual(lintSources([{ file: f.p, text }], OPTS).findings);
    expect(r.findings.length).toBeGreaterThan(5);
    f.done();
  });

  test('a document read from the bytes hands --fix its offset in the whole text', () => {
    // The third document is not simple (a flow mapping over two lines): its position comes
    // from `yaml`, whose document --fix then takes, with the offset it starts at in the text.
    const text = '# é 😀\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "😀"}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b,\n  namespace: c}\n';
    const p = parseYamlBytes('o.yaml', Buffer.from(text, 'utf8'))!;
    const o = p.objects[2] as ParsedObjects['objects'][number] & { takeDocument(): { start: number } | undefined };
    expect(o.locate('/metadata/namespace')).toEqual(parseText('o.yaml', text).objects[2].locate('/metadata/namespace'));
    const taken = o.takeDocument()!;
    expect(taken.start).toBe(text.indexOf('---\napiVersion: v1\nkind: Secret'));
  });

  test.each([
    ['U+2028', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "a\u2028b"\n'],
    ['U+2029', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "a\u2029b"\n'],
    ['a byte-order mark inside', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\uFEFFapiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n'],
  ])('read from the bytes: declines a text with %s (the text is read instead)', (_name, text) => {
    expect(parseYamlBytes('d.yaml', Buffer.from(text, 'utf8'))).toBeUndefined();
    compare(text, 'd.yaml');
  });

  test('a quoted "null" key (the name js-yaml gives an empty key): declined by js-yaml\'s reading, read as the string by quick-yaml', () => {
    const text = cm('data:\n  "null": a');
    expect(compare(text)).toBe('same');
    expect(parseYamlFast('x.yaml', text)!.objects[0].raw.data).toEqual({ null: 'a' });
    // In a layout quick-yaml leaves to js-yaml, the key is still declined: parse.ts reads that document.
    const flow = parseYamlFast('x.yaml', cm('data: {"null": a}'))!;
    expect(flow.objects.map((o) => [o.constructor.name, o.raw.data])).toEqual([['ParsedObject', { null: 'a' }]]);
  });

  test('chart files, values files and fixtures: the same, or declined', () => {
    let same = 0;
    for (const f of others) if (compare(fs.readFileSync(f, 'utf8'), path.basename(f)) === 'same') same++;
    // Chart templates are Go templates (not YAML): js-yaml refuses most of them.
    expect(same).toBeGreaterThan(20);
  });

  test('the whole lint over the corpus gives the same findings and errors through either path', () => {
    const sources = rendered.map((f) => ({ file: path.basename(f), text: fs.readFileSync(f, 'utf8') }));
    const viaFast = lintSources(sources, OPTS);
    const slow = sources.map((s) => parseSlow(s.file, s.text));
    const objects = slow.flatMap((p) => p.objects);
    expect(viaFast.objects).toBe(objects.length);
    expect(viaFast.findings).toEqual(sortFindings(runRules(objects, OPTS), sources.map((s) => s.file)));
    expect(viaFast.errors).toEqual(slow.flatMap((p) => [...p.errors, ...p.objects.flatMap(checkFieldTypes)].sort((a, b) => a.line - b.line || a.column - b.column)));
    expect(viaFast.findings.length).toBeGreaterThan(100);
  });

  test('mutated manifests and token soups (the fuzz suite\'s inputs): the same, or declined', () => {
    let same = 0;
    let declined = 0;
    fc.assert(
      fc.property(fc.oneof(mutatedFrom(SEEDS), tokenText, fc.string({ maxLength: 200 })), (text) => {
        if (compare(text, 'm.yaml') === 'same') same++;
        else declined++;
      }),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 300), seed: Number(process.env.KUBEGRACE_FUZZ_SEED ?? 16) },
    );
    expect(same).toBeGreaterThan(declined / 4);
  });

  test('generated objects written in random YAML layouts (indents, flow levels, compact sequences, quoting, comments): the same', () => {
    const word = fc.constantFrom('a', 'name', 'x y', 'é', '-z', '?q', ':c', 'k.l/m', '1x', '"q"', "it's", '#h', 'a#b', 'v: w', '[x]', ' sp', 'tab\tx', 'line\nbreak', `long ${'w'.repeat(90)}`);
    const key = fc.tuple(word, fc.nat(60)).map(([w, n]) => `${w}${n}`);
    const value: fc.Arbitrary<Json> = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.oneof(word, fc.integer(), fc.boolean(), fc.constant(null)) as fc.Arbitrary<Json>, fc.array(tie('v'), { maxLength: 4 }) as fc.Arbitrary<Json>, fc.dictionary(key, tie('v'), { maxKeys: 5 }) as fc.Arbitrary<Json>),
    })).v;
    const style = fc.record({ indent: fc.integer({ min: 1, max: 4 }), flowLevel: fc.integer({ min: -1, max: 3 }), noArrayIndent: fc.boolean(), forceQuotes: fc.boolean(), quotingType: fc.constantFrom<'"' | "'">('"', "'"), lineWidth: fc.constantFrom(-1, 40, 80) });
    const comments = fc.array(fc.tuple(fc.nat(), fc.nat(8), fc.boolean()), { maxLength: 4 });
    let same = 0;
    fc.assert(
      fc.property(fc.constantFrom('ConfigMap', 'Deployment', 'List'), value, value, style, comments, (kind, spec, data, opts, notes) => {
        const obj: Json = { apiVersion: 'v1', kind, metadata: { name: 'n' }, spec, data, items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'i' }, data }, spec] };
        const lines = jsyaml.dump(obj, { ...opts, noRefs: true }).split('\n');
        for (const [at, indent, blank] of notes) lines.splice(at % lines.length, 0, blank ? '' : `${' '.repeat(indent)}# note ?`);
        if (compare(lines.join('\n'), 'g.yaml', { findings: false }) === 'same') same++;
      }),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 150), seed: Number(process.env.KUBEGRACE_FUZZ_SEED ?? 8) },
    );
    expect(same).toBeGreaterThan(100);
  });

  /** A ConfigMap whose data (or another field) holds `body`. */
  const cm = (body: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ns\n${body}\n`;
  const tokenMutated = mutatedFrom([cm('data:\n  a: b\n  c: "d"\nx:\n  - 1\n  - {y: z}\n'), servedDeployment('      containers:\n      - name: app\n        image: web:1\n        lifecycle: {preStop: {sleep: {seconds: 5}}}')], [...TOKENS, '&s 1', '*s', '"010"', '? [a]', '[a]: 1', 'yes: 1', 'null: 1', '...\n', '---\n', '- ', '  ', '\n  ', 'k: |-\n  x\n', 'k: >+\n\n  y\n']);

  test.each([
    ['double-quoted', 'b: "x  \n    y"'],
    ['single-quoted in a flow sequence', "b: ['x  \n    y']"],
    ['double-quoted in a flow sequence', 'b: ["x \n    y"]'],
    ['single-quoted in a flow mapping', "b: {c: 'x\t\n    y'}"],
  ])('a %s scalar over two lines with blanks at the end of the first: read as YAML reads it (js-yaml keeps the blanks), or declined', (_name, body) => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ${body}\n`;
    compare(text, 'q.yaml', { findings: false });
    expect(JSON.stringify(parseText('q.yaml', text).objects[0].raw.data)).not.toMatch(/x {2}/);
  });

  test('small manifests with YAML 1.1 tokens inserted: the same, or declined', () => {
    let same = 0;
    fc.assert(
      fc.property(tokenMutated, (text) => {
        if (compare(text, 't.yaml') === 'same') same++;
      }),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 300), seed: Number(process.env.KUBEGRACE_FUZZ_SEED ?? 12) },
    );
    expect(same).toBeGreaterThan(40);
  });

  // Read alike: go-yaml v2 values of plain scalars, quoting, block scalars, documents.
  test.each([
    ['YAML 1.1 plain scalars', cm('spec:\n  a: 010\n  b: 0b11\n  c: 0x1F\n  d: yes\n  e: off\n  f: ~\n  g: 1e3\n  h: 1_000\n  i: 1:30\n  j: 2001-01-01\n  k: y\n  l: NULL\n  m: 09\n  n1: +.5\n  o: 0o17\n  p: 99999999999999999999\n  q: -0\n  r: "010"\n  s: \'yes\'\n  t: <<\n  u:\n  v: 18446744073709551615\n  w: [On, n, N, 0X1f, -0b101, 1., .5, 12_, "y"]')],
    ['block scalars and folding', cm('data:\n  a: |\n    on\n    010\n  b: >-\n    folded\n    text\n\n    more\n  c: |+\n    keep\n\n  d: plain\n    multi line\n  e: "dq \\u00e9 \\x41 \\n"\n  f: \'sq \'\' x\'')],
    ['flow collections', cm('data: {a: "1", b: \'2\'}\nspec: {list: [1, two, "3", {x: yes}], empty: {}, none: []}')],
    ['scalar anchors and aliases', cm('data:\n  a: &v "shared"\n  b: *v\n  c: &n 010\n  d: *n')],
    ['an anchored scalar as a sequence item (its position is the scalar\'s, after the anchor)', cm('spec:\n  list:\n  - &a events\n  -   &b  x\n  - *a')],
    ['comments before the first document and between documents', `# Source: x\n# more\n---\n${cm('data: {a: b}')}---\n# only a comment\n---\n\n---\n${cm('data: {c: d}').replace('name: c', 'name: e')}`],
    ['document end markers', `${cm('data: {a: b}')}...\n---\n${cm('data: {a: b}').replace('name: c', 'name: d')}...\n`],
    ['a document end before any marker', `# x\n...\n---\n${cm('data: {a: b}')}`],
    ['CRLF line breaks', cm('data:\n  a: b\n  c: |\n    x\n    y').replace(/\n/g, '\r\n')],
    ['a byte-order mark', `\ufeff${cm('data: {a: b}')}`],
    ['an indented root and content on the marker line', `--- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n`],
    ['a kind: List', 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- not an object\n-   apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: d\n    spec: {replicas: 010}\n'],
    ['a __proto__ key', cm('data:\n  __proto__: x\n  constructor: y')],
    ['keys that are strings for go-yaml too', cm('data:\n  "yes": a\n  \'1\': b\n  "on": c\n  a.b/c~d: e\n  é: f')],
    ['a question mark in comments and values', `# is this right ?\n${cm('data:\n  # really ?\n  a: what ?\n  b: "? x"\n  c: ?x\n  d: e # and ?\n  f: [g ?, h]')}`],
    ['a tab inside a value', cm('data:\n  a: "x\ty"\n  b: |\n    \tindented by a tab')],
    ['empty and null documents', `---\n---\n~\n---\n${cm('data: {}')}`],
    // Layouts the text locator reads (every pointer is compared with parse.ts).
    ['compact and nested sequences', cm('spec:\n  list:\n  - a\n  -   b\n  - - c\n    - d\n  -\n    e: f\n  - # note\n    g: h\n  - {i: j}\n  - [k, l]\n  - |\n    m\n  after: x')],
    ['comments and blank lines between entries', cm('spec:\n\n  # first\n  a: 1   # trailing\n\n    # indented comment\n  b:\n    # before the value\n    c: 2\n  d:    # nothing on this line\n    - e\n# at column 0\n  f: g')],
    ['block scalars whose text looks like keys', cm('data:\n  script: |\n    a: b\n    - c\n  data: x\n  folded: >-\n    d: e\n\n     f: g\n  last: y')],
    ['quoted keys, spaces before the colon, keys with spaces', cm('spec:\n  "a b": 1\n  \'c\'\'d\': 2\n  e f : 3\n  "g":\n    h: 4\n  i.j/k~l: 5')],
    ['flow mappings and sequences in one line', cm('spec: {a: 1, "b": [x, "y", {c: d}], \'e\': {}, f, g: , h: [], "i":j}\nlist: [ 1 , [2, [3]], {k: v} ]')],
    ['empty values', cm('spec:\n  a:\n  b: ~\n  c:\n  d: [ ]\n  e: {}')],
    ['values on the next line', cm('spec:\n  a:\n    plain on the next line\n  b:\n    "quoted"\n  c:\n    [x, y]')],
    ['multi-line plain, quoted and flow values (read by yaml)', cm('spec:\n  a: one\n    two\n  b: "three\n    four"\n  c: [five,\n    six]\n  d: {g: h,\n    i: j}\n  e: x')],
    ['blank lines at the very start and a comment with a question mark (the explicit-key look-back stops at offset 0)', `\n\n{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}, "data": {"a": "b"}}\n       # note ?\n`],
    ['a tab after the indentation inside a block scalar', cm('data:\n  a: |\n    \tx\n  b: y')],
    ['keys starting with - and ?', cm('spec:\n  -a: 1\n  ?b: 2\n  :c: 3')],
  ])('%s', (_name, text) => {
    expect(compare(text)).toBe('same');
  });

  test('issue 12 item 8: a 10 MB ConfigMap with 53k keys takes the fast path (no `yaml` tree at all when nothing is reported)', () => {
    const lines = Array.from({ length: 53_000 }, (_, i) => `  key-${String(i).padStart(6, '0')}: ${`v${i}-`.repeat(40).slice(0, 180)}`);
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(10_000_000);
    const p = parseYamlFast('big.yaml', text)!;
    expect(p.objects).toHaveLength(1);
    expect(Object.keys(p.objects[0].raw.data as object)).toHaveLength(53_000);
    expect(p.objects[0].locate('/data/key-052999')).toEqual({ line: 53_005, column: 3 });
  });

  test('a lint finding through the fast path is at the same line and column', () => {
    const text = `# header\n---\n${servedDeployment('      terminationGracePeriodSeconds: 010\n      containers:\n      - name: app\n        image: web:1\n        ports: [{containerPort: 8080}]\n        lifecycle: {preStop: {sleep: {seconds: 5}}}')}`;
    expect(compare(text)).toBe('same');
    const r = lintSources([{ file: 'd.yaml', text }], OPTS);
    expect(r.findings.find((f) => f.ruleId === 'grace-period-budget')).toMatchObject({ line: 13, column: 7 });
  });

  // Declined documents: parse.ts gives the values (merges, tags, collection aliases) or reports
  // the problem, for that document alone; the file's other documents keep the fast path.
  test.each([
    ['a merge key', cm('spec: {<<: {terminationGracePeriodSeconds: 3}}')],
    ['a quoted merge-like key', cm('data: {"<<": x}')],
    ['an anchored mapping and its alias', cm('a: &m {x: 1}\nb: *m')],
    ['an anchor on the document', `&d\n${cm('data: {}')}`],
    ['an explicit tag', cm('data: {a: !!str 010}')],
    ['a non-specific tag', cm('data: {a: ! 010}')],
    ['a local tag', cm('data: {a: !foo x}')],
    ['an explicit key', cm('data:\n  ? a\n  : b')],
    ['an explicit key in a flow mapping', cm('data: {? a : b}')],
    ['an explicit key after a comment', cm('data: {?  # c\n    a : b}')],
    ['an explicit key on a line of its own', cm('data: {x: y,\n  ?\n\n  # c\n  a : b}')],
    ['a flow sequence as a key', cm('data:\n  [a, b]: c')],
    ['a flow mapping as a key', cm('data: {{a: b}: c}')],
    ['a boolean key', cm('data:\n  yes: a')],
    ['an int key', cm('data:\n  1: a')],
    ['a null key', cm('data:\n  null: a')],
    ['an empty key', cm('data: {: a}')],
    ['a float key', cm('data:\n  1.5: a')],
    ['a key over 200 characters', cm(`data:\n  ${'k'.repeat(201)}: a`)],
    ['duplicate keys', cm('data:\n  a: 1\n  a: 2')],
    ['.inf (no JSON form)', cm('data:\n  a: .inf')],
    ['a syntax error', cm('data: {a: b')],
    ['a lone CR', cm('data:\r  a: b')],
    ['content after a document end', `${cm('data: {}')}...\n${cm('data: {}')}`],
    ['two document ends', `${cm('data: {}')}...\n...\n`],
    ['a tab before the content', `---\t\n${cm('data: {}')}`],
    ['nesting near the depth limit', cm(`spec: ${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`)],
    // js-yaml reads these, yaml reports them.
    ['a block mapping on the marker line', `---  apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n`],
    ['a one-line block mapping on the marker line', `---  a: 2\n`],
    ['a block sequence on the marker line', `--- - a\n- b\n`],
    ['a quoted scalar continued at column 0', cm('data:\n  a: "one\ntwo"')],
    ['a quoted scalar continued at its key\'s column', cm('data:\n  a: \'one\n  two\'')],
    ['a quoted scalar in a flow sequence continued at column 0', cm('rules:\n  - verbs: ["create", "u\npdate"]')],
    ['a flow sequence continued at column 0', cm('rules: [\n"u"]')],
    ['a comment right after a closing quote', cm("data:\n  a: 'x'#c")],
    ['a comment right after a closing bracket', cm('data: {a: b}#c')],
    ['a flow mapping closed at its key\'s column inside a flow sequence', cm('spec:\n  a: [{\n    p: 1\n  }]')],
    ['a flow mapping in a compact mapping continued at the mapping\'s column', cm('spec:\n- a: {p: 1,\n  q: 2}')],
  ])('declines %s: parse.ts reads that document, the others keep the fast path', (_name, text) => {
    const alone = parseYamlFast('x.yaml', text)!;
    // Read by parse.ts: its objects are parse.ts's, or it has an error.
    expect(alone.errors.length + alone.objects.filter((o) => o.constructor.name === 'ParsedObject').length).toBeGreaterThan(0);
    expect(alone.objects.filter((o) => o.constructor.name === 'YamlObjectView')).toEqual([]);
    expect(compare(text)).toBe('same');
    // Between two documents the fast path reads (the second with a marker on its line, the third
    // with a comment before it): the same as parse.ts over the whole stream, and those two read fast.
    const before = cm('data: {a: "b"}').replace('name: c', 'name: before');
    const after = cm("data: {a: 'b'}").replace('name: c', 'name: after');
    const stream = `${before}--- ${text.startsWith('---') ? '' : '\n'}${text.replace(/^---/, '')}---\n# after\n${after}`;
    expect(compare(stream, 'x.yaml', { located: 40 })).toBe('same');
    const fast = parseYamlFast('x.yaml', stream)!;
    expect(fast.objects.filter((o) => o.constructor.name === 'YamlObjectView').map((o) => o.name)).toEqual(['before', 'after']);
  });

  test.each([
    ['a quoted scalar continued one column right of its key', cm('data:\n  a: "one\n   two"')],
    ['a flow sequence over lines, closed at its key\'s column', cm('spec:\n  verbs: [\n    "create",\n    "delete"\n  ]')],
    ['a flow mapping over lines in a compact mapping', cm('spec:\n- a: {p: 1,\n   q: 2}')],
    ['a JSON document in a stream', `${cm('data: {}')}---\n{\n"apiVersion": "v1",\n"kind": "ConfigMap",\n"metadata": {\n  "name": "j"\n},\n"data": {"a":\n"b"}\n}\n`],
    ['a multi-line plain scalar', cm('data:\n  a: one\n    two\n  b: x')],
    ['a multi-line plain scalar as a sequence item (as the corpus has it)', cm('spec:\n  args:\n  - one && two\n    three\n  - x')],
  ])('keeps the fast path for %s (indented as yaml requires)', (_name, text) => {
    expect(compare(text, 'x.yaml', { located: 40 })).toBe('same');
    const fast = parseYamlFast('x.yaml', text)!;
    expect(fast.objects.length).toBeGreaterThan(0);
    expect(fast.objects.filter((o) => o.constructor.name !== 'YamlObjectView')).toEqual([]);
  });

  test.each([
    ['a %YAML directive', `%YAML 1.1\n---\n${cm('data: {}')}`],
    ['a %TAG directive after a document end', `${cm('data: {}')}...\n%TAG ! tag:example.com,2000:\n---\n${cm('data: {a: !x b}')}`],
    ['a byte-order mark inside', `${cm('data: {}')}---\n\ufeff${cm('data: {}')}`],
    ['a byte-order mark after a document end', `${cm('data: {}')}...\n\ufeff---\n${cm('data: {}')}`],
  ])('declines the whole file on %s (it can change how the next document reads)', (_name, text) => {
    expect(parseYamlFast('x.yaml', text)).toBeUndefined();
    expect(compare(text)).toBe('declined');
  });

  test('`---` and a comment without a blank between, first in the file: no marker for yaml (js-yaml takes it for one), so parse.ts reads it', () => {
    const text = `---# Source: x\n${cm('data: {}')}`;
    expect(compare(text)).toBe('same');
    expect(parseYamlFast('x.yaml', text)!.objects[0].raw['---# Source']).toBe('x');
    // After a comment: the same.
    expect(compare(`# c\n---#x\n${cm('data: {}')}`)).toBe('same');
  });

  test('a `---` after U+2028 or U+2029, or before one, starts no document (for yaml, they are no line breaks)', () => {
    for (const sep of ['\u2028', '\u2029']) {
      for (const text of [cm(`data:\n  x: a${sep}--- b`), cm(`data:\n  x: a\n---${sep}b: c`), cm(`data:\n  x: a${sep}...\n  y: b`)]) {
        const fast = parseYamlFast('x.yaml', text);
        expect(fast).toBeDefined();
        expect(compare(text)).toBe('same');
      }
    }
    expect(parseYamlFast('x.yaml', cm('data:\n  x: a\u2028--- b'))!.objects[0].raw.data).toEqual({ x: 'a\u2028--- b' });
  });
});
