/**
 * Edits without a yaml Document: --fix's text splices. For a document that the YAML fast path
 * read (its value is at hand), the fixes' edits are applied to that value (applyJsonEdits) and
 * written into the text by surgical.ts's in-place edits, reading the document's structure off
 * the text (textTree) instead of from a parsed yaml Document, which costs about eight times the
 * fast path's own reading. The result is verified as every in-place edit is (index.ts): the
 * edited slice must read back alone as exactly one document with exactly the intended value and
 * every comment. Whenever something here is not certain, it answers undefined and the fixer takes
 * the yaml Document route for that document, so the output is the same either way.
 *
 * textTree reads the block structure from indentation, as yaml-locate.ts does: the entries of a
 * block mapping whose first key is at column c are the later lines indented exactly c that are
 * not comments or `- ` items; deeper lines belong to the entry above. It declines (kind 'other',
 * or undefined offsets) flow collections, anchors, aliases, tags, block scalars as edited or last
 * values with comment lines after them, explicit keys, escaped keys, tabs in indentation, items
 * whose node starts on a later line, multi-line scalars that an edit would replace, and any
 * mapping whose keys or sequence whose length differ from the value the fast path read.
 */
import { parse as parseYaml } from 'yaml';
import { FixEdit } from '../engine/types';
import { pointerSegments } from '../model/parse';
import { Json } from '../model/types';
import { EditTree } from './surgical';

const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
/** Plain keys YAML 1.1 or 1.2 reads as booleans or null. */
const NOT_STRING_KEY = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;

/** A node of the text: where it starts, the column that owns it, and the value the fast path read for it. */
export interface TextNode {
  kind: 'map' | 'seq' | 'scalar' | 'other';
  /** Offset of the node's first character (a mapping's first key, a sequence's first `-`). */
  at: number;
  /** The column of the collection entry or item that holds the node (-1 for the root). */
  owner: number;
  value: unknown;
  /** Mappings: entries (key, key offset, `:` offset); sequences: the offset of each `-`. */
  entries?: { key: string; at: number; colon: number }[];
  dashes?: number[];
  /** End of the last content line of a collection (undefined: declined). */
  end?: number;
  /** Members and items read so far (a tree serves all the edits of a document). */
  children?: Map<string, TextNode | null | undefined>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The document's structure read off `text.slice(from, to)`, for surgical.ts (see the module comment). */
export class TextTree implements EditTree<TextNode> {
  constructor(
    private readonly t: string,
    private readonly from: number,
    private readonly to: number,
    private readonly value: unknown,
  ) {}

  private eol(i: number): boolean {
    const c = this.t.charCodeAt(i);
    return i >= this.to || c === LF || c === CR;
  }

  private ws(i: number): boolean {
    const c = this.t.charCodeAt(i);
    return c === SP || c === TAB || this.eol(i);
  }

  private lineStart(i: number): number {
    return i <= this.from ? this.from : Math.max(this.from, this.t.lastIndexOf('\n', i - 1) + 1);
  }

  /** Offset just past the line holding i (past its line break). */
  private nextLine(i: number): number {
    const nl = this.t.indexOf('\n', i);
    return nl < 0 || nl >= this.to ? this.to : nl + 1;
  }

  /**
   * The line starting at `l`: its first non-blank character, indentation in spaces, and whether
   * it is blank, a comment line, or has a tab in its indentation.
   */
  private line(l: number): { at: number; indent: number; blank: boolean; comment: boolean; tab: boolean } {
    let i = l;
    while (this.t.charCodeAt(i) === SP) i++;
    let j = i;
    while (this.t.charCodeAt(j) === SP || this.t.charCodeAt(j) === TAB) j++;
    const blank = this.eol(j);
    return { at: j, indent: i - l, blank, comment: !blank && this.t.charCodeAt(j) === HASH, tab: j !== i };
  }

  private top?: { node: TextNode | undefined };

