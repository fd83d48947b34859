/**
 * Positions in a YAML document without a syntax tree, for the YAML fast path (fast-yaml.ts): the
 * same answer as parse.ts's locateNode (the key of the deepest member found along a pointer, or
 * the deepest sequence element), read off the text.
 *
 * It only serves "simple" documents, which fast-yaml.ts establishes while js-yaml reads them, or
 * which quick-yaml.ts read: no flow collection spans lines, and a scalar that does (a block scalar,
 * or a plain or single-quoted one quick-yaml.ts folded) has every later line more indented than
 * its key or dash; there are no tags,
 * anchors only on scalars, no explicit or collection keys, and no duplicate keys or merges. In
 * such a document the block structure is in the indentation: the entries of a block mapping whose
 * first key is at column c are the later lines indented exactly c that are not comments or `- `
 * items (a sequence may sit at its parent key's indentation); lines indented deeper belong to
 * the entry above (nested nodes, block scalar text). Anything else it meets (an escaped or
 * anchored key, a tab in indentation, a flow pair inside a sequence, an empty item, ...) makes
 * it answer undefined, and the caller asks `yaml` instead. test/model/fast-yaml.test.ts compares
 * every pointer of the corpus objects and the fuzz inputs with locateNode.
 */

/** Could not be located here: ask `yaml`. */
export const UNSURE = -2;
/** A member or element that has no node (an empty value): the walk stops. */
const EMPTY = -1;

const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

export class TextLocator {
  constructor(
    private readonly t: string,
    /** The document's text is t[start, end). */
    private readonly start: number,
    private readonly end: number,
  ) {}

  private eol(i: number): boolean {
    const c = this.t.charCodeAt(i);
    return i >= this.end || c === LF || c === CR;
  }

  private ws(i: number): boolean {
    const c = this.t.charCodeAt(i);
    return c === SP || c === TAB || this.eol(i);
  }

  private lineStart(i: number): number {
    return i <= this.start ? this.start : Math.max(this.start, this.t.lastIndexOf('\n', i - 1) + 1);
  }

  /** Offset just past the end of the line holding i (past its line break). */
  private nextLine(i: number): number {
    const nl = this.t.indexOf('\n', i);
    return nl < 0 || nl >= this.end ? this.end : nl + 1;
  }

  /**
   * The first content line at or after `from` (a line start), skipping blank and comment-only
   * lines: its first character, its indentation in spaces, and whether a tab follows them.
   */
  private contentLine(from: number): { at: number; indent: number; tab: boolean } | undefined {
    for (let l = from; l < this.end; l = this.nextLine(l)) {
      let i = l;
      while (this.t.charCodeAt(i) === SP) i++;
      let j = i;
      while (this.t.charCodeAt(j) === SP || this.t.charCodeAt(j) === TAB) j++;
      if (this.eol(j) || this.t.charCodeAt(j) === 0x23) continue; // blank or # comment line
      return { at: j, indent: i - l, tab: j !== i };
    }
    return undefined;
  }

  /** After an indicator (`:` or `-`) at i-1: the start of the node that follows, EMPTY, or UNSURE. */
  private nodeAfter(i: number, parentIndent: number, compactSeq: boolean): number {
    while (this.t.charCodeAt(i) === SP || this.t.charCodeAt(i) === TAB) i++;
    if (!this.eol(i) && this.t.charCodeAt(i) !== 0x23) return i;
    const next = this.contentLine(this.nextLine(i));
    if (!next) return EMPTY;
    if (next.tab) return UNSURE;
    if (next.indent > parentIndent) return next.at;
    if (compactSeq && next.indent === parentIndent && this.isItem(next.at)) return next.at;
    return EMPTY;
  }

  private isItem(i: number): boolean {
    return this.t.charCodeAt(i) === 0x2d && this.ws(i + 1);
  }

  /** End of the quoted scalar at i (just past the closing quote), or UNSURE (escapes, line end). */
  private quotedEnd(i: number): number {
    const q = this.t.charCodeAt(i);
    for (let j = i + 1; !this.eol(j); j++) {
      const c = this.t.charCodeAt(j);
      if (q === 0x22 && c === 0x5c) return UNSURE;
      if (c === q) {
        if (q === 0x27 && this.t.charCodeAt(j + 1) === 0x27) {
          j++;
          continue;
        }
        return j + 1;
      }
    }
    return UNSURE;
  }

