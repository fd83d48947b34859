/**
 * A large YAML `kind: List` with a syntax error in an item (a `kubectl get -A -o yaml` dump
 * someone edited): the error is found from the items the fast reader declines and the lines
 * around them (list-error.ts), instead of reading the whole document with yaml (a 38 MB dump:
 * 28 s and 2.2 GB before, 1.4 s and 220 MB now). What is reported must be what parse.ts reports
 * for the whole text: the same line, column and message, and no object (Kubernetes refuses the
 * whole List).
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as jsyaml from 'js-yaml';
import * as path from 'path';
import { goYamlFolded, kubectlDump } from '../../bench/generate';
import { listDocumentError, parseYamlFast, parseYamlListFile } from '../../lib/model/fast-yaml';
import { parseJsonListBytes, parseJsonListFile } from '../../lib/model/fast-json';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { stampedFiles } from '../helpers/files';
import { CORPUS_DIR, TOKENS } from '../helpers/yaml-inputs';

const { stamped } = stampedFiles('kg-listerror-');

/** Objects for the Lists: a kubectl dump's and the smaller corpus objects (Deployments, ConfigMaps, RBAC, webhooks...). */
const OBJECTS: JsonObject[] = (() => {
  const out = kubectlDump(40) as JsonObject[];
  const rendered = path.join(CORPUS_DIR, 'rendered');
  if (fs.existsSync(rendered)) {
    for (const f of fs.readdirSync(rendered).filter((x) => x.endsWith('.yaml')).sort()) {
      for (const o of parseText(f, fs.readFileSync(path.join(rendered, f), 'utf8')).objects) if (JSON.stringify(o.raw).length < 6000) out.push(o.raw);
    }
  }
  return out;
})();

/** A List's text as kubectl (items at column 0) or js-yaml (indented) writes it, go-yaml's folding applied. */
function listText(items: JsonObject[], kubectlLayout: boolean): string {
  return goYamlFolded(jsyaml.dump({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, { lineWidth: -1, noRefs: true, noArrayIndent: kubectlLayout }));
}

/** The lines of item `k` of a List's text (its `- ` line to the next item's), as [first, end) line indexes. */
function itemLines(lines: string[], k: number): [number, number] {
  const open = lines.indexOf('items:') + 1;
  const col = lines[open].indexOf('-');
  const starts: number[] = [];
  for (let i = open; i < lines.length; i++) {
    const l = lines[i];
    if (l.length > col && l.slice(0, col).trim() === '' && l.startsWith('- ', col)) starts.push(i);
    else if (l.trim() !== '' && l.length - l.trimStart().length <= col && !l.startsWith('- ', col)) {
      starts.push(i);
      break;
    }
  }
  if (starts.length <= k + 1) starts.push(lines.length - 1);
  return [starts[k], starts[k + 1]];
}

type Edit = [number, string, 'insert' | 'delete-line' | 'dup-line' | 'indent' | 'delete-char'];

/** Item `k` of the text broken by the edits (only its lines change; its `- ` line keeps its dash). */
function broken(text: string, k: number, edits: Edit[]): string {
  const lines = text.split('\n');
  const [a, b] = itemLines(lines, k);
  const item = lines.slice(a, b);
  for (const [at, tok, op] of edits) {
    const i = 1 + (at % Math.max(1, item.length - 1));
    const l = item[i] ?? '';
    if (op === 'delete-line') item.splice(i, 1);
    else if (op === 'dup-line') item.splice(i, 0, l);
    else if (op === 'indent') item[i] = ' '.repeat(at % 5) + l.trimStart();
    else if (op === 'delete-char') item[i] = l.slice(0, at % (l.length + 1)) + l.slice((at % (l.length + 1)) + 1);
    else item[i] = l.slice(0, at % (l.length + 1)) + tok + l.slice(at % (l.length + 1));
  }
  return [...lines.slice(0, a), ...item, ...lines.slice(b)].join('\n');
}

const edit: fc.Arbitrary<Edit> = fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...TOKENS, '"', "'", '[', '{', ': ', '- x', '  a: b', 'a:b: c'), fc.string({ maxLength: 4 })), fc.constantFrom('insert', 'delete-line', 'dup-line', 'indent', 'delete-char'));