  root(): TextNode | undefined {
    return (this.top ??= { node: this.readRoot() }).node;
  }

  private readRoot(): TextNode | undefined {
    let marker = false;
    for (let l = this.from; l < this.to; l = this.nextLine(l)) {
      const line = this.line(l);
      if (line.blank || line.comment) continue;
      if (line.tab || line.indent !== 0) return undefined;
      if (!marker && this.t.startsWith('---', l) && this.ws(l + 3)) {
        // The document's `---` line, with nothing but blanks or a comment after it.
        marker = true;
        let i = l + 3;
        while (this.t.charCodeAt(i) === SP || this.t.charCodeAt(i) === TAB) i++;
        if (!this.eol(i) && this.t.charCodeAt(i) !== HASH) return undefined;
        continue;
      }
      return this.node(line.at, -1, this.value);
    }
    return undefined;
  }

  /** End of the quoted scalar at i (past the closing quote), or undefined (escapes, line end). */
  private quotedEnd(i: number): number | undefined {
    const q = this.t.charCodeAt(i);
    for (let j = i + 1; !this.eol(j); j++) {
      const c = this.t.charCodeAt(j);
      if (q === 0x22 && c === 0x5c) return undefined;
      if (c === q) {
        if (q === 0x27 && this.t.charCodeAt(j + 1) === 0x27) {
          j++;
          continue;
        }
        return j + 1;
      }
    }
    return undefined;
  }

  /** The block key at i: its text and the offset of its `:`; undefined when the node at i is no key; 'no' when unsure. */
  private key(i: number): { key: string; colon: number } | undefined | 'no' {
    const t = this.t;
    const c = t.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      let j = this.quotedEnd(i);
      if (j === undefined) return 'no';
      let key = t.slice(i + 1, j - 1);
      if (c === 0x27) key = key.replace(/''/g, "'");
      while (t.charCodeAt(j) === SP || t.charCodeAt(j) === TAB) j++;
      if (t.charCodeAt(j) !== 0x3a) return undefined;
      if (!this.ws(j + 1)) return 'no';
      return { key, colon: j };
    }
    if ('&*!?|>{}[]%@`,#\'"'.includes(t[i]) || (c === 0x2d && this.ws(i + 1))) return 'no';
    for (let j = i; !this.eol(j); j++) {
      const d = t.charCodeAt(j);
      if (d === 0x3a && this.ws(j + 1)) {
        const key = t.slice(i, j);
        // Keys that could read as anything but the plain string they are are left to yaml.
        if (!/^[A-Za-z_][A-Za-z0-9_./-]*$/.test(key) || NOT_STRING_KEY.test(key)) return 'no';
        return { key, colon: j };
      }
      if (d === HASH && (t.charCodeAt(j - 1) === SP || t.charCodeAt(j - 1) === TAB)) return undefined;
    }
    return undefined;
  }

  /** The node starting at i (owned by column `owner`) with the value the fast path read for it. */
  private node(i: number, owner: number, value: unknown): TextNode {
    const t = this.t;
    const c = t.charCodeAt(i);
    if (c === 0x2d && this.ws(i + 1)) return Array.isArray(value) ? { kind: 'seq', at: i, owner, value } : { kind: 'other', at: i, owner, value };
    if ('&*!|>{}[]%@`?'.includes(t[i])) return { kind: 'other', at: i, owner, value };
    const k = this.key(i);
    if (k === 'no') return { kind: 'other', at: i, owner, value };
    if (k) return isPlainObject(value) ? { kind: 'map', at: i, owner, value } : { kind: 'other', at: i, owner, value };
    return value !== null && typeof value === 'object' ? { kind: 'other', at: i, owner, value } : { kind: 'scalar', at: i, owner, value };
  }

