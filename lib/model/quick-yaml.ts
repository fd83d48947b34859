/**
 * A reader for the YAML that tools write (kubectl, Helm, go-yaml and js-yaml dumps): block
 * mappings and sequences, plain, single- and double-quoted scalars (also folded over several
 * lines, as go-yaml writes strings longer than 80 columns), literal block scalars, empty `{}` and
 * `[]`, comments. It is the YAML fast path's first try for each document (fast-yaml.ts) and reads
 * such a document about 1.5 times faster than js-yaml.
 *
 * It gives js-yaml's value (with fast-yaml.ts's schema: failsafe types plus yaml11.ts's go-yaml
 * resolution of plain scalars) or undefined: it declines everything else, and everything where a
 * reading could be in doubt, and js-yaml then reads the document as before: tabs, CRs, anchors,
 * aliases, tags, flow collections that are not empty,
 * continuation lines that start with an indicator or hold `: ` or ` #`,
 * folded (`>`) block scalars, literal ones with an empty line above their first line holding more
 * spaces than it (without an indentation indicator) or of empty lines only,
 * escapes go-yaml reads otherwise (`\/`, `\'`) or not at all, explicit keys, keys that are not plain
 * strings (`yes:`, `1:`, `<<`, `__proto__`, longer than MAX_KEY), duplicate keys, a document
 * whose root is not a mapping, `...`, nesting beyond the limits. fast-yaml.test.ts checks its
 * values against parse.ts's over the corpus, the fuzz inputs and YAML 1.1 corner cases.
 */
import { Json, JsonObject } from './types';
import { plainScalarJson } from './yaml11';

/** js-yaml's PATTERN_NON_PRINTABLE: it refuses a text with any of these (parse.ts then reports it). */
// eslint-disable-next-line no-control-regex
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
/**
 * Every character NON_PRINTABLE can match, and the tab, CR and byte-order mark this reader
 * declines, in one class (one fast scan of a text; most texts have none of them).
 */
// eslint-disable-next-line no-control-regex
const MAYBE_UNSURE = /[\x00-\x09\x0B-\x1F\x7F-\x9F\uD800-\uDFFF\uFEFF\uFFFE\uFFFF]/;

/** The value could read otherwise: js-yaml decides. */
class Unsure extends Error {}
const UNSURE = new Unsure();

/** First characters a plain scalar cannot start with (indicators; `-?:` only before a blank). */
const INDICATOR = new Uint8Array(128);
for (const c of '-?:,[]{}#&*!|>\'"%@`') INDICATOR[c.charCodeAt(0)] = 1;

interface Limits {
  maxKey: number;
  maxDepth: number;
  maxNodes: number;
  /**
   * Applied to every string value of 13 or more characters that may share the text's storage
   * (V8 makes a slice of that length a view of its parent, so one such value keeps the whole
   * text alive): a reader of large files passes a function that returns a copy (see fast-yaml.ts).
   */
  own?: (s: string) => string;
}

/** V8's SlicedString::kMinLength (and ConsString's): shorter slices and sums of strings are copies. */
export const VIEW_MIN = 13;

/** YAML's one-character escapes that go-yaml (v2, as the API server) reads alike (not `\/`, `\'` or a backslash before a tab). */
const ESCAPES: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029' };
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/**
 * The escape at `j` (a backslash inside double quotes, not at a line's end): its text and the
 * offset after it. Throws UNSURE for an escape YAML and go-yaml do not both read, and for a code
 * point that is a surrogate or beyond Unicode (go-yaml's error).
 */
function escapeAt(t: string, j: number): { text: string; after: number } {
  const e = t[j + 1];
  const one = ESCAPES[e];
  if (one !== undefined) return { text: one, after: j + 2 };
  const n = HEX_DIGITS[e];
  if (n === undefined) throw UNSURE;
  const hex = t.slice(j + 2, j + 2 + n);
  if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw UNSURE;
  const cp = parseInt(hex, 16);
  if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) throw UNSURE;
  return { text: String.fromCodePoint(cp), after: j + 2 + n };
}