describe('the syntax error of a large List, from the items around it (list-error.ts)', () => {
  test('randomly broken Lists: the error found is the one parse.ts reports for the whole text (streamed and in memory), and it is found for most of them', () => {
    let found = 0;
    let errors = 0;
    fc.assert(
      fc.property(
        fc.array(fc.nat(OBJECTS.length - 1), { minLength: 3, maxLength: 7 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 3 })), { minLength: 1, maxLength: 2 }),
        fc.option(fc.double({ min: 0.3, max: 1, noNaN: true }), { freq: 4 }),
        (picks, kubectlLayout, breaks, cut) => {
          let text = listText(picks.map((i) => OBJECTS[i]), kubectlLayout);
          for (const [k, edits] of breaks) text = broken(text, k % picks.length, edits);
          // A file cut short (a dump interrupted), anywhere.
          if (cut !== null) text = text.slice(0, Math.floor(text.length * cut));
          const whole = parseText('l.yaml', text);
          // (The rate below is of syntax errors; a List cut short at a line, or an item whose `kind:`
          // line was deleted, is no syntax error: see not-an-object.ts.)
          const syntax = whole.errors.length > 0 && whole.objects.length === 0 && !whole.errors[0].message.startsWith('a List without kind');
          if (syntax) errors++;
          // In memory: the document's error, or nothing.
          const mem = listDocumentError('l.yaml', text, 1, 0);
          if (mem) {
            expect(whole.objects).toEqual([]);
            expect([mem]).toEqual(whole.errors);
          }
          // Streamed: the error and no object, or the objects parse.ts reads, or declined (also for
          // a byte-order mark or line separator inside, which the in-memory reading takes).
          const file = parseYamlListFile('l.yaml', stamped('l.yaml', text), 4096, undefined, 4096);
          if (file?.errors.length) {
            if (syntax) found++;
            // A syntax error (no object), or items that read like objects written wrong (a deleted
            // `kind:` line; see not-an-object.ts) beside the other items' objects.
            if (mem) expect(file.errors).toEqual([mem]);
            expect({ errors: file.errors, documents: file.documents }).toEqual({ errors: whole.errors, documents: 1 });
            expect(file.objects.map((o) => o.raw)).toEqual(whole.objects.map((o) => o.raw));
          } else if (file) {
            expect(whole.errors).toEqual([]);
            expect(file.objects.map((o) => o.raw)).toEqual(whole.objects.map((o) => o.raw));
          }
        },
      ),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 400), seed: 2711 },
    );
    // Most broken Lists have an error, and it is found for most of them (the rest: a quote or
    // bracket left open, an item whose lines no longer stand apart).
    if (process.env.KG_SHOW) console.log(found, errors);
    expect(errors).toBeGreaterThan(200);
    expect(found / errors).toBeGreaterThan(0.6);
  });

  test('an unterminated quote that takes in the items after it is left to the whole reading', () => {
    const items = [0, 1, 2, 3].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { a: 'x' } }));
    const text = listText(items, true).replace('name: c1\n', 'name: "c1\n');
    expect(parseText('l.yaml', text).errors).toHaveLength(1);
    expect(listDocumentError('l.yaml', text, 1, 0)).toBeUndefined();
    expect(parseYamlListFile('l.yaml', stamped('q.yaml', text), 64, undefined, 64)).toBeUndefined();
  });

  test('a well-formed item quick-yaml declines (an anchor) is no error: the document is read as before', () => {
    const text = 'apiVersion: v1\nitems:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: &n a\nkind: List\n';
    expect(listDocumentError('l.yaml', text, 1, 0)).toBeUndefined();
  });

  test('a large document in memory (parseYamlFast): the error on its line after the documents before it, the other documents still read', () => {
    const before = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n';
    const items = Array.from({ length: 400 }, (_, i) => OBJECTS[i % OBJECTS.length]);
    const list = broken(listText(items, true), 250, [[3, '  x: [', 'insert']]);
    const text = `${before}---\n${list}---\n${before.replace('first', 'last')}`;
    expect(list.length).toBeGreaterThan(256 * 1024);
    const fast = parseYamlFast('big.yaml', text)!;
    const whole = parseText('big.yaml', text);
    expect(whole.errors).toHaveLength(1);
    expect(fast.errors).toEqual(whole.errors);
    expect(fast.objects.map((o) => [o.name, o.line])).toEqual(whole.objects.map((o) => [o.name, o.line]));
    expect(fast.documents).toBe(whole.documents);
  });

  test('randomly broken JSON Lists (kubectl\'s and jq\'s indentation, with and without a final line feed): the error found is parse.ts\'s for the whole text, in memory and streamed', () => {
    let found = 0;
    let errors = 0;
    const jsonEdit = fc.tuple(fc.nat(), fc.constantFrom(',', '"', '{', '}', '[', ']', ':', 'x', '\\', ' '), fc.constantFrom('insert', 'delete-line', 'dup-line', 'delete-char'));
    fc.assert(
      fc.property(
        fc.array(fc.nat(OBJECTS.length - 1), { minLength: 3, maxLength: 7 }),
        fc.constantFrom(2, 4),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.array(jsonEdit, { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 2 }),
        fc.option(fc.double({ min: 0.3, max: 1, noNaN: true }), { freq: 4 }),
        (picks, indent, finalLf, breaks, cut) => {
          const lines = JSON.stringify({ apiVersion: 'v1', items: picks.map((i) => OBJECTS[i]), kind: 'List', metadata: { resourceVersion: '' } }, null, indent).split('\n');
          // Item k: from its `{` line to its `}` line.
          const open = lines.findIndex((l) => l.endsWith('"items": ['));
          const itemStarts = lines.flatMap((l, i) => (i > open && l === `${' '.repeat(2 * indent)}{` ? [i] : []));
          for (const [k0, edits] of breaks) {
            const k = k0 % itemStarts.length;
            const a = itemStarts[k];
            const b = lines.indexOf(`${' '.repeat(2 * indent)}}`, a) >= 0 ? Math.min(...[`${' '.repeat(2 * indent)}}`, `${' '.repeat(2 * indent)}},`].map((x) => lines.indexOf(x, a)).filter((x) => x >= 0)) : a;
            for (const [at, tok, op] of edits) {
              const i = a + 1 + (at % Math.max(1, b - a - 1));
              const l = lines[i] ?? '';
              const c = at % (l.length + 1);
              if (op === 'delete-line') lines.splice(i, 1, '');
              else if (op === 'dup-line') lines[i] = `${l}\n${l}`;
              else if (op === 'delete-char') lines[i] = l.slice(0, c) + l.slice(c + 1);
              else lines[i] = l.slice(0, c) + tok + l.slice(c);
            }
          }
          let text = lines.join('\n').replace(/\n\n/g, '\n') + (finalLf ? '\n' : '');
          if (cut !== null) text = text.slice(0, Math.floor(text.length * cut));
          const whole = parseText('l.json', text);
          const syntax = whole.errors.length > 0 && whole.objects.length === 0;
          if (syntax) errors++;
          const results = [parseJsonListBytes('l.json', Buffer.from(text)), parseJsonListFile('l.json', stamped('l.json', text), 64)];
          for (const r of results) {
            if (r?.errors.length) {
              // (A syntax error, or items without kind beside the other items' objects.)
              expect({ errors: r.errors, documents: r.documents }).toEqual({ errors: whole.errors, documents: 1 });
              expect(r.objects.map((o) => o.raw)).toEqual(whole.objects.map((o) => o.raw));
            } else if (r) {
              expect(whole.errors).toEqual([]);
              expect(r.objects.map((o) => o.raw)).toEqual(whole.objects.map((o) => o.raw));
            }
          }
          if (results[0]?.errors.length && syntax) found++;
          expect(results[1]?.errors).toEqual(results[0]?.errors);
        },
      ),
      { numRuns: Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 300), seed: 2712 },
    );
    if (process.env.KG_SHOW) console.log(found, errors);
    // Most of the random edits open or close a bracket or a quote, which takes in the items after
    // it: those are read whole (below, the edits people make are found).
    expect(errors).toBeGreaterThan(150);
    expect(found / errors).toBeGreaterThan(0.15);
  });

  test.each([
    ['a missing comma between members', (t: string) => t.replace('"name": "c150",', '"name": "c150"')],
    ['a stray comma', (t: string) => t.replace('"name": "c150",', '"name": "c150",,')],
    ['a value without quotes and a colon', (t: string) => t.replace('"name": "c150",', '"name" c150,')],
    ['two broken items', (t: string) => t.replace('"name": "c150",', '"name": "c150"').replace('"name": "c300",', '"name": "c300",,')],
  ])('%s in a large JSON List: found, as parse.ts reports it for the whole text', (_name, breakIt) => {
    const items = Array.from({ length: 400 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'ns' }, data: { k: 'v' } }));
    for (const indent of [2, 4]) {
      const text = breakIt(JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, indent));
      const whole = parseText('l.json', text);
      expect(whole.errors).toHaveLength(1);
      for (const r of [parseJsonListBytes('l.json', Buffer.from(text)), parseJsonListFile('l.json', stamped('b.json', text), 4096)]) {
        expect(r && { objects: r.objects.length, errors: r.errors }).toEqual({ objects: 0, errors: whole.errors });
      }
    }
  });

  test('a List cut short (a dump interrupted): its error found from the last item, YAML and JSON, in memory and streamed', () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'ns' }, data: { k: "it's: quoted" } }));
    const json = JSON.stringify({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, null, 4);
    const yaml = listText(items, true);
    for (const [name, text] of [
      ['cut.json', json.slice(0, json.indexOf('"c250"') + 3)],
      ['cut.yaml', yaml.slice(0, yaml.indexOf("'it", yaml.indexOf('name: c250')) + 3)],
    ]) {
      const whole = parseText(name, text);
      expect(whole.errors).toHaveLength(1);
      const got = name.endsWith('.json')
        ? [parseJsonListBytes(name, Buffer.from(text)), parseJsonListFile(name, stamped(name, text), 4096)]
        : [{ errors: [listDocumentError(name, text, 1, 0)], objects: [] }, parseYamlListFile(name, stamped(name, text), 4096, undefined, 4096)];
      for (const r of got) expect(r && { objects: r.objects.length, errors: r.errors }).toEqual({ objects: 0, errors: whole.errors });
    }
  });

  test('an unterminated quote in a JSON List is left to the whole reading', () => {
    const text = JSON.stringify({ apiVersion: 'v1', items: [0, 1, 2].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } })), kind: 'List' }, null, 4).replace('"c1"', '"c1');
    expect(parseText('l.json', text).errors).toHaveLength(1);
    expect(parseJsonListBytes('l.json', Buffer.from(text))).toBeUndefined();
    expect(parseJsonListFile('l.json', stamped('t.json', text), 64)).toBeUndefined();
  });
});