  /**
   * After an indicator (`:` or `-`) at i-1 whose entry or item is at column `col`: the node that
   * follows (on the same line, or the next content line when deeper, or an item at the same
   * column after a key), null for an empty value, undefined when unsure.
   */
  private after(i: number, col: number, compactSeq: boolean, sameLineOnly: boolean): number | null | undefined {
    while (this.t.charCodeAt(i) === SP || this.t.charCodeAt(i) === TAB) i++;
    if (!this.eol(i) && this.t.charCodeAt(i) !== HASH) return i;
    if (sameLineOnly) return undefined;
    for (let l = this.nextLine(i); l < this.to; l = this.nextLine(l)) {
      const line = this.line(l);
      if (line.blank || line.comment) continue;
      if (line.tab) return undefined;
      if (line.indent > col) return line.at;
      if (compactSeq && line.indent === col && this.t.charCodeAt(line.at) === 0x2d && this.ws(line.at + 1)) return line.at;
      return null;
    }
    return null;
  }

  /**
   * The region of the collection whose first entry or item is at `at` (column `col`): the starts
   * of its entries or items and the end of its last content line. Lines indented exactly `col`
   * start the next entry (mapping: not a `- ` item; sequence: a `- ` item); shallower lines end
   * it. Undefined when unsure (tabs, comment lines after the last content line).
   */
  private region(at: number, col: number, seq: boolean): { starts: number[]; end: number } | undefined {
    const starts = [at];
    let lastContent = at;
    let gapComment = false;
    for (let l = this.nextLine(at); l < this.to; l = this.nextLine(l)) {
      const line = this.line(l);
      if (line.blank) continue;
      if (line.tab && line.indent <= col) return undefined;
      if (line.comment) {
        gapComment = true;
        continue;
      }
      if (line.indent < col) break;
      if (line.indent === col) {
        // A mapping's entries are the lines at its column that are not items (those belong to a
        // sequence under the entry above); a sequence's items are the `- ` lines at its column.
        const item = this.t.charCodeAt(line.at) === 0x2d && this.ws(line.at + 1);
        if (seq && !item) break;
        if (seq || !item) starts.push(line.at);
      }
      gapComment = false;
      lastContent = line.at;
    }
    if (gapComment) return undefined;
    return { starts, end: this.contentEnd(lastContent) };
  }

  /** End of the line holding i, before its line break and trailing blanks. */
  private contentEnd(i: number): number {
    let j = i;
    while (!this.eol(j)) j++;
    while (j > i && (this.t.charCodeAt(j - 1) === SP || this.t.charCodeAt(j - 1) === TAB)) j--;
    return j;
  }

  private entries(n: TextNode): TextNode['entries'] {
    if (n.entries || n.end !== undefined) return n.entries;
    const col = n.at - this.lineStart(n.at);
    const r = this.region(n.at, col, false);
    if (!r) return undefined;
    const out: { key: string; at: number; colon: number }[] = [];
    for (const s of r.starts) {
      const k = this.key(s);
      if (!k || k === 'no') return undefined;
      out.push({ key: k.key, at: s, colon: k.colon });
    }
    // The keys must be those the fast path read, in order (no duplicates, nothing misread).
    const keys = Object.keys(n.value as object);
    if (keys.length !== out.length || keys.some((k, i) => k !== out[i].key)) return undefined;
    n.entries = out;
    n.end = r.end;
    return out;
  }

  private dashes(n: TextNode): number[] | undefined {
    if (n.dashes) return n.dashes;
    const col = n.at - this.lineStart(n.at);
    const r = this.region(n.at, col, true);
    if (!r || r.starts.length !== (n.value as unknown[]).length) return undefined;
    n.dashes = r.starts;
    n.end = r.end;
    return r.starts;
  }

  kind(n: TextNode | null | undefined): 'map' | 'seq' | 'scalar' | 'alias' | 'other' {
    if (!n) return 'other';
    // A collection whose layout is not understood is not one to edit.
    if (n.kind === 'map' && !this.entries(n)) return 'other';
    if (n.kind === 'seq' && !this.dashes(n)) return 'other';
    return n.kind;
  }

