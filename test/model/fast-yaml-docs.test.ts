/**
 * The YAML fast path declines a document, not the file (lib/model/fast-yaml.ts, readAlone): a
 * stream in which some documents are hostile (syntax errors, merge keys, collection anchors and
 * aliases, duplicate keys, tags, unterminated quotes and flows that run into the next `---`,
 * `...` markers, empty and comment-only documents) reads exactly as parse.ts reads the whole
 * text (objects, values, docIndex and uid, `documents`, errors with their positions, positions of
 * every pointer, findings), through every reader (the text, its bytes, the file in chunks of any
 * size), and every other document keeps the fast path. Also through the built CLI: its
 * `lint --format json` output is the one it gives when the fast path is switched off.
 */
import { spawnSync } from 'child_process';
import fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import type { ParsedObjects } from '../../lib/model/fast-json';
import { parseYamlBytes, parseYamlFast, parseYamlFile } from '../../lib/model/fast-yaml';
import { MAX_DEPTH, parseText } from '../../lib/model/parse';
import { collectSources } from '../../lib/model/sources';
import { ALL_RULES } from '../../lib/rules';
import { ensureBuilt } from '../helpers/build';
import { BIN, ROOT } from '../helpers/cli';
import { yamlFiles } from '../helpers/files';
import { agreeWith } from '../helpers/parse-compare';
import { CORPUS_DIR, mutatedFrom, SEEDS } from '../helpers/yaml-inputs';

const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.31') };

/** The documents of the rendered corpus (split at their `---` lines), each with a final line break. */
const CORPUS_DOCS = yamlFiles(path.join(CORPUS_DIR, 'rendered'))
  .flatMap((f) => fs.readFileSync(f, 'utf8').split(/^---[^\n]*\n/m))
  .filter((d) => /^kind:/m.test(d) && d.length < 4000)
  .map((d) => (d.endsWith('\n') ? d : `${d}\n`));