  /**
   * The key at i and the offset of its `:`, in block (flow=false) or flow context; undefined when
   * the node at i is not a key (a scalar), UNSURE when this reader cannot tell.
   */
  private key(i: number, flow: boolean): { key: string; colon: number } | undefined | typeof UNSURE {
    const t = this.t;
    const c = t.charCodeAt(i);
    let key: string;
    let j: number;
    if (c === 0x22 || c === 0x27) {
      j = this.quotedEnd(i);
      if (j === UNSURE) return UNSURE;
      key = t.slice(i + 1, j - 1);
      if (c === 0x27) key = key.replace(/''/g, "'");
      while (t.charCodeAt(j) === SP || t.charCodeAt(j) === TAB) j++;
      if (t.charCodeAt(j) !== 0x3a) return undefined;
      // After a quoted key a flow `:` needs no space; a block `:` does.
      if (!flow && !this.ws(j + 1)) return UNSURE;
      return { key, colon: j };
    }
    if ('&*!?|>{}[]%@`,#'.includes(t[i]) || (c === 0x2d && this.ws(i + 1))) return UNSURE;
    for (j = i; !this.eol(j); j++) {
      const d = t.charCodeAt(j);
      if (d === 0x3a && (this.ws(j + 1) || (flow && ',[]{}'.includes(t[j + 1])))) {
        return { key: t.slice(i, j).replace(/[ \t]+$/, ''), colon: j };
      }
      if (d === 0x23 && (t.charCodeAt(j - 1) === SP || t.charCodeAt(j - 1) === TAB)) return undefined;
      if (flow && (d === 0x2c || d === 0x5d || d === 0x7d)) return undefined;
    }
    return undefined;
  }

  /**
   * The entries of each block mapping read so far (by its first key's offset): locating every
   * member of a mapping (a ConfigMap's 50k keys, the test suite's every pointer) walks its lines
   * once, not once per member. `next` is the entry to go on from (`keyed`: its key is recorded),
   * `stop` what the walk met at its end: no further entry (undefined is the answer for any key
   * not seen) or something this reader cannot tell (UNSURE).
   */
  private readonly mappings = new Map<number, { col: number; keys: Map<string, { key: number; colon: number }>; next: number; keyed: boolean; stop?: 'end' | typeof UNSURE }>();

  /**
   * Block mapping whose first key is at `at`: the key and value offsets of `seg`. The answer is
   * that of a walk from the first entry that stops at the first entry with key `seg`, at the first
   * entry whose key it cannot read (UNSURE), or past the last entry (undefined).
   */
  private blockMember(at: number, seg: string): { key: number; value: number } | undefined | typeof UNSURE {
    let m = this.mappings.get(at);
    if (!m) this.mappings.set(at, (m = { col: at - this.lineStart(at), keys: new Map(), next: at, keyed: false }));
    const col = m.col;
    const known = m.keys.get(seg);
    if (known) return { key: known.key, value: this.nodeAfter(known.colon + 1, col, true) };
    if (m.stop !== undefined) return m.stop === 'end' ? undefined : UNSURE;
    for (let e = m.next; ; ) {
      if (!m.keyed) {
        const k = this.key(e, false);
        if (k === UNSURE || k === undefined) {
          m.stop = UNSURE;
          return UNSURE;
        }
        // (The first of equal keys is the one a walk finds.)
        if (!m.keys.has(k.key)) m.keys.set(k.key, { key: e, colon: k.colon });
        m.keyed = true;
        if (k.key === seg) return { key: e, value: this.nodeAfter(k.colon + 1, col, true) };
      }
      // The next entry: the next content line indented exactly `col` that is not an item.
      let next: number | undefined;
      for (let l = this.nextLine(e); l < this.end; ) {
        const line = this.contentLine(l);
        if (line && line.tab && line.indent <= col) {
          m.stop = UNSURE;
          return UNSURE;
        }
        if (!line || line.indent < col) break;
        if (line.indent === col && !this.isItem(line.at)) {
          next = line.at;
          break;
        }
        l = this.nextLine(line.at);
      }
      if (next === undefined) {
        m.stop = 'end';
        return undefined;
      }
      e = m.next = next;
      m.keyed = false;
    }
  }

