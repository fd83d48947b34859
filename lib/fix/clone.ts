/**
 * yaml's Document.clone(), several times faster: yaml copies every node with
 * Object.create(proto, Object.getOwnPropertyDescriptors(node)), which is slow and leaves slow
 * objects behind; --fix clones each document it edits. The copy here is the same shallow copy of
 * each node's own properties (the enumerable ones, plus the two yaml defines hidden: the node type
 * and a collection's schema, which becomes the new document's as in yaml), with new range arrays
 * and pairs; aliases are copied by yaml itself. test/fix/clone.test.ts compares it with yaml's
 * clone over the corpus.
 */
import { Document, isAlias, isCollection, isNode, isPair, Pair, Schema } from 'yaml';

const NODE_TYPE = Symbol.for('yaml.node.type');

type Props = Record<string | symbol, unknown>;

function cloneNode(n: unknown, schema: Schema): unknown {
  if (isPair(n)) return new Pair(isNode(n.key) ? cloneNode(n.key, schema) : n.key, isNode(n.value) ? cloneNode(n.value, schema) : n.value);
  if (isAlias(n)) return n.clone();
  const src = n as Props;
  const c = Object.create(Object.getPrototypeOf(n) as object) as Props;
  Object.defineProperty(c, NODE_TYPE, { value: src[NODE_TYPE] });
  for (const k of Object.keys(src)) c[k] = src[k];
  if (isCollection(n)) {
    Object.defineProperty(c, 'schema', { value: schema, configurable: true, enumerable: false, writable: true });
    c.items = (n.items as unknown[]).map((it) => (isNode(it) || isPair(it) ? cloneNode(it, schema) : it));
  }
  if (Array.isArray(src.range)) c.range = src.range.slice();
  return c;
}

/** A copy of `doc` to edit, as `doc.clone()` makes it. */
export function cloneDocument<T extends Document>(doc: T): T {
  const contents = doc.contents;
  let copy: T;
  // yaml's own clone for everything but the node tree (directives, schema, errors, comments).
  (doc as Document).contents = null;
  try {
    copy = doc.clone() as T;
  } finally {
    (doc as Document).contents = contents;
  }
  (copy as Document).contents = isNode(contents) ? (cloneNode(contents, copy.schema) as Document['contents']) : contents;
  return copy;
}