class Reader {
  /** Start of the current line. */
  pos = 0;
  nodes = 0;
  private readonly own?: (s: string) => string;
  constructor(
    readonly t: string,
    readonly limits: Limits,
  ) {
    this.own = limits.own;
  }

  /** A string value as the reader keeps it (see Limits.own). */
  keep(s: string): string {
    return this.own !== undefined && s.length >= VIEW_MIN ? this.own(s) : s;
  }

  /** The last line end found, and where its search started: most calls ask again for the same line. */
  private eolFrom = -1;
  private eol = -1;
  lineEnd(from: number): number {
    if (from >= this.eolFrom && from <= this.eol) return this.eol;
    const i = this.t.indexOf('\n', from);
    this.eolFrom = from;
    this.eol = i < 0 ? this.t.length : i;
    return this.eol;
  }

  /** Moves `pos` to the next line with content (not blank, not only a comment); returns its indentation, or -1 at the end. */
  nextContent(): number {
    const t = this.t;
    while (this.pos < t.length) {
      let i = this.pos;
      while (t.charCodeAt(i) === 0x20) i++;
      const c = t.charCodeAt(i);
      if (i < t.length && c !== 0x0a && c !== 0x23) {
        // `...` and `---` at a line's start, even without a blank after (js-yaml reads a first
        // `---x` as a marker): js-yaml decides.
        if (i === this.pos && (t.startsWith('...', i) || t.startsWith('---', i))) throw UNSURE;
        return i - this.pos;
      }
      this.pos = this.lineEnd(i) + 1;
    }
    return -1;
  }

  node(): void {
    if (++this.nodes > this.limits.maxNodes) throw UNSURE;
  }

  /** The block node whose first line starts at `pos` with content at `indent`. */
  block(indent: number, depth: number): Json {
    if (depth > this.limits.maxDepth) throw UNSURE;
    const at = this.pos + indent;
    const c = this.t.charCodeAt(at);
    if (c === 0x2d && this.blankOrEnd(at + 1)) return this.sequence(indent, depth);
    return this.mapping(indent, at, depth);
  }

  blankOrEnd(i: number): boolean {
    const c = this.t.charCodeAt(i);
    return i >= this.t.length || c === 0x20 || c === 0x0a;
  }

  /** A block sequence whose items' dashes are at column `indent`; `pos` is at the first item's line. */
  sequence(indent: number, depth: number): Json[] {
    this.node();
    const out: Json[] = [];
    const t = this.t;
    for (;;) {
      const dash = this.pos + indent;
      // After the dash: the item on the same line, or on the next lines.
      let i = dash + 1;
      while (t.charCodeAt(i) === 0x20) i++;
      const end = this.lineEnd(dash);
      if (i >= end || t.charCodeAt(i) === 0x23) {
        if (i < end && t.charCodeAt(i - 1) !== 0x20) throw UNSURE;
        this.pos = end + 1;
        const next = this.nextContent();
        out.push(next > indent ? this.block(next, depth + 1) : this.nullNode());
      } else {
        const c = t.charCodeAt(i);
        if (c === 0x2d && this.blankOrEnd(i + 1)) throw UNSURE; // `- - x`
        out.push(this.inline(i, indent, i - this.pos, depth + 1));
      }
      const next = this.nextContent();
      // Less indented, or a key at this column (a sequence that is a mapping value at the key's
      // column): the sequence ends, and the caller judges the line.
      if (next < indent || (next === indent && (t.charCodeAt(this.pos + indent) !== 0x2d || !this.blankOrEnd(this.pos + indent + 1)))) return out;
      if (next > indent) throw UNSURE;
    }
  }

  nullNode(): null {
    this.node();
    return null;
  }

  /**
   * The node that starts at offset `i` on the current line (after a dash, whose column is
   * `parent`): a mapping whose first key is there (column `col`), or a scalar.
   */
  inline(i: number, parent: number, col: number, depth: number): Json {
    const key = this.keyAt(i);
    if (key) return this.mapping(col, i, depth);
    return this.scalarValue(i, parent);
  }