  /**
   * The `-` of each element found so far, per block sequence (by its first `-`): a List document's
   * items are located from the nearest element start known, so locating every item of a
   * `kubectl get -o yaml` dump walks its lines once, not once per item.
   */
  private readonly elementStarts = new Map<number, number[]>();

  /** Block sequence whose first `-` is at `at`: the node of element n. */
  private blockElement(at: number, n: number): number | undefined {
    const col = at - this.lineStart(at);
    let starts = this.elementStarts.get(at);
    if (!starts) this.elementStarts.set(at, (starts = [at]));
    // (A step that found no next element is not recorded: asking again walks it again, with the same answer.)
    const from = Math.min(n, starts.length - 1);
    for (let p = starts[from], k = from; ; k++) {
      if (k === n) {
        const v = this.nodeAfter(p + 1, col, false);
        return v === EMPTY ? UNSURE : v;
      }
      let next: number | undefined;
      for (let l = this.nextLine(p); l < this.end; ) {
        const line = this.contentLine(l);
        if (line && line.tab && line.indent <= col) return UNSURE;
        if (!line || line.indent < col) return undefined;
        if (line.indent === col) {
          if (!this.isItem(line.at)) return undefined;
          next = line.at;
          break;
        }
        l = this.nextLine(line.at);
      }
      if (next === undefined) return undefined;
      p = next;
      if (starts.length === k + 1) starts.push(p);
    }
  }

