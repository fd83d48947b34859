/**
 * cloneDocument (lib/fix/clone.ts) against yaml's Document.clone(): the same nodes with the same
 * own properties, the same rendering and value, independent of the original (editing the copy
 * leaves the original as it was), over every document of the corpus and some anchored ones.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Document, isCollection, isNode, isPair, parseAllDocuments } from 'yaml';
import { cloneDocument } from '../../lib/fix/clone';
import { k8sValue } from '../../lib/model/yaml11';
import { expectEqual } from '../helpers/equal';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const NODE_TYPE = Symbol.for('yaml.node.type');

/** Every node's constructor and own properties (nodes by their shape, ranges by value). */
function shape(n: unknown, schemaOf: unknown): unknown {
  if (!isNode(n) && !isPair(n)) return n;
  const src = n as unknown as Record<string | symbol, unknown>;
  const out: Record<string, unknown> = { ctor: (n as object).constructor.name, type: String(src[NODE_TYPE]) };
  for (const k of Reflect.ownKeys(n)) {
    if (k === NODE_TYPE) continue;
    const d = Object.getOwnPropertyDescriptor(n, k)!;
    const key = `${String(k)}${d.enumerable ? '' : ' (hidden)'}`;
    if (k === 'schema') out[key] = d.value === schemaOf ? 'the document schema' : 'another schema';
    else if (k === 'items') out[key] = (d.value as unknown[]).map((it) => shape(it, schemaOf));
    else if (k === 'key' || k === 'value') out[key] = shape(d.value, schemaOf);
    else out[key] = d.get ? 'accessor' : d.value;
  }
  return out;
}

const texts: [string, string][] = [
  ...fs
    .readdirSync(CORPUS)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => [f, fs.readFileSync(path.join(CORPUS, f), 'utf8')] as [string, string]),
  ['anchors', 'base: &b {a: 1, "q": \'x\'}\nuse:\n  <<: *b\n  list: [*b, 2]\n# tail\n'],
  ['tags and comments', '%YAML 1.1\n---\n# head\nk: !!str 010 # c\nseq:\n- |\n  block\n- >-\n  folded\n...\n'],
];

describe('cloneDocument', () => {
  test.each(texts)('%s: same nodes, rendering and values as yaml clone()', (_name, text) => {
    // The documents --fix edits (workloads; CRD schemas would only make this slow).
    for (const doc of parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false }) as Iterable<Document.Parsed>) {
      if (!/^kind: (Deployment|StatefulSet|DaemonSet|Service|PodDisruptionBudget|HorizontalPodAutoscaler)$/m.test(text.slice(doc.range[0], doc.range[2])) && !/anchors|tags/.test(_name)) continue;
      const mine = cloneDocument(doc);
      const theirs = doc.clone();
      expectEqual(shape(mine.contents, mine.schema), shape(theirs.contents, theirs.schema));
      expect(mine.schema).not.toBe(doc.schema);
      if (!doc.errors.length) {
        expect(mine.toString()).toBe(theirs.toString());
        expectEqual(k8sValue(mine), k8sValue(theirs));
      }
    }
  });

  test('editing the copy leaves the original, its ranges included, as it was', () => {
    const doc = parseAllDocuments('a:\n  b: [1, 2]\n  c: x\n', { prettyErrors: false })[0] as Document.Parsed;
    const before = doc.toString();
    const copy = cloneDocument(doc);
    copy.setIn(['a', 'c'], 'y');
    copy.addIn(['a', 'b'], 3);
    const seq = copy.getIn(['a', 'b'], true);
    expect(isCollection(seq)).toBe(true);
    (seq as { range: number[] }).range[0] = 99;
    expect(doc.toString()).toBe(before);
    expect((doc.getIn(['a', 'b'], true) as { range: number[] }).range[0]).not.toBe(99);
    expect(copy.toString()).toBe('a:\n  b: [ 1, 2, 3 ]\n  c: y\n');
  });
});