  flow(): boolean {
    return false;
  }

  hasKey(n: TextNode, key: string): boolean {
    return this.entries(n)!.some((e) => e.key === key);
  }

  member(n: TextNode, key: string): TextNode | null | undefined {
    const c = (n.children ??= new Map());
    const k = `:${key}`;
    if (!c.has(k)) c.set(k, this.readMember(n, key));
    return c.get(k);
  }

  private readMember(n: TextNode, key: string): TextNode | null | undefined {
    const e = this.entries(n)!.find((x) => x.key === key);
    if (!e) return undefined;
    const col = e.at - this.lineStart(e.at);
    const v = this.after(e.colon + 1, col, true, false);
    const value = (n.value as Record<string, unknown>)[key];
    // An empty value, or one not understood: nothing to edit in place.
    if (v === null || v === undefined) return { kind: 'other', at: e.colon, owner: col, value };
    return this.node(v, col, value);
  }

  emptyEntry(n: TextNode, key: string): { key: number; colon: number } | undefined {
    const e = this.entries(n)!.find((x) => x.key === key);
    if (!e) return undefined;
    const value = (n.value as Record<string, unknown>)[key];
    const empty = value === null || (isPlainObject(value) && !Object.keys(value).length);
    if (!empty) return undefined;
    // The value is on the key's line, or there is none (null).
    const col = e.at - this.lineStart(e.at);
    const v = this.after(e.colon + 1, col, true, false);
    if (v === undefined || (v !== null && this.t.slice(e.colon, v).includes('\n'))) return undefined;
    if (v === null && value !== null) return undefined;
    return { key: e.at, colon: e.colon };
  }

  size(n: TextNode): number {
    return n.kind === 'map' ? this.entries(n)!.length : this.dashes(n)!.length;
  }

  item(n: TextNode, i: number): TextNode | null | undefined {
    const c = (n.children ??= new Map());
    const k = `#${i}`;
    if (!c.has(k)) c.set(k, this.readItem(n, i));
    return c.get(k);
  }

  private readItem(n: TextNode, i: number): TextNode | null | undefined {
    const d = this.dashes(n)![i];
    const col = d - this.lineStart(d);
    const v = this.after(d + 1, col, false, true);
    const value = (n.value as unknown[])[i];
    if (v === null || v === undefined) return { kind: 'other', at: d, owner: col, value };
    return this.node(v, col, value);
  }

  /**
   * A scalar on one line: plain (up to a comment or the line end) or quoted without escapes,
   * whose reading by yaml's own schema is the value the fast path read (so an edit changes the
   * value exactly when the Document route's would).
   */
  range(n: TextNode): [number, number] | undefined {
    const t = this.t;
    const c = t.charCodeAt(n.at);
    let end: number | undefined;
    if (c === 0x22 || c === 0x27) end = this.quotedEnd(n.at);
    else {
      let j = n.at;
      while (!this.eol(j) && !(t.charCodeAt(j) === HASH && (t.charCodeAt(j - 1) === SP || t.charCodeAt(j - 1) === TAB))) j++;
      end = j;
      while (end > n.at && (t.charCodeAt(end - 1) === SP || t.charCodeAt(end - 1) === TAB)) end--;
    }
    if (end === undefined || end === n.at) return undefined;
    // Nothing but blanks or a comment after it on its line, and no continuation line.
    let k = end;
    while (t.charCodeAt(k) === SP || t.charCodeAt(k) === TAB) k++;
    if (!this.eol(k) && t.charCodeAt(k) !== HASH) return undefined;
    for (let l = this.nextLine(k); l < this.to; l = this.nextLine(l)) {
      const line = this.line(l);
      if (line.blank) continue;
      if (line.tab || (!line.comment && line.indent > n.owner)) return undefined;
      break;
    }
    let read: unknown;
    try {
      read = parseYaml(t.slice(n.at, end));
    } catch {
      return undefined;
    }
    if (read !== n.value || (read !== null && typeof read === 'object')) return undefined;
    return [n.at, end];
  }