  /**
   * End of the flow node at i (a scalar or a single-line collection), or UNSURE. Collections are
   * read token by token: a quote only opens a quoted scalar where a node starts (`it's` is plain).
   */
  private flowNodeEnd(i: number): number {
    const t = this.t;
    const c = t.charCodeAt(i);
    if (c === 0x22 || c === 0x27) return this.quotedEnd(i);
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      let j = this.skipBlanks(i + 1);
      for (;;) {
        if (t.charCodeAt(j) === close) return j + 1;
        if (this.eol(j)) return UNSURE;
        const k = this.flowNodeEnd(j);
        if (k === UNSURE || k === j) return UNSURE;
        j = this.skipBlanks(k);
        if (t.charCodeAt(j) === 0x3a) {
          j = this.skipBlanks(j + 1);
          const d = t.charCodeAt(j);
          if (d !== 0x2c && d !== close) {
            if (this.eol(j)) return UNSURE;
            const v = this.flowNodeEnd(j);
            if (v === UNSURE || v === j) return UNSURE;
            j = this.skipBlanks(v);
          }
        }
        const sep = t.charCodeAt(j);
        if (sep === 0x2c) j = this.skipBlanks(j + 1);
        else if (sep !== close) return UNSURE;
      }
    }
    if ('&*!#'.includes(t[i])) return UNSURE;
    let j = i;
    for (; !this.eol(j); j++) {
      const d = t.charCodeAt(j);
      if (d === 0x2c || d === 0x5d || d === 0x7d) break;
      if (d === 0x3a && (this.ws(j + 1) || ',[]{}'.includes(t[j + 1]))) break;
      if (d === 0x23 && (t.charCodeAt(j - 1) === SP || t.charCodeAt(j - 1) === TAB)) return UNSURE;
    }
    while (j > i && (t.charCodeAt(j - 1) === SP || t.charCodeAt(j - 1) === TAB)) j--;
    return j;
  }

  private skipBlanks(i: number): number {
    while (this.t.charCodeAt(i) === SP || this.t.charCodeAt(i) === TAB) i++;
    return i;
  }

  /** Flow mapping at `at` (`{`): the key and value offsets of `seg`. */
  private flowMember(at: number, seg: string): { key: number; value: number } | undefined | typeof UNSURE {
    const t = this.t;
    for (let i = this.skipBlanks(at + 1); ; ) {
      if (t.charCodeAt(i) === 0x7d) return undefined;
      if (this.eol(i)) return UNSURE;
      const k = this.key(i, true);
      if (k === UNSURE) return UNSURE;
      let value = EMPTY;
      let j: number;
      let name: string;
      if (k === undefined) {
        // A key without a value (`{a, b}`): its text up to the separator.
        const q = t.charCodeAt(i);
        if (q === 0x7b || q === 0x5b) return UNSURE;
        j = this.flowNodeEnd(i);
        if (j === UNSURE) return UNSURE;
        name = q === 0x22 ? t.slice(i + 1, j - 1) : q === 0x27 ? t.slice(i + 1, j - 1).replace(/''/g, "'") : t.slice(i, j);
      } else {
        name = k.key;
        const v = this.skipBlanks(k.colon + 1);
        const c = t.charCodeAt(v);
        if (c === 0x2c || c === 0x7d) j = v;
        else {
          if (this.eol(v)) return UNSURE;
          value = v;
          j = this.flowNodeEnd(v);
          if (j === UNSURE) return UNSURE;
        }
      }
      if (name === seg) return { key: i, value };
      j = this.skipBlanks(j);
      const sep = t.charCodeAt(j);
      if (sep === 0x7d) return undefined;
      if (sep !== 0x2c) return UNSURE;
      i = this.skipBlanks(j + 1);
    }
  }

  /** Flow sequence at `at` (`[`): the node of element n. */
  private flowElement(at: number, n: number): number | undefined {
    const t = this.t;
    for (let i = this.skipBlanks(at + 1), k = 0; ; k++) {
      if (t.charCodeAt(i) === 0x5d) return undefined;
      if (this.eol(i)) return UNSURE;
      // A single-pair mapping element (`[a: b]`) is not read here.
      const c = t.charCodeAt(i);
      if (c !== 0x7b && c !== 0x5b && this.key(i, true) !== undefined) return UNSURE;
      const j = this.flowNodeEnd(i);
      if (j === UNSURE) return UNSURE;
      if (k === n) return i;
      const s = this.skipBlanks(j);
      const sep = t.charCodeAt(s);
      if (sep === 0x5d) return undefined;
      if (sep !== 0x2c) return UNSURE;
      i = this.skipBlanks(s + 1);
    }
  }

  /**
   * The node offset of every element of the block sequence that is the value of `key` in the
   * block mapping at `root` (a List document's `items`), or undefined when it is not one or any
   * element cannot be told here.
   */
  listElements(root: number, key: string): number[] | undefined {
    if (this.t.charCodeAt(root) === 0x7b) return undefined;
    const m = this.blockMember(root, key);
    if (m === undefined || m === UNSURE || m.value === UNSURE || m.value === EMPTY) return undefined;
    const at = m.value;
    if (!(this.t.charCodeAt(at) === 0x2d && this.ws(at + 1))) return undefined;
    const out: number[] = [];
    for (let n = 0; ; n++) {
      const e = this.blockElement(at, n);
      if (e === UNSURE) return undefined;
      if (e === undefined) return out;
      out.push(e);
    }
  }

  /**
   * Offset locateNode would report for `segments` from the root node at `root`, or UNSURE.
   */
  locate(root: number, segments: string[]): number {
    const t = this.t;
    let at = root;
    let best = root;
    for (const seg of segments) {
      if (at === EMPTY) break;
      const c = t.charCodeAt(at);
      if (c === 0x5b || (c === 0x2d && this.ws(at + 1))) {
        const idx = Number(seg);
        if (!Number.isInteger(idx) || idx < 0) break;
        const e = c === 0x5b ? this.flowElement(at, idx) : this.blockElement(at, idx);
        if (e === UNSURE) return UNSURE;
        if (e === undefined) break;
        best = at = e;
        continue;
      }
      if (c === 0x7c || c === 0x3e) break; // a block scalar
      if (c === 0x26 || c === 0x2a || c === 0x21) return UNSURE; // anchor, alias, tag
      let m: { key: number; value: number } | undefined | typeof UNSURE;
      if (c === 0x7b) m = this.flowMember(at, seg);
      else {
        // A block mapping when a key starts here, else a scalar (known when a member of the
        // mapping was looked up before: its first key was read then).
        if (!this.mappings.get(at)?.keys.size) {
          const k = this.key(at, false);
          if (k === UNSURE) return UNSURE;
          if (k === undefined) break;
        }
        m = this.blockMember(at, seg);
      }
      if (m === UNSURE) return UNSURE;
      if (!m) break;
      best = m.key;
      if (m.value === UNSURE) return UNSURE;
      at = m.value;
    }
    return best;
  }
}
