/**
 * quick-yaml.ts against js-yaml with the fast path's schema (whose readings fast-yaml.test.ts
 * proves equal to parse.ts's): wherever quick-yaml reads a document, it must give exactly
 * js-yaml's value; it must read most of the YAML that tools write (else it only costs time); and
 * it must decline the layouts it does not model.
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as jsyaml from 'js-yaml';
import * as path from 'path';
import { SCHEMA } from '../../lib/model/fast-yaml';
import { parseText } from '../../lib/model/parse';
import { readQuick } from '../../lib/model/quick-yaml';
import { Json } from '../../lib/model/types';
import { CORPUS_DIR, mutated, tokenText } from '../helpers/yaml-inputs';

const LIMITS = { maxKey: 200, maxDepth: 100, maxNodes: 100000 };

/** js-yaml's value, or 'error'. */
function jsYaml(text: string): Json | 'error' {
  try {
    return jsyaml.load(text, { schema: SCHEMA }) as Json;
  } catch {
    return 'error';
  }
}

/** 'read' after checking quick-yaml's value is js-yaml's, or 'declined'. */
function check(doc: string): 'read' | 'declined' {
  const q = readQuick(doc, LIMITS);
  if (q === undefined) return 'declined';
  expect([doc, q]).toStrictEqual([doc, jsYaml(doc)]);
  return 'read';
}

function documents(text: string): string[] {
  return text.split(/^(?=---(?:[ \t\r\n]|$))/m);
}

/** A ConfigMap whose data holds `body` as a member's value, or as a sequence's item. */
function holding(body: string, inSequence: boolean): string {
  return inSequence ? `apiVersion: v1\nkind: ConfigMap\ndata:\n- ${body}\n- 1\n` : `apiVersion: v1\nkind: ConfigMap\ndata:\n  a: ${body}\n  b: 1\n`;
}

/**
 * Whether quick-yaml read `text`'s first document, after checking it gave parse.ts's value (not
 * js-yaml's: js-yaml keeps the blanks at the end of a quoted line before a line break).
 */
function readAsParseTs(text: string): boolean {
  const q = readQuick(text.split(/^(?=---\n)/m)[0], LIMITS);
  if (q === undefined) return false;
  const slow = parseText('q.yaml', text);
  expect([text, slow.errors.length]).toEqual([text, 0]);
  expect([text, q]).toStrictEqual([text, slow.objects[0].raw]);
  return true;
}

