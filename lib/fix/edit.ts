import { Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { IndexShift, isUnder, sameValue } from './values';
import { FixEdit } from '../engine/types';
import { pointerSegments } from '../model/parse';
import { Json } from '../model/types';

/** An edit that cannot be applied to this document (the fix is skipped with this reason). */
export class FixError extends Error {}

type Collection = YAMLMap<unknown, unknown> | YAMLSeq<unknown>;

function keyOf(p: Pair<unknown, unknown>): string | undefined {
  const k = p.key;
  if (isScalar(k)) return k.value === null ? undefined : String(k.value);
  if (typeof k === 'string' || typeof k === 'number') return String(k);
  return undefined;
}

function pairIndex(map: YAMLMap<unknown, unknown>, key: string): number {
  return map.items.findIndex((p) => isPair(p) && keyOf(p) === key);
}

function hasMergeKey(map: YAMLMap<unknown, unknown>): boolean {
  return map.items.some((p) => keyOf(p) === '<<');
}

function seqIndex(seg: string, seq: YAMLSeq<unknown>, allowEnd: boolean, where: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(seg)) throw new FixError(`${where} is a sequence, so "${seg}" is not an index into it`);
  const i = Number(seg);
  if (i > seq.items.length || (i === seq.items.length && !allowEnd)) throw new FixError(`${where} has no item ${i}`);
  return i;
}

function isNullScalar(v: unknown): boolean {
  return v === null || v === undefined || (isScalar(v) && v.value === null);
}

function display(segs: string[]): string {
  return segs.length ? '/' + segs.join('/') : 'the document root';
}

/** What an edit run did to one document. */
export interface EditResult {
  /** Whether the document changed at all. */
  changed: boolean;
  /**
   * Absolute document pointers (segments, in the edited document) the edits set, appended to or
   * removed: values may change only under them, or move to another index as `shifts` records.
   */
  touched: string[][];
  /**
   * Pointers (in the document before the edits) that other fixes of the same pass must leave
   * alone: the edited ones, and for a removed sequence item that index and every later one, since
   * their meaning changed.
   */
  claimed: string[][];
  /**
   * The sequences (paths in the edited document) that lost items: for each remaining item, its
   * index before the edits (appended items lie past the end).
   */
  shifts: IndexShift[];
}

/** `path` with the index under `seq` lowered past a removed item `index`; undefined when it was under that item. */
function rebase(path: string[], seq: string[], index: number): string[] | undefined {
  if (path.length <= seq.length || !isUnder(path, seq)) return path;
  const k = Number(path[seq.length]);
  if (k < index) return path;
  if (k === index) return undefined;
  return [...seq, String(k - 1), ...path.slice(seq.length + 1)];
}

/**
 * Applies edits (pointers relative to `basePointer`) to a parsed document in place. Existing nodes
 * are updated where they are, so their comments, quoting and flow style stay; only missing
 * parents are created. Throws FixError when the document's shape does not allow an edit.
 */
export function applyEdits(doc: Document, basePointer: string, edits: FixEdit[]): EditResult {
  const ed = new Editor(doc);
  let touched: string[][] = [];
  const claimed: string[][] = [];
  let shifts = new Map<string, IndexShift>();
  for (const e of edits) {
    if (e.op === 'add-object') continue; // handled by the caller: it becomes a new document
    const segs = pointerSegments(basePointer + e.pointer);
    if (!segs.length) throw new FixError('an edit cannot replace a whole document');
    if (e.op === 'set') ed.set(segs, e.value);
    else if (e.op === 'append') ed.append(segs, e.value);
    else {
      const gone = ed.remove(segs);
      if (gone) {
        // The later items move down one index: only their index changes (the caller compares each
        // with the item it was), but no other fix may aim at any of them before the next lint.
        const seq = segs.slice(0, -1);
        for (let k = gone.index; k <= gone.length; k++) claimed.push([...seq, String(k)]);
        touched = touched.flatMap((t) => {
          const r = rebase(t, seq, gone.index);
          return r ? [r] : [];
        });
        const moved = new Map<string, IndexShift>();
        for (const s of shifts.values()) {
          const path = rebase(s.path, seq, gone.index);
          if (path) moved.set(JSON.stringify(path), { path, origin: s.origin });
        }
        shifts = moved;
        const key = JSON.stringify(seq);
        const s = shifts.get(key) ?? { path: seq, origin: Array.from({ length: gone.length }, (_, k) => k) };
        s.origin.splice(gone.index, 1);
        shifts.set(key, s);
        continue;
      }
    }
    touched.push(segs);
    claimed.push(segs);
  }
  return { changed: ed.changed, touched, claimed, shifts: [...shifts.values()] };
}