/** A ConfigMap whose data (or another field) holds `body`. */
const cm = (body: string, name = 'hostile') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ns\n${body}\n`;

/** Documents the fast path declines (or that are empty): parse.ts reads them. */

const HOSTILE = [
  // Syntax errors, incl. flows and quotes that run into the next `---` line.
  cm('data: {a: b'),
  cm('data:\n  a: [1, 2\n  b: c'),
  cm('data:\n  a: "unterminated\n  b: c'),
  cm("data:\n  a: 'unterminated\n  b: c"),
  cm('data:\n  a: "ends with an escaped quote\\"\n  b: c'),
  cm("data:\n  a: 'a pair '' is no end\n  b: c"),
  cm('data:\n  s: "\\\\"\n  t: "ok'),
  cm('a: b: c'),
  cm('data:\n  a: |\n    block "quote\n  b: \'x'),
  cm('spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: "x\n'),
  '"unterminated at the top\n',
  "'single at the top\n",
  'x: [a, "b\n',
  '- "q\n- r\n',
  '{a: 1\n',
  'a:\n  - b\n  c: d\n',
  cm('\tdata: x'),
  `\t${cm('data: {}')}`,
  `\t\n${cm('data: {}')}`,
  // Read alike by parse.ts only: merges, anchors and aliases of collections, duplicates, tags.
  cm('spec: {<<: {terminationGracePeriodSeconds: 3}}'),
  cm('base: &b {x: 1, y: 2}\nspec:\n  <<: *b\n  y: 3'),
  cm('a: &m {x: 1}\nb: *m'),
  `&d\n${cm('data: {}')}`,
  cm('data:\n  a: 1\n  a: 2'),
  cm('data: {a: !!str 010}'),
  cm('data: {a: !foo x}'),
  cm('data:\n  ? a\n  : b'),
  cm('data:\n  yes: a'),
  cm('data:\n  a: .inf'),
  cm(`spec: ${'['.repeat(MAX_DEPTH + 2)}${']'.repeat(MAX_DEPTH + 2)}`),
  cm('data:\r  a: lone CR'),
  // Document ends.
  `${cm('data: {}')}...\n`,
  `${cm('data: {}')}...\n${cm('data: {x: y}', 'after-end')}`,
  `${cm('data: {}')}...\n...\n`,
  '...\n',
  '... # c\n',
  // Empty, comment-only and blank documents.
  '',
  '# only a comment\n',
  '\n',
];

/** The hostile document that holds `part`. */
function pick(part: string): string {
  const h = HOSTILE.find((x) => x.includes(part));
  if (h === undefined) throw new Error(`no hostile document holds ${part}`);
  return h;
}

const SEPARATORS = ['---\n', '--- \n', '---\n# between\n', '---\n\n', '--- # c\n'];

/** The text of `parts` joined at `---` lines (`seps` cycled), optionally with a marker or a comment first. */
function stream(parts: string[], seps: string[], head = ''): string {
  return head + parts.map((p, i) => (i ? seps[i % seps.length] : '') + p).join('');
}

function written(text: string): { p: string; stamp: { path: string; size: number; mtimeMs: number }; done: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-ydocs-'));
  const p = path.join(dir, 'all.yaml');
  fs.writeFileSync(p, text);
  const st = fs.statSync(p);
  return { p, stamp: { path: p, size: st.size, mtimeMs: st.mtimeMs }, done: () => fs.rmSync(dir, { recursive: true }) };
}

const fastObjects = (p: ParsedObjects) => p.objects.filter((o) => o.constructor.name === 'YamlObjectView').length;

/**
 * Every reader agrees with parse.ts over the whole text: the text, its bytes, the file in chunks
 * (`chunks`, with read-back blocks `aheads`); returns parse.ts's reading and the text's.
 */
function readsAlike(text: string, opts: { chunks?: number[]; aheads?: number[]; located?: number; findings?: boolean } = {}): { slow: ParsedObjects; fast: ParsedObjects } {
  const slow = parseText('s.yaml', text);
  const fast = parseYamlFast('s.yaml', text);
  expect(fast).toBeDefined();
  agreeWith(OPTS, fast!, slow, 's.yaml', { located: opts.located ?? 40, findings: opts.findings });
  const bytes = parseYamlBytes('s.yaml', Buffer.from(text, 'utf8'));
  expect(bytes).toBeDefined();
  agreeWith(OPTS, bytes!, slow, 's.yaml', { located: opts.located ?? 40, findings: false });
  const f = written(text);
  const aheads = opts.aheads ?? [1 << 20];
  (opts.chunks ?? [5, 64, 4096]).forEach((chunk, i) => {
    const file = parseYamlFile('s.yaml', f.stamp, chunk, undefined, aheads[i % aheads.length]);
    expect(file).toBeDefined();
    agreeWith(OPTS, file!, slow, 's.yaml', { located: opts.located ?? 40, findings: false });
  });
  f.done();
  return { slow, fast: fast! };
}

describe('the YAML fast path declines a document, not the file', () => {
  test('the corpus has documents to build streams from', () => {
    expect(CORPUS_DOCS.length).toBeGreaterThan(200);
  });

  test.each(HOSTILE.map((h, i) => [i, h]))('hostile document %i first, in the middle and last of a corpus stream: the same as parse.ts, the others read fast', (i, h) => {
    const docs = CORPUS_DOCS.slice((i as number) * 3, (i as number) * 3 + 3);
    const good = docs.reduce((n, d) => n + parseText('d.yaml', d).objects.length, 0);
    const hostile = h as string;
    // (Some of these read fast alone: a document ending at `...`, an empty one.)
    const own = fastObjects(parseYamlFast('h.yaml', hostile)!);
    for (const parts of [
      [hostile, ...docs],
      [docs[0], hostile, docs[1], docs[2]],
      [...docs, hostile],
      [hostile, hostile, docs[0], hostile, docs[1], docs[2], hostile],
    ]) {
      for (const head of ['', '---\n', '# head\n']) {
        const { fast } = readsAlike(stream(parts, SEPARATORS, head), { chunks: [5, 97, 4096], aheads: [1, 3, 1 << 20] });
        expect(fastObjects(fast)).toBe(good + own * parts.filter((p) => p === hostile).length);
      }
    }
  });

  test('random streams of corpus documents, hostile ones and mutated manifests: the same as parse.ts, the corpus documents read fast', () => {
    let hostileDocs = 0;
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ weight: 3, arbitrary: fc.nat(CORPUS_DOCS.length - 1).map((k) => ({ text: CORPUS_DOCS[k], good: true })) }, { weight: 2, arbitrary: fc.constantFrom(...HOSTILE).map((text) => ({ text, good: false })) }, { weight: 1, arbitrary: mutatedFrom(SEEDS).map((text) => ({ text: text.endsWith('\n') ? text : `${text}\n`, good: false })) }), { minLength: 1, maxLength: 7 }),
        fc.array(fc.constantFrom(...SEPARATORS), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('', '---\n', '# head\n'),
        fc.boolean(),
        fc.constantFrom(5, 64, 1000),
        fc.constantFrom(1, 7, 1 << 20),
        (parts, seps, head, trim, chunk, ahead) => {
          let text = stream(parts.map((p) => p.text), seps, head);
          // (A mutated manifest may hold what declines the whole file: then no document is fast.)
          if (/(^|\n)%|\ufeff/.test(text)) return;
          if (trim) text = text.replace(/\n$/, '');
          const { fast } = readsAlike(text, { chunks: [chunk], aheads: [ahead], located: 12, findings: chunk === 64 });
          hostileDocs += parts.filter((p) => !p.good).length;
          // The corpus documents keep the fast path (a mutated manifest may also read fast).
          const good = parts.filter((p) => p.good).reduce((n, p) => n + parseText('d.yaml', p.text).objects.length, 0);
          expect(fastObjects(fast)).toBeGreaterThanOrEqual(good);
        },
      ),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 120), seed: Number(process.env.KUBEGRACE_FUZZ_SEED ?? 24) },
    );
    expect(hostileDocs).toBeGreaterThan(100);
  });

  describe('a quote left open runs to the next `---` line, or to the end when no quote after it could close it', () => {
    // yaml's lexer looks for the first closing quote anywhere after the opening one: with one, the
    // scalar ends at the next `---` line ("Missing closing quote"); with none, it runs to the end
    // and parse.ts cuts the document at that line. readAlone gives the declined document what
    // follows it: a `---` line and, when the stream has one after it, a closing quote of each kind.
    const open = { dq: cm('data:\n  a: "open\n  b: c'), sq: cm("data:\n  a: 'open\n  b: c") };
    // [what follows, the text, whether it closes a " scalar, whether it closes a ' scalar]
    const tails: [string, string, boolean, boolean][] = [
      ['a closing " in the next document', cm('data: {x: "y"}', 'next'), true, false],
      ["a closing ' in the next document", cm("data: {x: 'y'}", 'next'), false, true],
      ['a closing " several documents later', `${cm('data: {x: y}', 'n1')}---\n${cm('data: {x: y}', 'n2')}---\n${cm('data: {x: "z"}', 'n3')}`, true, false],
      ['only escaped " after it', cm('data: {x: a\\"b}', 'next'), false, false],
      ['an escaped backslash before a " after it', cm('data: {x: "a\\\\"}', 'next'), true, false],
      ["only '' pairs after it", cm("data: {x: a''b}", 'next'), false, false],
      ["a run of three ' after it", cm("data: {x: a'''b}", 'next'), false, true],
      ['no quote after it', cm('data: {x: y}', 'next'), false, false],
    ];
    test.each(tails)('%s', (_name, tail, dq, sq) => {
      for (const [kind, closes] of [['dq', dq], ['sq', sq]] as const) {
        const text = `${CORPUS_DOCS[0]}---\n${open[kind]}---\n${tail}`;
        // Tiny chunks (the closing quote in a later window) and read-back blocks of 1 and 2 bytes
        // (backslash and quote runs across the blocks read backwards).
        const { slow } = readsAlike(text, { chunks: [5, 64, 1 << 20], aheads: [1, 2, 1 << 20] });
        expect(slow.errors).toHaveLength(1);
        expect(slow.errors[0].message).toMatch(closes ? /Missing closing/ : /never closed/);
      }
    });
    test('nothing after it: the scalar ends at the end', () => {
      for (const kind of ['dq', 'sq'] as const) readsAlike(`${CORPUS_DOCS[0]}---\n${open[kind]}`, { chunks: [5, 64], aheads: [1, 1 << 20] });
    });
    test('the last quote far before the end: the file is read back in growing blocks, not one read per block', () => {
      // 512 KiB of documents with no quote after the declined one's; read-back blocks of 1 byte.
      const plain = Array.from({ length: 2048 }, (_, i) => cm(`data:\n  k: ${'v'.repeat(180)}`, `p${i}`));
      const text = `${open.dq}---\n${cm('data: {x: "last quote"}', 'quoted')}---\n${plain.join('---\n')}`;
      expect(text.length).toBeGreaterThan(512 * 1024);
      const f = written(text);
      // (fs.readSync cannot be spied on; every read allocates its buffer.)
      const reads = jest.spyOn(Buffer, 'allocUnsafe');
      try {
        const chunked = parseYamlFile('s.yaml', f.stamp, 64 * 1024, undefined, 1)!;
        // 9 chunks of 64 KiB; about 20 blocks back to the quote (one read per byte: over half a million).
        expect(reads.mock.calls.length).toBeLessThan(60);
        reads.mockRestore();
        agreeWith(OPTS, chunked, parseText('s.yaml', text), 's.yaml', { located: 3, findings: false });
      } finally {
        reads.mockRestore();
        f.done();
      }
    });
  });

  test('a document with errors that ends at `...`, followed by more documents: parse.ts reads it cut at the `...`', () => {
    const text = `${CORPUS_DOCS[1]}---\n${cm('data: {a: "open\n  b: c')}...\n---\n${CORPUS_DOCS[2]}...\n${cm('data: {x: "y"}', 'bare')}---\n${CORPUS_DOCS[3]}`;
    const { slow } = readsAlike(text, { chunks: [5, 64], aheads: [1, 1 << 20] });
    expect(slow.errors.length).toBeGreaterThan(0);
  });

  test('document indexes, uids and `documents` count the empty documents and `...` documents parse.ts counts', () => {
    const text = stream([cm('data: {}', 'a'), '', `${cm('a: &x {b: 1}\nc: *x', 'b')}...\n${cm('data: {}', 'c')}`, '# c\n', cm('data: {}', 'd'), `${cm('data: {}', 'e')}...\n...\n`, cm('data: {}', 'f')], ['---\n']);
    const { slow, fast } = readsAlike(text);
    expect(fast.objects.map((o) => [o.name, o.uid])).toEqual(slow.objects.map((o) => [o.name, o.uid]));
    expect(slow.objects.map((o) => o.docIndex)).toEqual([0, 2, 3, 5, 6, 8]);
    expect(fastObjects(fast)).toBe(3);
  });

  test('a text whose documents are mostly declined is read whole by parse.ts (the same result); a file read in chunks is not', () => {
    const merged = CORPUS_DOCS.slice(0, 60).map((d) => d.replace(/^metadata:\n/m, 'metadata:\n  <<: {}\n'));
    const all = merged.join('---\n');
    expect(merged.filter((d) => d.includes('<<')).length).toBe(60);
    expect(parseYamlFast('m.yaml', all)).toBeUndefined();
    expect(parseYamlBytes('m.yaml', Buffer.from(all))).toBeUndefined();
    const f = written(all);
    agreeWith(OPTS, parseYamlFile('m.yaml', f.stamp, 4096)!, parseText('m.yaml', all), 'm.yaml', { located: 3, findings: false });
    f.done();
    // One in three declined: read document by document.
    const some = CORPUS_DOCS.slice(0, 120).map((d, i) => (i % 3 ? d : merged[i / 3])).join('---\n');
    readsAlike(some, { chunks: [4096], located: 3, findings: false });
  });

  test('a file read in chunks keeps nothing of its windows for the documents parse.ts reads', () => {
    const v8 = require('v8') as typeof import('v8');
    const vm = require('vm') as typeof import('vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // Windows of 1.25 MiB (external strings); every 40th document declined (a merge key), its
    // values and its yaml Document kept by its objects.
    const docs = CORPUS_DOCS.map((d, i) => (i % 40 === 7 ? d.replace(/^metadata:\n/m, 'metadata:\n  <<: {labels: {merged: "yes"}}\n') : d));
    const text = `${docs.join('---\n')}---\n${docs.join('---\n')}`;
    const f = written(text);
    const used = () => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.external - m.arrayBuffers;
    };
    const base = used();
    const fast = parseYamlFile('all.yaml', f.stamp, 1.25 * 2 ** 20)!;
    const held = used() - base;
    expect(fast.objects.length - fastObjects(fast)).toBeGreaterThan(10);
    expect(held).toBeLessThan(2 ** 20);
    agreeWith(OPTS, fast, parseText('all.yaml', text), 'all.yaml', { findings: false, located: 3 });
    f.done();
  });

  test('the lint of a file read in chunks: the same findings and errors as of its text', () => {
    const text = stream([CORPUS_DOCS[4], pick('"unterminated'), CORPUS_DOCS[5], pick('<<: *b'), CORPUS_DOCS[6], pick('!!str'), pick('a: 1\n  a: 2'), CORPUS_DOCS[7]], SEPARATORS);
    const f = written(text);
    const streamed = collectSources([f.p], { stream: true, streamFrom: 10 });
    const a = lintSources(streamed.sources, OPTS);
    const b = lintSources([{ file: f.p, text }], OPTS);
    expect(a.findings).toEqual(b.findings);
    expect(a.errors).toEqual(b.errors);
    expect(a.errors.length).toBeGreaterThanOrEqual(2);
    f.done();
  });

  test('the built CLI: `lint --format json` gives the same output as with the fast path switched off', () => {
    ensureBuilt(['lib'], ['build/lib/cli/main.js']);
    const rendered = yamlFiles(path.join(CORPUS_DIR, 'rendered')).slice(0, 8).map((f) => fs.readFileSync(f, 'utf8'));
    const text = stream([pick('{a: b'), ...rendered.slice(0, 3), pick('"unterminated'), rendered[3], pick('<<: *b'), pick('a: 1\n  a: 2'), rendered[4], pick('...\n...'), ...rendered.slice(5), pick('!!str')], ['---\n']);
    const f = written(text);
    // (The fast path switched off: the readers of build/lib/model/fast-yaml.js decline every file.)
    const off = path.join(path.dirname(f.p), 'off.js');
    fs.writeFileSync(
      off,
      `const m = require(${JSON.stringify(path.join(ROOT, 'build/lib/model/fast-yaml.js'))});\nlet calls = 0;\nfor (const k of ['parseYamlFast', 'parseYamlLatin1', 'parseYamlBytes', 'parseYamlFile']) m[k] = () => (calls++, undefined);\nprocess.on('exit', () => process.stderr.write('fast path declined ' + calls + ' times'));\n`,
    );
    const run = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, [BIN, 'lint', f.p, '--format', 'json'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 1 << 28 });
    const on = run({});
    const whole = run({ NODE_OPTIONS: `--require ${off}` });
    expect(on.stderr).toBe('');
    expect(whole.stderr).toMatch(/^fast path declined [1-9]\d* times$/);
    expect(on.status).toBe(2);
    expect(on.stdout).toBe(whole.stdout);
    const out = JSON.parse(on.stdout) as { findings: unknown[]; errors: unknown[] };
    expect(out.findings.length).toBeGreaterThan(50);
    expect(out.errors.length).toBeGreaterThanOrEqual(3);
    f.done();
  });
});