describe('quick-yaml reads as js-yaml does, or declines', () => {
  test('every document of the corpus (rendered manifests, chart values): the same value, and most are read', () => {
    const files = (fs.readdirSync(CORPUS_DIR, { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f) && !f.includes('templates'));
    let read = 0;
    let all = 0;
    for (const f of files) {
      for (const d of documents(fs.readFileSync(path.join(CORPUS_DIR, f), 'utf8'))) {
        all++;
        if (check(d) === 'read') read++;
      }
    }
    expect(all).toBeGreaterThan(900);
    // (Declined: multi-line plain and quoted scalars, flow mappings, folded scalars, empty documents.)
    expect(read / all).toBeGreaterThan(0.75);
  });

  const key = fc.oneof(fc.constantFrom('a', 'name', 'b c', 'x-y', 'k.io/z', 'yes', 'null', '1', '-k', '?k', ':k', 'é', '😀', 'a#b', 'a:b', '__proto__', '<<', "it's", 'q"t'), fc.string({ maxLength: 5 }));
  const scalar = fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.constantFrom('', ' lead', 'trail ', 'a: b', 'a #b', '#c', '- x', '[x]', '{}', '&a', '*a', '!t', '|', '>', "'", '"', '\\', '\n', 'a\nb\n', 'a\n\nb', ' \n', '\u2028', 'yes', '010', '0x1F', '1_000', '~', 'null', '.inf', '1e3', '-0', '2001-01-01', 'é😀'),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const value: fc.Arbitrary<Json> = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, scalar as fc.Arbitrary<Json>, fc.array(tie('v'), { maxLength: 4 }) as fc.Arbitrary<Json>, fc.dictionary(key, tie('v'), { maxKeys: 4 }) as fc.Arbitrary<Json>),
  })).v;
  const root = fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 });
  /** The layouts tools write: js-yaml's dump options, and kubectl's (sequences at the key's column). */
  const dumpOptions = fc.record({
    indent: fc.constantFrom(1, 2, 4),
    noArrayIndent: fc.boolean(),
    flowLevel: fc.constantFrom(-1, -1, 1, 2),
    lineWidth: fc.constantFrom(-1, 20, 80),
    quotingType: fc.constantFrom<"'" | '"'>("'", '"'),
    forceQuotes: fc.boolean(),
  });
  const comment = fc.constantFrom('', ' # c', '  #c: d', ' #');

  test('generated values in the layouts tools write, with comments and blank lines: the same value', () => {
    let read = 0;
    fc.assert(
      fc.property(root, dumpOptions, comment, fc.boolean(), (v, opts, c, marker) => {
        let text = jsyaml.dump(v, { ...opts, noRefs: true });
        if (c) text = text.replace(/\n(?=[^\n]*\n)/, `${c}\n\n`);
        if (marker) text = `---${c}\n${text}`;
        if (check(text) === 'read') read++;
      }),
      { numRuns: 600, seed: 2411 },
    );
    expect(read).toBeGreaterThan(150);
  });

  test('mutated manifests and token soups (the fuzz suite\'s inputs): the same value, or declined', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, tokenText), (text) => {
        for (const d of documents(text)) check(d);
      }),
      { numRuns: 800, seed: 2412 },
    );
  });

  test('multi-line plain and single-quoted values (empty lines, blanks at line ends, quotes, indicators): parse.ts\'s value, or declined', () => {
    const piece = fc.constantFrom('x', 'y', 'a b', "it''s", '', ' ', '  ', 'z:', '#q', '-', 'é', '123', 'yes');
    let read = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, fc.boolean()), { minLength: 2, maxLength: 5 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.boolean(), (lines, indent, quoted, inSequence) => {
        const ls = lines.map(([p, blanks]) => p + (blanks ? '  ' : ''));
        const pad = ' '.repeat(2 + indent);
        const body = `${quoted ? "'" : ''}${ls[0]}${ls.slice(1).map((l) => `\n${l === '' ? '' : pad + l}`).join('')}${quoted ? "'" : ''}`;
        if (readAsParseTs(holding(body, inSequence))) read++;
      }),
      { numRuns: 3000, seed: 5150 },
    );
    expect(read).toBeGreaterThan(1000);
  });

  test('multi-line double-quoted values (escapes, escaped breaks, empty lines, blanks at line ends): parse.ts\'s value, or declined', () => {
    const piece = fc.constantFrom('x', 'a b', '\\t', '\\"', '\\\\', '\\ ', '\\x41', '\\u00e9', '\\U0001F600', '\\N', '\\0', '\\', '\\/', "\\'", '\\ud800', '"', "'", '', ' ', '  ', '#q', ' #q', 'z: w', '- k', 'é', '123', 'yes');
    let read = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), fc.boolean()), { minLength: 2, maxLength: 5 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), (lines, indent, inSequence) => {
        const ls = lines.map(([ps, blanks]) => ps.join('') + (blanks ? '  ' : ''));
        const pad = ' '.repeat(indent === 0 ? 0 : 1 + indent);
        const body = `"${ls[0]}${ls.slice(1).map((l) => `\n${l === '' ? '' : pad + l}`).join('')}"`;
        if (readAsParseTs(holding(body, inSequence))) read++;
      }),
      { numRuns: 3000, seed: 5151 },
    );
    expect(read).toBeGreaterThan(500);
  });

  test('literal block scalars with chomping and indentation indicators (empty and blank lines, what follows them): parse.ts\'s value, or declined', () => {
    const header = fc.constantFrom('|', '|-', '|+', '|2', '|2-', '|-2', '|+2', '|2+', '|1', '|4', '|+ # c', '|3-');
    const line = fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 7 }).map((n) => ' '.repeat(n)), fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom('x', 'y z', '# not', '- k', 'k: v', 'é')).map(([extra, w]) => ({ extra, w })));
    const after = fc.constantFrom('next', '# c\n', '  # c\n', 'end', 'end-no-lf', '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: z\n');
    let read = 0;
    fc.assert(
      fc.property(header, fc.array(line, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 3 }), after, fc.boolean(), (h, lines, base, tail, inSequence) => {
        const body = lines.map((l) => (typeof l === 'string' ? l : ' '.repeat(2 + base + l.extra) + l.w)).join('\n');
        const next = inSequence ? '  - 1\n' : '  b: 1\n';
        const end = tail === 'next' ? next : tail === 'end' || tail === 'end-no-lf' ? '' : tail.startsWith('---') ? tail : tail + next;
        let text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\ndata:\n  ${inSequence ? '-' : 'a:'} ${h}\n${body}\n${end}`;
        if (tail === 'end-no-lf') text = text.replace(/\n$/, '');
        if (readAsParseTs(text)) read++;
      }),
      { numRuns: 4000, seed: 5152 },
    );
    expect(read).toBeGreaterThan(1000);
  });

  test.each([
    ['a plain scalar with a comment', 'a: b # c\nd: e\n', { a: 'b', d: 'e' }],
    ['kubectl sequences at the key\'s column', 'a:\n- b\n- c: 1\n  d: 2\ne: f\n', { a: ['b', { c: 1, d: 2 }], e: 'f' }],
    ['a literal block scalar, kept indentation and blank lines', 'a: |\n  x\n\n    y\n\n\nb: |-\n  z\n', { a: 'x\n\n  y\n', b: 'z' }],
    ['a literal block scalar whose text looks like keys and comments', 'a: |\n  k: v\n  # not a comment\n  - x\nb: 1\n', { a: 'k: v\n# not a comment\n- x\n', b: 1 }],
    ['quoted scalars and keys', '"a b": \'it\'\'s\'\n\'c\': "q\\"\\n\\\\"\n', { 'a b': "it's", c: 'q"\n\\' }],
    ['empty flow collections and a one-line flow sequence', 'a: {}\nb: []\nc: ["x", yy, -1, \'z\', y]\n', { a: {}, b: [], c: ['x', 'yy', -1, 'z', true] }],
    ['YAML 1.1 scalars', 'a: yes\nb: 010\nc: ~\nd: 0x1F\ne: 1_000\nf: "yes"\n', { a: true, b: 8, c: null, d: 31, e: 1000, f: 'yes' }],
    ['an empty value before a less indented key', 'a:\n  b:\nc: 1\n', { a: { b: null }, c: 1 }],
    // (Loki's chart: `config.yaml: |` and a blank line. One such document made a whole List dump leave this reader.)
    // go-yaml folds long strings at 80 columns (kubectl get -o yaml: condition messages, annotations).
    ['a folded single-quoted scalar', "a: 'LimitRanger plugin set: cpu request for container\n  hostnames'\nb: 'it''s\n\n  two ''lines'''\n", { a: 'LimitRanger plugin set: cpu request for container hostnames', b: "it's\ntwo 'lines'" }],
    ['a folded plain scalar, in a mapping and in a sequence', 'a:\n  message: 0/3 nodes are available 3 Insufficient cpu preemption 0/3 nodes\n    are available\n  type: X\nb:\n- one\n  two\n\n  three\n- 123\n  456\n', { a: { message: '0/3 nodes are available 3 Insufficient cpu preemption 0/3 nodes are available', type: 'X' }, b: ['one two\nthree', '123 456'] }],
    // go-yaml writes a string with a tab (or another character it escapes) double-quoted, folded at 80
    // columns: ConfigMap data indented with tabs, Go stack traces in termination messages.
    ['a folded double-quoted scalar (an escaped break, an escaped space, an empty line)', 'a: "panic: nil\\n\\tmain.go:12\n  +0x2c \\\n  \\ two\n\n  lines\\t"\nb:\n- "x\n  y"\n- "\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\b\\v\\f\\e\\r\\ \\"\\\\"\n', { a: 'panic: nil\n\tmain.go:12 +0x2c  two\nlines\t', b: ['x y', 'Aé😀\x85\xa0\u2028\u2029\0\x07\b\v\f\x1b\r "\\'] }],
    // go-yaml writes `|+` for a string that ends with an empty line (config files often do), `|2` for
    // one that starts with a space or a line break.
    ['keep chomping and indentation indicators', 'a: |+\n  x\n\n\nb: |2\n    indented\n  x\nc: |2-\n\n   y\n# c\nd:\n- |+2\n   z\n\n- 1\n', { a: 'x\n\n\n', b: '  indented\nx\n', c: '\n y', d: [' z\n\n', 1] }],
    ['leading empty lines in a literal block scalar (line feeds of its content)', 'a: |\n\n  x\nb: |-\n\n \n  y\n\n  z\nc:\n- |\n\n    q\n', { a: '\nx\n', b: '\n\ny\n\nz', c: ['\nq\n'] }],
  ])('reads %s', (_name, text, expected) => {
    expect(readQuick(text, LIMITS)).toStrictEqual(expected);
    expect(check(text)).toBe('read');
    expect(parseText('q.yaml', `apiVersion: v1\nkind: ConfigMap\n${text}`).objects[0].raw).toStrictEqual({ apiVersion: 'v1', kind: 'ConfigMap', ...(expected as object) });
  });

  test.each([
    ['a multi-line double-quoted scalar whose next line is not more indented than its key', 'a:\n  b: "x\n  y"\n'],
    ['a double-quoted scalar never closed', 'a: "b\n  c\n'],
    ['an escape go-yaml reads otherwise than YAML 1.2 (`\\/`, `\\\'`)', 'a: "x\\/"\nb: "y"\n'],
    ['a single quote escaped in double quotes (go-yaml only)', 'a: "it\\\'s"\n'],
    ['an escaped surrogate (go-yaml refuses it)', 'a: "\\ud800"\n'],
    ['a code point beyond Unicode', 'a: "\\U00110000"\n'],
    ['a short hex escape', 'a: "\\x4"\n'],
    ['a multi-line plain scalar whose next line starts with an indicator', 'a: b\n  - c\n'],
    ['a multi-line plain scalar with a comment line inside', 'a: b\n  # c\n  d\n'],
    ['a multi-line plain scalar whose next line holds `: `', 'a: b\n  c: d\n'],
    ['a multi-line single-quoted scalar whose next line is not more indented than its key', "a:\n  b: 'x\n  y'\n"],
    ['a folded block scalar', 'a: >\n  b\n'],
    ['keep chomping at the end of the text without a line feed', 'a: |+\n  b\n  '],
    ['a line of blanks beyond an indentation indicator (yaml drops it; YAML 1.2 and go-yaml keep its blanks)', 'a: |2\n    b\n     \nc: 1\n'],
    ['a block scalar with an indentation indicator and no content', 'a: |2\n\nb: 1\n'],
    ['a leading empty line with more spaces than the first line of a block scalar (an error)', 'a: |\n    \n  b\n'],
    ['a block scalar of empty lines only', 'a: |\n\nb: 1\n'],
    ['a block scalar at the end without a line feed', 'a: |\n  b'],
    ['a flow mapping', 'a: {b: c}\n'],
    ['a nested flow sequence', 'a: [b, [c]]\n'],
    ['a trailing comma', 'a: [b, c,]\n'],
    ['an anchor and alias', 'a: &x b\nc: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['an explicit key', '? a\n: b\n'],
    ['a merge key', 'a: 1\n<<: {b: 2}\n'],
    ['a __proto__ key', '__proto__: 1\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['a key go-yaml reads as a boolean', 'yes: 1\n'],
    ['an int key', '1: a\n'],
    ['a space before the colon', 'a : 1\n'],
    ['a tab', 'a:\tb\n'],
    ['a CR', 'a: b\r\n'],
    ['a document end', 'a: b\n...\n'],
    ['a mapping value on the key\'s line', 'a: b: c\n'],
    ['a sequence in a sequence on one line', '- - a\n'],
    ['a root sequence', '- a\n'],
    ['a root scalar', 'a\n'],
    ['only comments', '# a\n'],
    ['a key over the key limit', `${'k'.repeat(201)}: a\n`],
    ['an escape js-yaml and JSON read differently', 'a: "\\x41\\/"\n'],
    ['a non-printable character', 'a: "\u0001"\n'],
    ['a more indented line after a key', 'a: 1\n  b: 2\n'],
  ])('declines %s', (_name, text) => {
    expect(readQuick(text, LIMITS)).toBeUndefined();
  });

  test('declines nesting and sizes past its limits', () => {
    const deep = Array.from({ length: 12 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n';
    expect(readQuick(deep, { ...LIMITS, maxDepth: 10 })).toBeUndefined();
    expect(readQuick(deep, LIMITS)).toBeDefined();
    const wide = Array.from({ length: 50 }, (_, i) => `k${i}: ${i}`).join('\n');
    expect(readQuick(`${wide}\n`, { ...LIMITS, maxNodes: 40 })).toBeUndefined();
  });

  test('`own` is applied to every string value of 13 characters or more (the ones V8 may make views of the text), and to nothing else', () => {
    const doc = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: short-name',
      '  namespace: a-longer-namespace',
      'data:',
      '  plain: a plain value of some length',
      '  double: "a double quoted value"',
      '  escaped: "an escaped \\"value\\" here"',
      "  single: 'it''s a single quoted value'",
      '  one-line: |',
      '    one line of literal text',
      '  one-line-strip: |-',
      '    one line of literal text',
      '  lines: |',
      '    first line of the text',
      '    second line',
      '  flow: [first-flow-item-long, "second-flow-item", short, 12345678901234]',
      '  number: 12345678901234',
      '  a-key-that-is-longer-than-13: x',
    ].join('\n');
    const seen: string[] = [];
    const own = (s: string) => {
      seen.push(s);
      return `<${s}>`;
    };
    const v = readQuick(doc, { ...LIMITS, own })!;
    expect(v).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'short-name', namespace: '<a-longer-namespace>' },
      data: {
        plain: '<a plain value of some length>',
        double: '<a double quoted value>',
        escaped: '<an escaped "value" here>',
        single: "<it's a single quoted value>",
        'one-line': '<one line of literal text\n>',
        'one-line-strip': '<one line of literal text>',
        // (Joined from several lines: a new string already.)
        lines: 'first line of the text\nsecond line\n',
        flow: ['<first-flow-item-long>', '<second-flow-item>', 'short', 12345678901234],
        number: 12345678901234,
        'a-key-that-is-longer-than-13': 'x',
      },
    });
    expect(seen.every((s) => s.length >= 13)).toBe(true);
    // Without it, js-yaml's values.
    expect(readQuick(doc, LIMITS)).toEqual(jsYaml(doc));
  });
});