/** A node an edit removed. */
interface Removed {
  node: Node;
  /** For a sequence item: takes its leading comment back from the neighbour it was handed to. */
  undoComment?: () => void;
}

class Editor {
  changed = false;
  /** Nodes removed so far by this fix, for reuse when the fix moves them. */
  private readonly removed: Removed[] = [];
  constructor(private readonly doc: Document) {}

  private root(): Collection {
    const c = this.doc.contents;
    if (!isMap(c) && !isSeq(c)) throw new FixError('the document is not a mapping');
    return c as Collection;
  }

  /** The collection at `segs`, creating missing mappings when `create`; undefined if absent. */
  private walk(segs: string[], create: boolean): Collection | undefined {
    let cur: Collection = this.root();
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i];
      const here = display(segs.slice(0, i));
      let next: unknown;
      if (isMap(cur)) {
        const idx = pairIndex(cur, seg);
        if (idx < 0) {
          if (hasMergeKey(cur)) throw new FixError(`${here} uses a YAML merge key (<<), so ${seg} may come from elsewhere; edit it by hand`);
          if (!create) return undefined;
          const m = this.doc.createNode({}) as YAMLMap<unknown, unknown>;
          unflowEmpty(cur);
          cur.items.push(this.doc.createPair(seg, m) as Pair<unknown, unknown>);
          this.changed = true;
          next = m;
        } else {
          const pair = cur.items[idx];
          if (isAlias(pair.value)) throw new FixError(`${display(segs.slice(0, i + 1))} is a YAML alias; editing through it would change the anchored value too`);
          if (isNullScalar(pair.value)) {
            if (!create) return undefined;
            const m = this.doc.createNode({}) as YAMLMap<unknown, unknown>;
            carryComments(pair.value, m);
            pair.value = m;
            this.changed = true;
          }
          next = pair.value;
        }
      } else {
        const idx = seqIndex(seg, cur, false, here);
        next = cur.items[idx];
        if (isAlias(next)) throw new FixError(`${display(segs.slice(0, i + 1))} is a YAML alias; editing through it would change the anchored value too`);
      }
      if (!isMap(next) && !isSeq(next)) throw new FixError(`${display(segs.slice(0, i + 1))} is not a mapping or sequence`);
      cur = next as Collection;
    }
    return cur;
  }

  set(segs: string[], value: Json): void {
    const parent = this.walk(segs.slice(0, -1), true)!;
    const key = segs[segs.length - 1];
    if (isMap(parent)) {
      const idx = pairIndex(parent, key);
      if (idx < 0) {
        if (hasMergeKey(parent)) throw new FixError(`${display(segs.slice(0, -1))} uses a YAML merge key (<<); edit it by hand`);
        unflowEmpty(parent);
        parent.items.push(this.doc.createPair(key, this.build(value)) as Pair<unknown, unknown>);
        this.changed = true;
        return;
      }
      const pair = parent.items[idx];
      pair.value = this.update(pair.value, value);
    } else {
      const idx = seqIndex(key, parent, true, display(segs.slice(0, -1)));
      if (idx === parent.items.length) {
        unflowEmpty(parent);
        parent.items.push(this.build(value, true));
        this.changed = true;
      } else {
        parent.items[idx] = this.update(parent.items[idx], value);
      }
    }
  }

  append(segs: string[], value: Json): void {
    const parent = this.walk(segs.slice(0, -1), true)!;
    const key = segs[segs.length - 1];
    let node: unknown;
    if (isMap(parent)) {
      const idx = pairIndex(parent, key);
      node = idx < 0 ? undefined : parent.items[idx].value;
    } else {
      node = parent.items[seqIndex(key, parent, false, display(segs.slice(0, -1)))];
    }
    if (isNullScalar(node)) {
      this.set(segs, [value]);
      return;
    }
    if (!isSeq(node)) throw new FixError(`${display(segs)} is not a sequence`);
    unflowEmpty(node);
    node.items.push(this.build(value, true));
    this.changed = true;
  }

  /**
   * Removes the node at `segs`. For a sequence item, says which index it had and how long the
   * sequence was (the later items shift); undefined otherwise (a mapping entry, or nothing there).
   */
  remove(segs: string[]): { index: number; length: number } | undefined {
    const parent = this.walk(segs.slice(0, -1), false);
    if (!parent) return undefined;
    const key = segs[segs.length - 1];
    if (isMap(parent)) {
      const idx = pairIndex(parent, key);
      if (idx < 0) return undefined;
      const [gone] = parent.items.splice(idx, 1);
      moveLeadingComment(gone.key, parent.items[idx]?.key, parent);
      if (isNode(gone.value)) this.removed.push({ node: gone.value });
      this.changed = true;
      return undefined;
    }
    if (!/^(0|[1-9][0-9]*)$/.test(key) || Number(key) >= parent.items.length) return undefined;
    const idx = Number(key);
    const length = parent.items.length;
    const [gone] = parent.items.splice(idx, 1);
    const undo = moveLeadingComment(gone, parent.items[idx], parent);
    if (isNode(gone)) this.removed.push({ node: gone, undoComment: undo });
    this.changed = true;
    return { index: idx, length };
  }

  /**
   * A removed node (or a node inside one) equal to `value`, taken out so it is used once; else, for
   * a mapping, a removed sequence item sharing most of its entries (a moved container that gains
   * or loses a field), updated to `value` so its keys keep their comments.
   */
  private takeRemoved(value: Json, item: boolean): Node | undefined {
    const search = (n: Node, detach: () => void): Node | undefined => {
      if (!isAlias(n) && sameValue(jsonOf(n), value)) {
        detach();
        return n;
      }
      if (isMap(n)) {
        for (const p of [...n.items]) {
          if (!isNode(p.value)) continue;
          const hit = search(p.value, () => n.items.splice(n.items.indexOf(p), 1));
          if (hit) return hit;
        }
      } else if (isSeq(n)) {
        for (const it of [...n.items]) {
          if (!isNode(it)) continue;
          const hit = search(it, () => n.items.splice(n.items.indexOf(it), 1));
          if (hit) return hit;
        }
      }
      return undefined;
    };
    for (const r of [...this.removed]) {
      const hit = search(r.node, () => this.removed.splice(this.removed.indexOf(r), 1));
      if (hit) return hit === r.node ? this.placed(r, item) : hit;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const entries = Object.entries(value);
    let best: { r: Removed; same: number } | undefined;
    for (const r of this.removed) {
      if (!r.undoComment || !isMap(r.node)) continue;
      const m = r.node;
      const same = entries.filter(([k, v]) => {
        const i = pairIndex(m, k);
        return i >= 0 && isNode(m.items[i].value) && !isAlias(m.items[i].value) && sameValue(jsonOf(m.items[i].value as Node), v);
      }).length;
      if (same * 2 > entries.length && (!best || same > best.same)) best = { r, same };
    }
    if (!best) return undefined;
    this.removed.splice(this.removed.indexOf(best.r), 1);
    return this.update(this.placed(best.r, item), value) as Node;
  }

  /**
   * A removed sequence item placed again: as an item, its leading comment comes back to it from the
   * neighbour it was handed to; elsewhere the neighbour keeps it.
   */
  private placed(r: Removed, item: boolean): Node {
    if (r.undoComment && item) r.undoComment();
    else if (r.undoComment) delete (r.node as { commentBefore?: string | null }).commentBefore;
    return r.node;
  }

  /**
   * A node for `value` (a sequence item when `item`). A value that an earlier edit of the same fix
   * removed is a move: the removed node is reused, with its comments and style.
   */
  private build(value: Json, item = false): Node {
    const reused = this.takeRemoved(value, item);
    if (reused) return reused;
    if (this.removed.length && value !== null && typeof value === 'object') {
      if (Array.isArray(value)) {
        const seq = this.doc.createNode([]) as YAMLSeq<unknown>;
        seq.flow = false;
        for (const v of value) seq.items.push(this.build(v, true));
        return seq;
      }
      const map = this.doc.createNode({}) as YAMLMap<unknown, unknown>;
      map.flow = false;
      for (const [k, v] of Object.entries(value)) map.items.push(this.doc.createPair(k, this.build(v)) as Pair<unknown, unknown>);
      return map;
    }
    return this.doc.createNode(value) as Node;
  }

  /** Makes `node` hold `value`, reusing the existing nodes wherever the shape allows. */
  private update(node: unknown, value: Json): unknown {
    if (value === null || typeof value !== 'object') {
      if (isScalar(node)) {
        if (node.value === value) return node;
        if (typeof node.value !== typeof value) {
          node.tag = undefined;
          if (typeof value !== 'string') node.type = undefined;
        }
        node.value = value;
        delete (node as { format?: string }).format;
        delete (node as { minFractionDigits?: number }).minFractionDigits;
        delete (node as { source?: string }).source;
        this.changed = true;
        return node;
      }
      return this.replace(node, value);
    }
    if (Array.isArray(value)) {
      if (!isSeq(node)) return this.replace(node, value);
      value.forEach((v, i) => {
        if (i < node.items.length) node.items[i] = this.update(node.items[i], v);
        else {
          unflowEmpty(node);
          node.items.push(this.build(v, true));
          this.changed = true;
        }
      });
      if (node.items.length > value.length) {
        node.items.splice(value.length);
        this.changed = true;
      }
      return node;
    }
    if (!isMap(node)) return this.replace(node, value);
    const map = node as YAMLMap<unknown, unknown>;
    for (const [k, v] of Object.entries(value)) {
      const idx = pairIndex(map, k);
      if (idx < 0) {
        unflowEmpty(map);
        map.items.push(this.doc.createPair(k, this.build(v)) as Pair<unknown, unknown>);
        this.changed = true;
      } else {
        map.items[idx].value = this.update(map.items[idx].value, v);
      }
    }
    for (let i = map.items.length - 1; i >= 0; i--) {
      const k = keyOf(map.items[i]);
      if (k === undefined || !Object.prototype.hasOwnProperty.call(value, k)) {
        const [gone] = map.items.splice(i, 1);
        moveLeadingComment(gone.key, map.items[i]?.key, map);
        this.changed = true;
      }
    }
    return map;
  }

  private replace(node: unknown, value: Json): Node {
    const fresh = this.build(value);
    carryComments(node, fresh);
    this.changed = true;
    return fresh;
  }
}