  scalarType(n: TextNode): string | undefined {
    const c = this.t.charCodeAt(n.at);
    return c === 0x22 ? 'QUOTE_DOUBLE' : c === 0x27 ? 'QUOTE_SINGLE' : 'PLAIN';
  }

  firstStart(n: TextNode): number | undefined {
    if (n.kind === 'map') return n.at;
    const first = this.item(n, 0);
    return first && first.kind !== 'other' ? first.at : undefined;
  }

  lastEnd(n: TextNode): number | undefined {
    if (n.kind === 'map') this.entries(n);
    else this.dashes(n);
    return n.end;
  }
}

/** A deep copy of a JSON value. */
function copy<T>(v: T): T {
  return v === null || typeof v !== 'object' ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * The document value after the fix's edits (pointers relative to `basePointer`), as the yaml
 * Document route's applyEdits leaves it (edit.ts: missing or null parents become mappings, a
 * set value replaces what was there, an append adds an item, creating the sequence when the
 * place is empty), copying only what changes. Undefined for anything else (removals, a path
 * through a scalar or past a sequence's end, merge keys): the Document route then decides,
 * with its own error messages.
 */
export function applyJsonEdits(root: unknown, basePointer: string, edits: FixEdit[]): unknown {
  const owned = new Set<object>();
  const own = (v: object): Record<string, unknown> | unknown[] => {
    if (owned.has(v)) return v as Record<string, unknown>;
    const c = Array.isArray(v) ? v.slice() : { ...(v as Record<string, unknown>) };
    owned.add(c);
    return c;
  };
  let doc: unknown = root;
  for (const e of edits) {
    if (e.op === 'add-object') continue;
    if (e.op === 'remove') return undefined;
    const segs = pointerSegments(basePointer + e.pointer);
    if (!segs.length || segs.includes('__proto__') || segs.includes('<<')) return undefined;
    if (!isPlainObject(doc) || '<<' in doc) return undefined;
    doc = own(doc);
    let cur = doc as Record<string, unknown> | unknown[];
    // The parent, created where missing or null.
    for (let i = 0; i < segs.length - 1; i++) {
      const seg = segs[i];
      let next: unknown;
      if (Array.isArray(cur)) {
        if (!/^(0|[1-9][0-9]*)$/.test(seg) || Number(seg) >= cur.length) return undefined;
        next = cur[Number(seg)];
        if (next === null || typeof next !== 'object') return undefined;
        next = own(next);
        cur[Number(seg)] = next;
      } else {
        next = Object.prototype.hasOwnProperty.call(cur, seg) ? cur[seg] : undefined;
        if (next === undefined || next === null) next = {};
        else if (typeof next !== 'object') return undefined;
        else next = own(next);
        owned.add(next as object);
        cur[seg] = next;
      }
      if (isPlainObject(next) && '<<' in next) return undefined;
      cur = next as Record<string, unknown> | unknown[];
    }
    const key = segs[segs.length - 1];
    let index: number | undefined;
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      index = Number(key);
      if (index > cur.length || (e.op === 'append' && index >= cur.length)) return undefined;
    }
    const at = (): unknown => (index === undefined ? (Object.prototype.hasOwnProperty.call(cur, key) ? (cur as Record<string, unknown>)[key] : undefined) : (cur as unknown[])[index]);
    const put = (v: unknown) => {
      if (index === undefined) (cur as Record<string, unknown>)[key] = v;
      else (cur as unknown[])[index] = v;
    };
    if (e.op === 'set') {
      put(copy(e.value as Json));
      continue;
    }
    const node = at();
    if (node === undefined || node === null) put([copy(e.value as Json)]);
    else if (Array.isArray(node)) {
      const seq = own(node) as unknown[];
      seq.push(copy(e.value as Json));
      put(seq);
    } else return undefined;
  }
  return doc;
}