  /**
   * If a mapping key starts at `i`: its text and the offset just after its colon; else undefined
   * (a scalar). Throws where the line is not plainly one or the other.
   */
  keyAt(i: number): { key: string; after: number } | undefined {
    const t = this.t;
    const end = this.lineEnd(i);
    const c = t.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      // An implicit key is on one line: a quote that does not close on it opens a scalar.
      if (c === 0x27 ? !this.closesOnLine(i + 1, end) : !this.doubleClosesOnLine(i + 1, end)) return undefined;
      const q = this.quoted(i, end);
      let j = q.after;
      while (t.charCodeAt(j) === 0x20) j++;
      if (t.charCodeAt(j) !== 0x3a || !this.blankOrEnd(j + 1)) return undefined;
      return { key: q.value, after: j + 1 };
    }
    // A plain key: up to the first `: ` (or `:` at the line's end); a ` #` before it makes the line a scalar.
    for (let j = i; j < end; j++) {
      const d = t.charCodeAt(j);
      if (d === 0x3a && (j + 1 === end || t.charCodeAt(j + 1) === 0x20)) {
        if (j === i || t.charCodeAt(j - 1) === 0x20) throw UNSURE; // `: x`, `key : x`
        if (c < 128 && INDICATOR[c] && !((c === 0x2d || c === 0x3f || c === 0x3a) && t.charCodeAt(i + 1) !== 0x20)) throw UNSURE;
        const key = t.slice(i, j);
        if (typeof plainScalarJson(key) !== 'string') throw UNSURE;
        return { key, after: j + 1 };
      }
      if (d === 0x23 && t.charCodeAt(j - 1) === 0x20) return undefined;
    }
    return undefined;
  }

  /** A block mapping whose keys are at column `indent`; its first key starts at offset `first` (on the current line). */
  mapping(indent: number, first: number, depth: number): JsonObject {
    if (depth > this.limits.maxDepth) throw UNSURE;
    this.node();
    const out: JsonObject = {};
    const t = this.t;
    let at = first;
    for (;;) {
      const k = this.keyAt(at);
      if (!k) throw UNSURE;
      const key = k.key;
      if (key.length > this.limits.maxKey || key === '<<' || key === '__proto__' || Object.prototype.hasOwnProperty.call(out, key)) throw UNSURE;
      this.node();
      let i = k.after;
      while (t.charCodeAt(i) === 0x20) i++;
      const end = this.lineEnd(i);
      if (i >= end || t.charCodeAt(i) === 0x23) {
        if (i < end && t.charCodeAt(i - 1) !== 0x20) throw UNSURE;
        // The value is on the next lines: more indented, or a sequence at this column.
        this.pos = end + 1;
        const next = this.nextContent();
        if (next > indent) out[key] = this.block(next, depth + 1);
        else if (next === indent && t.charCodeAt(this.pos + indent) === 0x2d && this.blankOrEnd(this.pos + indent + 1)) out[key] = this.sequence(indent, depth + 1);
        else out[key] = this.nullNode();
      } else {
        out[key] = this.scalarValue(i, indent);
      }
      const next = this.nextContent();
      if (next < indent) return out;
      if (next > indent) throw UNSURE;
      at = this.pos + indent;
      if (t.charCodeAt(at) === 0x2d && this.blankOrEnd(at + 1)) throw UNSURE; // a sequence among keys
    }
  }

  /**
   * The scalar (or empty flow collection, or block scalar) starting at `i` on the current line;
   * `parent` is the column of its key or dash. Moves `pos` past it.
   */
  scalarValue(i: number, parent: number): Json {
    const t = this.t;
    let end = this.lineEnd(i);
    const c = t.charCodeAt(i);
    this.node();
    let value: Json;
    let after: number;
    if (c === 0x22 || c === 0x27) {
      // A quoted scalar whose closing quote is on a later line: go-yaml folds long strings at 80
      // columns (`kubectl get -o yaml`: condition messages, annotations; double-quoted when they
      // hold a tab or another character it escapes, as ConfigMap data and termination messages can).
      const q = c === 0x22 ? this.doubleQuoted(i, parent) : !this.closesOnLine(i + 1, end) ? this.singleQuotedLines(i, parent) : { ...this.quoted(i, end), end };
      value = this.keep(q.value);
      after = q.after;
      end = q.end;
    } else if (c === 0x7c) {
      return this.literal(i, end, parent);
    } else if ((c === 0x7b && t.charCodeAt(i + 1) === 0x7d) || (c === 0x5b && t.charCodeAt(i + 1) === 0x5d)) {
      value = c === 0x7b ? {} : [];
      after = i + 2;
    } else if (c === 0x5b) {
      const f = this.flowSequence(i, end);
      value = f.value;
      after = f.after;
    } else {
      if (c < 128 && INDICATOR[c] && !((c === 0x2d || c === 0x3f || c === 0x3a) && t.charCodeAt(i + 1) !== 0x20 && i + 1 < end)) throw UNSURE;
      // A plain scalar: to the line's end or a ` #`; a `: ` inside is an error for js-yaml.
      let j = i;
      let last = i;
      for (; j < end; j++) {
        const d = t.charCodeAt(j);
        if (d === 0x23 && t.charCodeAt(j - 1) === 0x20) break;
        if (d === 0x3a && (j + 1 === end || t.charCodeAt(j + 1) === 0x20)) throw UNSURE;
        if (d !== 0x20) last = j + 1;
      }
      // More indented lines after it continue it (go-yaml's folding of long strings), unless a comment ended it.
      const folded = j === end ? this.plainLines(t.slice(i, last), end, parent) : undefined;
      value = plainScalarJson(folded ? folded.text : t.slice(i, last));
      if (typeof value === 'string') value = this.keep(value);
      after = folded ? folded.end : last;
      if (folded) end = folded.end;
    }
    // Only blanks or a comment may follow on the line.
    let j = after;
    while (t.charCodeAt(j) === 0x20) j++;
    if (j < end && !(t.charCodeAt(j) === 0x23 && j > after)) throw UNSURE;
    this.pos = end + 1;
    // A more indented line after a one-line scalar continues it (a multi-line scalar) or is an error.
    const next = this.nextContent();
    if (next > parent) throw UNSURE;
    return value;
  }

  /**
   * A one-line flow sequence of scalars (`["a", b]`) starting at `i`: its value and the offset
   * after the `]`. Nested collections, empty entries, a trailing comma, `:`, `#` and the other
   * flow indicators inside a plain entry are declined.
   */
  flowSequence(i: number, end: number): { value: Json[]; after: number } {
    const t = this.t;
    const value: Json[] = [];
    let j = i + 1;
    for (;;) {
      while (t.charCodeAt(j) === 0x20) j++;
      if (j >= end) throw UNSURE;
      const c = t.charCodeAt(j);
      this.node();
      if (c === 0x22 || c === 0x27) {
        const q = this.quoted(j, end);
        value.push(this.keep(q.value));
        j = q.after;
      } else {
        if (c < 128 && INDICATOR[c] && !(c === 0x2d && t.charCodeAt(j + 1) !== 0x20 && t.charCodeAt(j + 1) !== 0x2c && t.charCodeAt(j + 1) !== 0x5d)) throw UNSURE;
        let k = j;
        let last = j;
        for (; k < end; k++) {
          const d = t.charCodeAt(k);
          if (d === 0x2c || d === 0x5d) break;
          if (d === 0x5b || d === 0x7b || d === 0x7d || d === 0x3a || d === 0x23 || d === 0x22 || d === 0x27) throw UNSURE;
          if (d !== 0x20) last = k + 1;
        }
        const v = plainScalarJson(t.slice(j, last));
        value.push(typeof v === 'string' ? this.keep(v) : v);
        j = k;
      }
      while (t.charCodeAt(j) === 0x20) j++;
      const d = t.charCodeAt(j);
      if (d === 0x5d) return { value, after: j + 1 };
      if (d !== 0x2c || j >= end) throw UNSURE;
      j++;
      while (t.charCodeAt(j) === 0x20) j++;
      if (t.charCodeAt(j) === 0x5d) throw UNSURE; // a trailing comma
    }
  }

  /**
   * The lines after a one-line plain scalar (`first`, its text to the end of its line `end`) that
   * continue it, folded as YAML folds them (a line break between two lines is a space, n empty
   * lines are n line feeds); undefined when the next content line does not continue it. A
   * continuation line must be more indented than `parent`, must not start with an indicator
   * (a comment, `- `, a quote...) and must not hold `: ` or ` #`; else js-yaml decides.
   */
  plainLines(first: string, end: number, parent: number): { text: string; end: number } | undefined {
    const t = this.t;
    const parts = [first];
    let empties = 0;
    let lastEnd = end;
    for (let p = end + 1; p < t.length; ) {
      const e = this.lineEnd(p);
      let k = p;
      while (t.charCodeAt(k) === 0x20) k++;
      if (k >= e) {
        empties++;
        p = e + 1;
        continue;
      }
      if (k - p <= parent) break;
      const c = t.charCodeAt(k);
      if (c < 128 && INDICATOR[c]) throw UNSURE;
      let last = k;
      for (let j = k; j < e; j++) {
        const d = t.charCodeAt(j);
        if (d === 0x23 && t.charCodeAt(j - 1) === 0x20) throw UNSURE;
        if (d === 0x3a && (j + 1 === e || t.charCodeAt(j + 1) === 0x20)) throw UNSURE;
        if (d !== 0x20) last = j + 1;
      }
      parts.push(empties ? '\n'.repeat(empties) : ' ', t.slice(k, last));
      empties = 0;
      lastEnd = e;
      p = e + 1;
    }
    return parts.length > 1 ? { text: parts.join(''), end: lastEnd } : undefined;
  }

  /** Whether a single-quoted scalar whose text starts at `from` closes before `end` (`''` is a quote inside). */
  closesOnLine(from: number, end: number): boolean {
    const t = this.t;
    for (let q = t.indexOf("'", from); q >= 0 && q < end; q = t.indexOf("'", q + 2)) if (t.charCodeAt(q + 1) !== 0x27) return true;
    return false;
  }

  /**
   * A single-quoted scalar at `i` whose closing quote is on a later line, folded as YAML folds it:
   * each line's leading and trailing blanks go (the first line keeps its leading ones, the last its
   * trailing ones), a line break between two lines is a space, n empty lines are n line feeds.
   * Every later line must be more indented than `parent` (else js-yaml decides).
   */
  singleQuotedLines(i: number, parent: number): { value: string; after: number; end: number } {
    const t = this.t;
    const lines: string[] = [];
    let cur = '';
    let from = i + 1;
    let end = this.lineEnd(i);
    // The next quote at or after `from`, found once for all the lines before it (a search per line
    // would read the rest of the text again for each line of a quote that is never closed).
    let q = -2;
    for (;;) {
      if (q !== -1 && q < from) q = t.indexOf("'", from);
      if (q >= 0 && q < end) {
        cur += t.slice(from, q);
        if (t.charCodeAt(q + 1) === 0x27) {
          cur += "'";
          from = q + 2;
          continue;
        }
        lines.push(cur);
        let value = lines[0];
        let empties = 0;
        for (let k = 1; k < lines.length; k++) {
          if (k < lines.length - 1 && lines[k] === '') {
            empties++;
            continue;
          }
          value += (empties ? '\n'.repeat(empties) : ' ') + lines[k];
          empties = 0;
        }
        return { value, after: q + 1, end };
      }
      // No closing quote on this line: its text without the trailing blanks.
      lines.push((cur + t.slice(from, end)).replace(/ +$/, ''));
      cur = '';
      const p = end + 1;
      if (p >= t.length) throw UNSURE;
      end = this.lineEnd(p);
      let k = p;
      while (t.charCodeAt(k) === 0x20) k++;
      if (k < end && k - p <= parent) throw UNSURE;
      if (t.startsWith('---', p) || t.startsWith('...', p)) throw UNSURE;
      from = k;
    }
  }

  /** A one-line quoted scalar starting at `i`: its value and the offset after the closing quote. */
  quoted(i: number, end: number): { value: string; after: number } {
    const t = this.t;
    if (t.charCodeAt(i) === 0x27) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = t.indexOf("'", from);
        if (q < 0 || q >= end) throw UNSURE;
        value += t.slice(from, q);
        if (t.charCodeAt(q + 1) !== 0x27) return { value, after: q + 1 };
        value += "'";
        from = q + 2;
      }
    }
    let value = '';
    let from = i + 1;
    for (let j = from; j < end; ) {
      const d = t.charCodeAt(j);
      if (d === 0x22) return { value: value + t.slice(from, j), after: j + 1 };
      if (d === 0x5c) {
        const e = escapeAt(t, j);
        value += t.slice(from, j) + e.text;
        j = from = e.after;
      } else j++;
    }
    throw UNSURE;
  }

  /** Whether a double-quoted scalar whose text starts at `from` closes before `end`. */
  doubleClosesOnLine(from: number, end: number): boolean {
    const t = this.t;
    for (let j = from; j < end; j++) {
      const d = t.charCodeAt(j);
      if (d === 0x22) return true;
      if (d === 0x5c) j++;
    }
    return false;
  }

  /**
   * A double-quoted scalar at `i` (on one line or several), read as YAML reads it (1.2 7.3.1): on
   * each line break, the blanks before it go (unless a `\` escapes the break, which then joins the
   * lines with nothing) and so do the next line's leading blanks; a break between two lines is a
   * space, n empty lines are n line feeds. go-yaml folds at a space past 80 columns, and writes a
   * space that starts a line as `\ `. Every later line must be more indented than `parent` (else
   * js-yaml decides).
   */
  doubleQuoted(i: number, parent: number): { value: string; after: number; end: number } {
    const t = this.t;
    let value = '';
    let j = i + 1;
    let end = this.lineEnd(i);
    for (;;) {
      // The line's text from j: to the closing quote, or to the line's end.
      let line = '';
      /** line's length up to its last character that is not a raw blank. */
      let hard = 0;
      let from = j;
      let joinNext = ' ';
      while (j < end) {
        const c = t.charCodeAt(j);
        if (c === 0x22) return { value: value + line + t.slice(from, j), after: j + 1, end };
        if (c === 0x5c) {
          line += t.slice(from, j);
          if (j + 1 >= end) {
            // An escaped line break: the line keeps its blanks, and the next one follows it directly.
            hard = line.length;
            joinNext = '';
            from = j = end;
            break;
          }
          const e = escapeAt(t, j);
          line += e.text;
          hard = line.length;
          j = from = e.after;
          continue;
        }
        if (c !== 0x20) hard = line.length + j - from + 1;
        j++;
      }
      line += t.slice(from, j);
      value += line.slice(0, hard);
      // The next line with content, after any empty ones.
      let empties = 0;
      for (;;) {
        const p = end + 1;
        if (p >= t.length) throw UNSURE;
        end = this.lineEnd(p);
        let k = p;
        while (t.charCodeAt(k) === 0x20) k++;
        if (k >= end) {
          empties++;
          continue;
        }
        if (k - p <= parent) throw UNSURE;
        j = k;
        break;
      }
      value += empties ? '\n'.repeat(empties) : joinNext;
    }
  }

  /**
   * A literal block scalar (header at `i`: `|`, a chomping indicator `-` or `+`, an indentation
   * indicator 1-9, in either order) of a node whose key or dash is at column `parent`. go-yaml
   * writes `|+` for a string that ends with an empty line (a config file often does) and `|2` for
   * one that starts with a space or a line break.
   */
  literal(i: number, end: number, parent: number): string {
    const t = this.t;
    let j = i + 1;
    let chomp: 'clip' | 'strip' | 'keep' = 'clip';
    let indicator = 0;
    for (let k = 0; k < 2; k++) {
      const c = t.charCodeAt(j);
      if ((c === 0x2d || c === 0x2b) && chomp === 'clip') chomp = c === 0x2d ? 'strip' : 'keep';
      else if (c >= 0x31 && c <= 0x39 && indicator === 0) indicator = c - 0x30;
      else break;
      j++;
    }
    const h = j;
    while (t.charCodeAt(j) === 0x20) j++;
    if (j < end && !(t.charCodeAt(j) === 0x23 && j > h)) throw UNSURE; // text after the header
    let p = end + 1;
    let leading = 0;
    let n: number;
    if (indicator) {
      // The content is indented `indicator` more than the parent node (YAML 1.2 8.1.1.1); lines of
      // more spaces, also above the first, are content.
      n = parent + indicator;
    } else {
      // The content's indentation is that of its first non-empty line. Empty lines before it (Loki's
      // chart writes `config.yaml: |` then a blank line) are line feeds of the content, and may not
      // hold more spaces than that indentation (YAML 1.2 8.1.1.1: an error, so declined).
      let leadingSpaces = 0;
      for (;;) {
        if (p >= t.length) throw UNSURE;
        let k = p;
        while (t.charCodeAt(k) === 0x20) k++;
        const e = this.lineEnd(p);
        if (k < e) break;
        leading++;
        leadingSpaces = Math.max(leadingSpaces, k - p);
        p = e + 1;
      }
      n = 0;
      while (t.charCodeAt(p + n) === 0x20) n++;
      if (n <= parent || leadingSpaces > n) throw UNSURE;
    }
    const lines: string[] = [];
    let blank = leading;
    while (p < t.length) {
      const e = this.lineEnd(p);
      let s = 0;
      while (s < n && t.charCodeAt(p + s) === 0x20) s++;
      if (s < n) {
        // Less indented: an empty line if only blanks, else the end of the scalar.
        let k = p + s;
        while (t.charCodeAt(k) === 0x20) k++;
        if (k < e) break;
        blank++;
      } else if (p + n === e) blank++;
      else {
        if (indicator) {
          // A line of blanks only, more than the indentation: content for YAML 1.2 and go-yaml,
          // but yaml (parse.ts) reads it as an empty line after an indentation indicator.
          let k = p + n;
          while (t.charCodeAt(k) === 0x20) k++;
          if (k >= e) throw UNSURE;
        }
        for (; blank > 0; blank--) lines.push('');
        lines.push(t.slice(p + n, e));
      }
      p = e + 1;
    }
    // A last line without a line feed: whether clip or keep chomping adds one is left to js-yaml.
    // (A scalar of empty lines only, too.)
    if ((p > t.length && chomp !== 'strip') || !lines.length) throw UNSURE;
    this.pos = Math.min(p, t.length);
    // Trailing blank lines are dropped by clip and strip chomping (clip keeps one line feed) and
    // kept by keep chomping.
    const value = lines.join('\n');
    // (The join of several lines is a new string; of one line, that line: the text's slice.)
    const v = chomp === 'strip' ? value : chomp === 'clip' ? `${value}\n` : `${value}\n${'\n'.repeat(blank)}`;
    return lines.length > 1 ? v : this.keep(v);
  }
}