function jsonOf(n: Node): unknown {
  try {
    return n.toJSON();
  } catch {
    return undefined;
  }
}

/**
 * `lifecycle: {}` written as an empty flow collection becomes a block one when it gains items, as
 * a person would write it (inside a flow collection yaml still renders it as flow).
 */
function unflowEmpty(c: Collection): void {
  if (c.items.length === 0 && c.flow) c.flow = false;
}

/** Keeps the comments of a node that is being replaced. */
function carryComments(from: unknown, to: Node): void {
  if (!from || typeof from !== 'object') return;
  const f = from as { commentBefore?: string | null; comment?: string | null; spaceBefore?: boolean };
  if (f.commentBefore) to.commentBefore = f.commentBefore;
  if (f.comment) to.comment = f.comment;
  if (f.spaceBefore) to.spaceBefore = true;
}

/**
 * A removed item's leading comment moves to the next item (or the end of the collection). Returns
 * how to take it back (when the item is placed again), a no-op once someone else changed it.
 */
function moveLeadingComment(gone: unknown, next: unknown, parent: Collection): () => void {
  const g = gone as { commentBefore?: string | null } | null;
  if (!g || typeof g !== 'object' || !g.commentBefore) return () => undefined;
  const holder: { commentBefore?: string | null; comment?: string | null } =
    next && typeof next === 'object' && (isScalar(next) || isMap(next) || isSeq(next)) ? (next as Scalar | Collection) : parent;
  const field = holder === parent ? 'comment' : 'commentBefore';
  const prev = holder[field];
  const set = prev ? (field === 'comment' ? `${prev}\n${g.commentBefore}` : `${g.commentBefore}\n${prev}`) : g.commentBefore;
  holder[field] = set;
  return () => {
    if (holder[field] !== set) return;
    if (prev) holder[field] = prev;
    else delete holder[field];
  };
}