/**
 * The value of one document's text (a `---` line first, or not), or undefined where this reader
 * is not sure to read it as js-yaml does (js-yaml then reads it).
 */
export function readQuick(text: string, limits: Limits): JsonObject | undefined {
  if (MAYBE_UNSURE.test(text) && (/[\t\r\ufeff]/.test(text) || NON_PRINTABLE.test(text))) return undefined;
  const r = new Reader(text, limits);
  if (text.startsWith('---')) {
    if (!r.blankOrEnd(3)) return undefined;
    let i = 3;
    while (text.charCodeAt(i) === 0x20) i++;
    const end = r.lineEnd(i);
    if (i < end && !(text.charCodeAt(i) === 0x23 && i > 3)) return undefined;
    r.pos = end + 1;
  }
  try {
    const indent = r.nextContent();
    if (indent < 0) return undefined;
    const c = text.charCodeAt(r.pos + indent);
    if (c === 0x2d && r.blankOrEnd(r.pos + indent + 1)) return undefined; // a sequence at the root
    const value = r.mapping(indent, r.pos + indent, 1);
    if (r.nextContent() !== -1) return undefined;
    return value;
  } catch {
    // Unsure, or a value with no JSON form (`.inf`): js-yaml reads it again and decides.
    return undefined;
  }
}
