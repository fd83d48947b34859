/**
 * The fast path for YAML input (rendered charts, `kubectl get -o yaml`, 100k-object streams):
 * the values come from js-yaml, about eight times faster than the `yaml` package's document tree,
 * and source positions are computed only for what is reported: read off the document's text
 * (yaml-locate.ts) when its layout is simple, else by parsing that one document again with `yaml`
 * (the position-keeping path's own parser and locate logic, parse.ts).
 *
 * Exactness: the values must be those Kubernetes reads (sigs.k8s.io/yaml over go-yaml v2, YAML
 * 1.1), as parse.ts computes them with yaml11.ts. js-yaml runs with a schema of its own: the
 * failsafe types (strings, sequences, mappings) plus one implicit type for plain scalars whose
 * value is yaml11.ts's go-yaml resolution of the text (so `010` is 8, `yes` is true, a quoted
 * "010" stays a string). Wherever the two readings could differ this path declines the document:
 * parse.ts reads that document alone (readAlone: its values, its errors with positions, its
 * objects' positions; the same as in its reading of the whole stream, since nothing crosses a
 * `---` line for yaml but a quoted scalar's search for its closing quote, which readAlone
 * reproduces), and the other documents keep this path. A document is declined on:
 * - any js-yaml error (syntax, duplicate keys, an unknown tag, `.inf` with no JSON form, ...);
 * - any explicit tag (`!!int`, `!`, `!foo`), anchors on collections or on the document and
 *   aliases of collections (js-yaml shares one object where go-yaml expands and counts a copy;
 *   anchors on scalars are read alike), merge keys `<<`, content after a `...` document end or
 *   two `...`, explicit `?` keys, collections as keys, keys go-yaml reads as non-strings
 *   (`yes:`, `1:`, `null:`: js-yaml would stringify them differently; a key that is the String()
 *   of any non-string plain scalar of the document, or `null`, is declined), keys longer than
 *   200 characters (YAML's 1024-character implicit-key limit counts the escaped source);
 * - nesting near MAX_DEPTH; documents near MAX_NODES that only js-yaml reads (quick-yaml.ts's block
 *   documents have no node limit: see QUICK_LIMITS); a tab before the first content;
 * - a lone CR (a line break for js-yaml, not for yaml, whose documents start after a line feed);
 * - what js-yaml reads and yaml reports as a syntax error: a flow scalar or flow collection in a
 *   block collection whose later lines are not indented more than the collection's entries, a
 *   block collection that starts on the `---` line; and content at the start of the file that
 *   starts with `---` not followed by a blank (js-yaml takes that for a marker, yaml does not).
 * The whole file is declined (returns undefined, so the caller uses parse.ts on all of it) when
 * what one document holds could change how the next one is read: on a `%` line at the start of
 * a line (a directive after a `...`, content elsewhere; yaml carries directives and the state
 * after them over to the next document) and on a byte-order mark inside (after a `...`, yaml
 * skips it, so a `---` right after it starts a document; elsewhere it is content); for text
 * read from its bytes, also on U+2028 or U+2029; and when yaml throws on a declined document
 * (parse.ts's reading of the whole file then fails alike).
 * Documents are split at `---` lines (column 0) exactly as `yaml` counts them: every `---` starts
 * one (an empty one is a document without an object), and the part before the first marker is
 * one only if it has content or a `...`; so docIndex, uid and `documents` are those of parse.ts.
 * test/model/fast-yaml.test.ts checks that both paths agree on every value, position and
 * finding over the corpus, the fuzz inputs and YAML 1.1 corner cases.
 */
import * as jsyaml from 'js-yaml';
import { Document, LineCounter, Node, parseDocument } from 'yaml';
import * as fs from 'fs';
import { isAscii } from 'buffer';
import { BOM, ChunkWindow, CHUNK_BYTES, FileStamp, ParsedObjects, ReadAgain, readAgainFrom, textOf, withStampedFile } from './fast-json';
import { isKubernetesObject, locateNode, MAX_DEPTH, MAX_NODES, ObjectView, PARSE_OPTIONS, parsedFromDocuments, pointerSegments, readDocuments, textLineCounter, withoutStacks } from './parse';
import { InputError, Json, JsonObject, Position } from './types';
import { plainScalarJson } from './yaml11';
import { readQuick, VIEW_MIN } from './quick-yaml';
import { lineFeeds, lineIndex } from './lines';
import { TextLocator, UNSURE } from './yaml-locate';
import { BrokenItems, listPartsError, splitList } from './list-error';
import { isList, itemError, listItem, notAnObject } from './not-an-object';

/** The implicit type's tag: it has a space, so no tag written in a document can name it. */
const PLAIN_TAG = 'kubegrace plain scalar';

/** Thrown from js-yaml callbacks to stop reading: the fast path declines. */
class Decline extends Error {}

/** String() of every plain scalar of the current document whose value is not a string. */
let nonStrings = new Set<string>();

const PLAIN = new jsyaml.Type(PLAIN_TAG, {
  kind: 'scalar',
  resolve: () => true,
  construct: (s: string): Json => {
    const v = plainScalarJson(s);
    if (typeof v !== 'string') nonStrings.add(String(v));
    return v;
  },
});
/** js-yaml's schema here: failsafe types plus go-yaml's resolution of plain scalars (exported for tests). */
export const SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({ implicit: [PLAIN] });

/** Keys longer than this are declined (the 1024-character limit applies to the key's source). */
const MAX_KEY = 200;
/** Listener depth at which the path declines (k8sValue refuses beyond MAX_DEPTH). */
const DEPTH_LIMIT = MAX_DEPTH - 4;
/** composeNode calls (some for absent nodes) per document at which the path declines. */
const NODE_LIMIT = Math.floor(MAX_NODES / 2);

/** The subset of js-yaml's loader state the listener reads. */
interface LoaderState {
  input: string;
  position: number;
  line: number;
  kind: string | null;
  tag: string | null;
  anchor: string | null;
  result: unknown;
}

const DOC_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;


/** A document's text (`text[start, end)`), its root node's offset, and what positions computed over it. */
interface DocText {
  text: string;
  start: number;
  end: number;
  root: number;
  locator?: TextLocator;
  lineStarts?: number[];
  /** The `yaml` reading, once a position needed it. */
  doc?: Document.Parsed;
  lc?: LineCounter;
}

/** Bytes read at a time when documents' texts are read again from a file (DocumentReader). */
const READ_AHEAD = 1024 * 1024;

/**
 * The documents' texts of a file read in chunks (parseYamlFile), which keeps none of them: a
 * document's text is read again from the file when a position in it is asked for, decoded as it
 * was read (one-byte when its bytes are ASCII, else UTF-8; the same characters, so the same
 * offsets). Positions are asked object by object in input order (run.ts's locateFindings), so
 * the file is read a block of READ_AHEAD bytes at a time and only the last document's text is
 * kept. If the file's size or modification time changed since it was read (withStampedFile),
 * there is no text: an object's own position is given instead, as for a JSON List (fast-json.ts).
 */
class DocumentReader {
  private block?: { start: number; bytes: Buffer };
  private last?: { span: Span; text: DocText | undefined };
  constructor(
    private readonly again: ReadAgain,
    private readonly size: number,
    private readonly readAhead: number,
  ) {}
  /** The text of the document of `span`, whose bytes are [start, end) of the file. */
  read(span: Span, start: number, end: number, root: number): DocText | undefined {
    if (this.last?.span === span) return this.last.text;
    const b = this.block;
    if (!b || start < b.start || end > b.start + b.bytes.length) {
      const bytes = this.again(start, Math.min(this.size, Math.max(end, start + this.readAhead)));
      this.block = bytes && { start, bytes };
    }
    const at = this.block;
    const t = at && textOf(at.bytes, start - at.start, end - at.start);
    this.last = { span, text: t === undefined ? undefined : { text: t, start: 0, end: t.length, root } };
    return this.last.text;
  }
  /** The text of `span`'s document if it is the one kept. */
  kept(span: Span): DocText | undefined {
    return this.last?.span === span ? this.last.text : undefined;
  }
}

/**
 * One document. Positions are read off its text when the document is simple (see
 * yaml-locate.ts), else from the document parsed again by `yaml` on the first request. The text
 * is a string that holds it (the file's, a window's, or the document's own), or, for a file read
 * in chunks, read again from the file (DocumentReader): then nothing of the text is kept.
 */
class Span {
  /** The text and what was computed over it, when `source` is a string. */
  private held?: DocText;
  constructor(
    /** A string that holds the text at [start, end), or the reader of the file whose bytes [start, end) it is. */
    private readonly source: string | DocumentReader,
    private readonly start: number,
    private readonly end: number,
    /** 1-based line of `start` in the file. */
    readonly line: number,
    /** Offset of the root node (in the document's own text when it is read again). */
    private readonly root: number,
    private readonly simple: boolean,
    /** Offset of `start` in the file's whole text (the document's own text may be `text`). */
    private readonly offset: number = start,
  ) {}
  private text(): DocText | undefined {
    if (typeof this.source === 'string') return (this.held ??= { text: this.source, start: this.start, end: this.end, root: this.root });
    return this.source.read(this, this.start, this.end, this.root);
  }
  /**
   * The `yaml` reading, once a position was asked for, with the offset its ranges count from,
   * handed over: this span forgets it (and parses again if asked for a position later).
   */
  take(): { doc: Document.Parsed; start: number } | undefined {
    const d = typeof this.source === 'string' ? this.held : this.source.kept(this);
    const doc = d?.doc;
    if (d) {
      d.doc = undefined;
      d.lc = undefined;
    }
    return doc ? { doc, start: this.offset } : undefined;
  }
  /** The position of `segments` read off the text alone (a simple document), or undefined: then locate decides. */
  locateText(segments: string[]): Position | undefined {
    const d = this.simple ? this.text() : undefined;
    if (!d) return undefined;
    d.locator ??= new TextLocator(d.text, d.start, d.end);
    const at = d.locator.locate(d.root, segments);
    return at === UNSURE ? undefined : this.position(d, at);
  }
  /** As parse.ts's locateNode over this document; `fallback` in file lines. */
  locate(segments: string[], fallback: Position): Position {
    const d = this.text();
    // The file changed since it was read: the position of the object (or of its document).
    if (!d) return fallback;
    if (this.simple) {
      d.locator ??= new TextLocator(d.text, d.start, d.end);
      const at = d.locator.locate(d.root, segments);
      if (at !== UNSURE) return this.position(d, at);
    }
    return this.locateParsed(segments, fallback);
  }
  /**
   * As locate, from `yaml`'s reading of the text alone (from its root node: a List item's text
   * reads as a sequence of that one item, so its segments start with '0').
   */
  locateParsed(segments: string[], fallback: Position): Position {
    const d = this.text();
    if (!d) return fallback;
    if (!d.doc) {
      d.lc = new LineCounter();
      d.doc = withoutStacks(() => parseDocument(d.text.slice(d.start, d.end), { ...PARSE_OPTIONS, lineCounter: d.lc! }));
    }
    const shift = this.line - 1;
    const p = locateNode(d.doc.contents as Node, segments, d.lc!, { line: fallback.line - shift, column: fallback.column }, d.doc);
    return { line: p.line + shift, column: p.column };
  }
  /** File line and column of an offset in this document (columns in UTF-16 units, as LineCounter). */
  private position(d: DocText, offset: number): Position {
    if (!d.lineStarts) {
      const s = [d.start];
      for (let i = d.text.indexOf('\n', d.start); i >= 0 && i < d.end; i = d.text.indexOf('\n', i + 1)) s.push(i + 1);
      d.lineStarts = s;
    }
    const s = d.lineStarts;
    const lo = lineIndex(s, offset);
    return { line: this.line + lo, column: offset - s[lo] + 1 };
  }
}

class YamlObjectView extends ObjectView {
  private pos?: Position;
  constructor(
    raw: JsonObject,
    file: string,
    docIndex: number,
    basePointer: string,
    private readonly span: Span,
    /** The document's root position (the object's own for a non-List document). */
    private readonly docPos: Position,
    /**
     * A List item's own text in a file read in chunks (its lines only, rooted at the item): its
     * positions are read from it, so that a List document of hundreds of MB is not read again
     * whole; the document's span decides where the item's text alone cannot.
     */
    private readonly item?: Span,
    /**
     * A List item read without the other items (itemAlone): where its own text cannot tell a
     * position, yaml's reading of its lines alone does, not the document's (hundreds of MB).
     */
    private readonly alone = false,
  ) {
    super(raw, file, docIndex, basePointer);
    if (basePointer === '') this.pos = docPos;
  }
  /** The position of `pointer` (from the object) read off the item's text, or the document's. */
  private find(pointer: string, fallback: Position): Position {
    const own = this.item?.locateText(pointerSegments(pointer));
    if (own) return own;
    return this.alone ? this.item!.locateParsed(['0', ...pointerSegments(pointer)], fallback) : this.span.locate(pointerSegments(this.basePointer + pointer), fallback);
  }
  /**
   * The document's `yaml` reading if a position in it was asked for (offsets counted from `start`
   * in the text read), handed over to --fix so that it need not parse the document again (the
   * document's objects parse it again if asked for a position later).
   */
  takeDocument(): { doc: Document.Parsed; start: number } | undefined {
    return this.span.take();
  }
  /** A List item's position needs the document's positions: computed on first use. */
  private position(): Position {
    return (this.pos ??= this.find('', this.docPos));
  }
  get line(): number {
    return this.position().line;
  }
  get column(): number {
    return this.position().column;
  }
  locate(pointer: string): Position {
    return this.find(pointer, this.position());
  }
}

/** Offset of the document's first content character after `from` (past a `---` marker when `marker`). */
function contentStart(text: string, from: number, end: number, marker: boolean): number | undefined {
  let i = marker ? from + 3 : from;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x23) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? end : nl;
    } else if (c === 0x09) return undefined; // tabs before content: leave them to parse.ts
    else return i;
  }
  return end;
}

/**
 * quick-yaml.ts has no node limit of its own: it reads no alias, anchor on a collection, tag or
 * merge key, so a document it reads holds no more nodes than its text has lines and flow items,
 * which --max-file-size bounds (as for JSON, whose fast path never had one). parse.ts's MAX_NODES
 * bounds what aliases expand to and what `yaml`'s tree holds in memory (about 40 times the text);
 * applied here it sent a `kubectl get -A -o yaml` dump, one List document of millions of nodes, to
 * `yaml` (92k objects: 21 s and 2.1 GB) or refused it (185k objects: after 48 s and 4 GB) where
 * the same dump as JSON is read in 2 s (test/model/yaml-list-dump.test.ts).
 */
const QUICK_LIMITS = { maxKey: MAX_KEY, maxDepth: DEPTH_LIMIT - 4, maxNodes: Number.MAX_SAFE_INTEGER };

/** Throws Decline for a key the two readings could disagree on. */
function checkKeys(v: Json, keys: Set<string>): void {
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && typeof x === 'object') checkKeys(x, keys);
    return;
  }
  if (v === null || typeof v !== 'object') return;
  for (const k of Object.keys(v)) {
    if (k.length > MAX_KEY || k === '<<' || keys.has(k)) throw new Decline();
    const x = v[k];
    if (x !== null && typeof x === 'object') checkKeys(x, keys);
  }
}

/**
 * Reads one document's text (a `---` marker line first when `marker`): its value, and whether
 * it has any content (an empty document has none). Throws on anything this path declines.
 */
function loadDocument(span: string, explicitKeys: boolean, own?: (s: string) => string): { value: Json; content: boolean; simple: boolean } {
  // The YAML tools write is read by quick-yaml.ts, several times faster; js-yaml reads the rest.
  const quick = readQuick(span, own ? { ...QUICK_LIMITS, own } : QUICK_LIMITS);
  if (quick) return { value: quick, content: true, simple: true };
  let depth = 0;
  let opened = 0;
  let content = false;
  let simple = true;
  const openLine: number[] = [];
  const openAt: number[] = [];
  nonStrings = new Set(['null', '[object Object]']);
  const listener = (event: 'open' | 'close', state: LoaderState): void => {
    if (event === 'open') {
      if (++depth > DEPTH_LIMIT || ++opened > NODE_LIMIT) throw new Decline();
      if (explicitKeys && explicitKeyBefore(state.input, state.position)) throw new Decline();
      openLine[depth] = state.line;
      openAt[depth] = state.position;
      return;
    }
    const d = depth--;
    if (state.line !== openLine[d] && spansLines(state, openAt[d])) {
      simple = false;
      // js-yaml keeps the blanks at the end of a quoted scalar's line before a line break, which
      // YAML (yaml, go-yaml) drops: `"x  \n  y"` is "x   y" for js-yaml, "x y" for the API server.
      if (quotedBlankBreak(state.input, openAt[d], state.position)) throw new Decline();
      // js-yaml reads a flow node that spans lines whatever their indentation; yaml requires it.
      if (d > 1 && underIndented(state, openAt, d)) throw new Decline();
    }
    if (state.tag !== null && state.tag !== PLAIN_TAG) throw new Decline();
    // Anchors on scalars only: an alias of a collection shares one object in js-yaml where
    // go-yaml expands a copy (and counts the expansion against its alias-bomb limits).
    if (state.anchor !== null && (depth === 0 || state.kind === 'mapping' || state.kind === 'sequence' || !ANCHOR_NAME.test(state.anchor))) throw new Decline();
    // (yaml-locate.ts would point at the anchor, parse.ts at the scalar after it.)
    if (state.anchor !== null) simple = false;
    if (state.kind === null && state.result !== null && typeof state.result === 'object') throw new Decline();
    if (depth === 0 && state.kind !== null) content = true;
    if (state.input.charCodeAt(state.position) === 0x23) {
      // A `#` right after a closing quote or bracket: js-yaml reads a comment, yaml an error.
      const last = state.input.charCodeAt(state.position - 1);
      if (last === 0x22 || last === 0x27 || last === 0x5d || last === 0x7d) throw new Decline();
    }
    if (state.kind === 'mapping' || state.kind === 'sequence') {
      // A flow collection just closed: if a `:` follows, it is a key (js-yaml stringifies it).
      const input = state.input;
      const last = input.charCodeAt(state.position - 1);
      if (last === 0x7d || last === 0x5d) {
        let i = state.position;
        while (input.charCodeAt(i) === 0x20 || input.charCodeAt(i) === 0x09) i++;
        if (input.charCodeAt(i) === 0x3a) throw new Decline();
      }
    }
  };
  const value = jsyaml.load(span, { schema: SCHEMA, listener: listener as (this: unknown, e: jsyaml.EventType, s: unknown) => void }) as Json | undefined;
  if (value === undefined) return { value: null, content: false, simple };
  checkKeys(value, nonStrings);
  return { value: own ? ownStrings(value, own) : value, content, simple };
}

/** `v` with `own` applied to every string of VIEW_MIN characters or more in it (js-yaml's values are slices of the text). */
function ownStrings(v: Json, own: (s: string) => string): Json {
  if (typeof v === 'string') return v.length >= VIEW_MIN ? own(v) : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = ownStrings(v[i], own);
  } else if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      const x = v[k];
      const y = ownStrings(x, own);
      if (y !== x) v[k] = y;
    }
  }
  return v;
}

/** Distinct strings OwnedStrings remembers at most (then it starts afresh). */
const OWNED_MAX = 1 << 16;
/** Longest string V8 hashes by its characters (String::kMaxHashCalcLength). */
const OWNED_HASHED = 16383;

/**
 * For a file read in chunks: copies of string values that share no storage with the window they
 * were read from. V8 makes a slice of 13 or more characters a view of its parent string, so one
 * such value would keep its whole window (8 MiB) alive, and the values of 100k objects keep every
 * window: the file's size again. Values repeat across the objects of a large file (images,
 * labels, ports, a chart's objects in many namespaces), so a copy is made once for each distinct
 * string among the last OWNED_MAX met and shared: equal strings are interchangeable.
 */
function ownedStrings(): (s: string) => string {
  let seen = new Map<string, string>();
  /** Strings longer than OWNED_HASHED, by their length and ends (one string a key). */
  let long = new Map<string, string>();
  // (A sum of 13+ characters is flattened into a new string by the slice; the slice is a view of
  // that new string only.)
  const copy = (s: string) => (' ' + s).slice(1);
  return (s) => {
    if (s.length > OWNED_HASHED) {
      // V8 hashes such a string by its length alone: as Map keys, many of one length would make
      // every lookup compare them all. Keyed by their ends instead, and compared once.
      // (The key is a copy too: slices would keep the window while the file is read.)
      const key = copy(`${s.length}:${s.slice(0, 256)}${s.slice(-256)}`);
      const c = long.get(key);
      if (c === s) return c;
      if (c !== undefined) return copy(s);
      if (long.size >= OWNED_MAX) long = new Map();
      long.set(key, copy(s));
      return long.get(key)!;
    }
    let c = seen.get(s);
    if (c === undefined) {
      c = copy(s);
      if (seen.size >= OWNED_MAX) seen = new Map();
      seen.set(c, c);
    }
    return c;
  };
}

/**
 * Whether the node that just closed is a scalar (not a block scalar) or a flow collection that
 * spans lines: such a document is not simple for yaml-locate.ts. `from` is where js-yaml opened
 * the node (before any white space and comments that precede it).
 */
function spansLines(state: LoaderState, from: number): boolean {
  const input = state.input;
  const last = input.charCodeAt(state.position - 1);
  const flow = (state.kind === 'mapping' || state.kind === 'sequence') && (last === 0x7d || last === 0x5d);
  if (state.kind !== 'scalar' && !flow) return false;
  let i = from;
  for (;;) {
    const c = input.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x23) {
      const nl = input.indexOf('\n', i);
      i = nl < 0 ? input.length : nl;
    } else break;
  }
  const nl = input.indexOf('\n', i);
  if (nl < 0 || nl >= state.position - 1) return false;
  const c = input.charCodeAt(i);
  return flow || !(c === 0x7c || c === 0x3e);
}

/** Whether input[from, to) holds a quote and a blank right before a line break (see the listener). */
function quotedBlankBreak(input: string, from: number, to: number): boolean {
  const s = input.slice(from, to);
  return (s.includes("'") || s.includes('"')) && /[ \t]\r?\n/.test(s);
}

/** Offset of the first character after `i` that is not white space or a comment. */
function skipBlanks(input: string, i: number): number {
  for (;;) {
    const c = input.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x23) {
      const nl = input.indexOf('\n', i);
      i = nl < 0 ? input.length : nl;
    } else return i;
  }
}

/**
 * Whether the flow scalar or flow collection that just closed (at depth `d`, opened at
 * `openAt[d]`, spanning lines) has a line that yaml reads as less indented than it must be: in
 * a block collection, the lines after a flow node's first must be indented more than the
 * collection's entries (the innermost enclosing collection that is not a flow one, found from
 * where the enclosing nodes start); at the root, outside any block collection, any indentation
 * is allowed. The closing bracket of the outermost flow collection may stand at the entries'
 * column (yaml allows that too). Lines that are blank are fine; a comment line in a flow
 * collection is counted too (declining is always safe).
 */
function underIndented(state: LoaderState, openAt: number[], d: number): boolean {
  const input = state.input;
  const at = skipBlanks(input, openAt[d]);
  let base = -1;
  let outermost = true;
  for (let k = d - 1; k >= 1; k--) {
    const p = skipBlanks(input, openAt[k]);
    // (js-yaml opens a block sequence's item, then the same scalar in it as a possible key.)
    if (p >= at) continue;
    const c = input.charCodeAt(p);
    if (c === 0x5b || c === 0x7b) {
      outermost = false;
      continue;
    }
    base = p - (input.lastIndexOf('\n', p - 1) + 1);
    break;
  }
  if (base < 0) return false;
  const end = state.position;
  const last = input.charCodeAt(end - 1);
  const flow = (state.kind === 'mapping' || state.kind === 'sequence') && (last === 0x7d || last === 0x5d);
  for (let nl = input.indexOf('\n', at); nl >= 0 && nl < end - 1; nl = input.indexOf('\n', nl + 1)) {
    let i = nl + 1;
    while (input.charCodeAt(i) === 0x20) i++;
    const c = input.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && input.charCodeAt(i + 1) === 0x0a) || i >= end) continue;
    if (i - nl - 1 > base) continue;
    if (flow && outermost && i === end - 1 && i - nl - 1 === base) continue;
    return true;
  }
  return false;
}

/** A CR not followed by LF (a line break for YAML, not for the line counting here). */
function loneCr(text: string): boolean {
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 0x0a) return true;
  return false;
}

/**
 * A `?` that may be an explicit-key indicator (after a line start, a blank or `{[,`, before a
 * blank or line end); when the text has none, no node needs the check below. (`?` is rare, so
 * this is an indexOf scan rather than a regular expression over the whole text.)
 */
function mayHaveExplicitKey(text: string): boolean {
  for (let i = text.indexOf('?'); i >= 0; i = text.indexOf('?', i + 1)) {
    const before = i === 0 ? 0x0a : text.charCodeAt(i - 1);
    const after = i + 1 === text.length ? 0x0a : text.charCodeAt(i + 1);
    if ((before === 0x0a || before === 0x0d || before === 0x20 || before === 0x09 || before === 0x7b || before === 0x5b || before === 0x2c) && (after === 0x20 || after === 0x09 || after === 0x0a || after === 0x0d)) return true;
  }
  return false;
}
const ANCHOR_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Whether the node starting at `pos` may follow an explicit-key `?`. In block context js-yaml
 * starts the key node right after the `?`; in flow context after white space and comments, and
 * there the `?` starts an entry (after `{`, `[` or `,`, or first on its line). So: back over
 * blanks; a `?` on the same line counts; across line breaks, blank and comment-only lines are
 * skipped and the first other line counts if an entry-starting `?` ends it (or, when it has a
 * comment, appears anywhere in it: declining is always safe).
 */
function explicitKeyBefore(input: string, pos: number): boolean {
  let i = pos - 1;
  while (i >= 0 && (input.charCodeAt(i) === 0x20 || input.charCodeAt(i) === 0x09)) i--;
  if (i < 0) return false;
  let c = input.charCodeAt(i);
  if (c === 0x3f) return true;
  while (c === 0x0a || c === 0x0d) {
    const end = c === 0x0a && input.charCodeAt(i - 1) === 0x0d ? i - 1 : i;
    // (lastIndexOf clamps a negative start to 0, which would find a break at 0 again.)
    const start = end > 0 ? input.lastIndexOf('\n', end - 1) + 1 : 0;
    const line = input.slice(start, end);
    const t = line.trim();
    if (t !== '' && t[0] !== '#') return line.includes('#') ? ENTRY_QUESTION.test(line) : ENTRY_QUESTION_END.test(line);
    if (start === 0) return false;
    i = start - 1;
    c = input.charCodeAt(i);
  }
  return false;
}
const ENTRY_QUESTION = /(?:^|[{[,])[ \t]*\?(?:[ \t]|$)/;
const ENTRY_QUESTION_END = /(?:^|[{[,])[ \t]*\?[ \t]*$/;

/**
 * Parses a YAML file (any number of documents) into objects, or returns undefined when the
 * text may read differently here than in parse.ts (see the file comment).
 */
export function parseYamlFast(file: string, text: string): ParsedObjects | undefined {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\ufeff')) return undefined;
  const whole = text;
  return parseDocuments(file, text, (start, end) => whole.slice(start, end), false, textAfter(text));
}

/**
 * parseYamlFast over a file's bytes (valid UTF-8 without NUL, as sources.ts checked), without
 * making the whole text as one string: see parseYamlLatin1.
 */
export function parseYamlBytes(file: string, bytes: Buffer): ParsedObjects | undefined {
  return parseYamlLatin1(file, bytes.toString('latin1'));
}

/**
 * parseYamlFast over a file's bytes read as Latin-1 (`latin1`: one character a byte, a one-byte
 * string, fast to make, where every ASCII character and line break is where it is in the text).
 * The documents are found in it, and each is decoded alone: as its slice of that string when its
 * bytes are ASCII, else as UTF-8. At 100k objects the whole text is ~1 GB, two bytes a character
 * once one character is outside Latin-1. Declines (undefined) where parseYamlFast would, and on a
 * U+2028 or U+2029 (line terminators for the regular expression that finds the `---` lines); the
 * caller then reads the text.
 */
export function parseYamlLatin1(file: string, latin1: string): ParsedObjects | undefined {
  const scan = latin1.startsWith('\xef\xbb\xbf') ? latin1.slice(3) : latin1;
  return parseLatin1Window(file, scan, textAfter(scan), { line: 1, docIndex: 0, offset: 0 });
}
const NON_ASCII = /[\x80-\xff]+/g;

/** Where a window of a file starts: its line, the index of its first document, its offset in the whole text. */
interface WindowStart {
  line: number;
  docIndex: number;
  offset: number;
}

/** A window of a file read in chunks: nothing of its text is kept (see DocumentReader and ownedStrings). */
interface FromFile {
  reader: DocumentReader;
  /** Offset in the file of the window's first byte. */
  base: number;
  own: (s: string) => string;
}

/**
 * The documents of `scan` (bytes read as Latin-1: a whole file, or a window of one that starts at
 * a `---` line), from `at` (updated to where the next window starts).
 */
function parseLatin1Window(file: string, scan: string, after: After, at: WindowStart, fromFile?: FromFile): ParsedObjects | undefined {
  // Runs of bytes outside ASCII (rare): the documents that hold one are decoded as UTF-8.
  const runs: number[] = [];
  for (let m = NON_ASCII.exec(scan); m; m = NON_ASCII.exec(scan)) runs.push(m.index);
  NON_ASCII.lastIndex = 0;
  if (runs.length === 0) return parseDocuments(file, scan, (start, end) => scan.slice(start, end), false, after, at, fromFile);
  // A byte-order mark inside, U+2028, U+2029 (their UTF-8 bytes read as Latin-1).
  if (scan.includes('\xef\xbb\xbf') || scan.includes('\xe2\x80\xa8') || scan.includes('\xe2\x80\xa9')) return undefined;
  let r = 0;
  return parseDocuments(
    file,
    scan,
    (start, end) => {
      // Documents come in order: skip the runs before this one.
      while (r < runs.length && runs[r] < start) r++;
      return r < runs.length && runs[r] < end ? Buffer.from(scan.slice(start, end), 'latin1').toString('utf8') : scan.slice(start, end);
    },
    true,
    after,
    at,
    fromFile,
  );
}

/**
 * parseYamlLatin1 over a file read in chunks of CHUNK_BYTES, cut at `---` lines into windows
 * that are read one after the other (as Latin-1, each its own string): the file is never held
 * whole, and no string is as large as it. Each window gets the checks the whole text would
 * (they are all about lines: a window holds whole lines, and every window after the first starts
 * with a `---` line). The same result as parseYamlLatin1, or undefined. Nothing of the windows'
 * text is kept once they are read: the string values are copies (ownedStrings), and a document's
 * text is read again from the file when a position in it is asked for (DocumentReader; if the
 * file changed meanwhile, an object's own position is given instead). At 100k objects the
 * windows are the file's size again (~0.3 GB). sources.ts has checked the file is UTF-8 without
 * NUL bytes; `stamp` is how it was then. chunkBytes and readAhead are for tests.
 */
export function parseYamlFile(file: string, stamp: FileStamp, chunkBytes = CHUNK_BYTES, onObjects?: (objects: number, fraction: number) => void, readAhead = READ_AHEAD): ParsedObjects | undefined {
  // A `kind: List` (`kubectl get -o yaml`) is one document: read item by item where it can be.
  const list = parseYamlListFile(file, stamp, chunkBytes, onObjects, readAhead);
  if (list) return list;
  return withStampedFile(stamp, (fd) => {
    const out: ParsedObjects = { file, objects: [], errors: [], documents: 0 };
    const at: WindowStart = { line: 1, docIndex: 0, offset: 0 };
    const reader = new DocumentReader(readAgainFrom(stamp), stamp.size, readAhead);
    const own = ownedStrings();
    /** The file's last closing quotes (fileClosers), once a declined document needs them. */
    let closers: { dq: number; sq: number } | undefined;
    /** Offset in the file of the first byte held (of `chunks`). */
    let base = 0;
    // The bytes read and not yet parsed, as chunks (joined only to parse them: a long document
    // is not copied again at every chunk), and the offset in them of the last cut found.
    let chunks: Buffer[] = [];
    let held = 0;
    let cut = -1;
    let pos = 0;
    let first = true;
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const n = fs.readSync(fd, chunk, 0, chunkBytes, pos);
      pos += n;
      const eof = n === 0;
      if (!eof) {
        // A `---` line whose marker is followed by a blank, in this chunk (with the 4 bytes before
        // it): the window can end before it. (A marker at the chunk's very end waits for its blank.)
        const prev = chunks.length ? chunks[chunks.length - 1] : undefined;
        const tail = prev ? prev.subarray(Math.max(0, prev.length - 4)) : Buffer.alloc(0);
        const look = Buffer.concat([tail, chunk.subarray(0, n)]);
        for (let i = look.lastIndexOf(MARKER_LINE); i >= 0; i = i > 0 ? look.lastIndexOf(MARKER_LINE, i - 1) : -1) {
          const c = look[i + 4];
          if (i + 4 < look.length && (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a)) {
            if (held - tail.length + i + 1 > 0) cut = held - tail.length + i + 1;
            break;
          }
        }
        chunks.push(chunk.subarray(0, n));
        held += n;
        if (cut < 0) continue;
      }
      let win: Buffer | undefined = Buffer.concat(chunks);
      // The window is read from its string alone: neither the chunks nor the joined bytes are
      // held while it is parsed (a one-document file, such as a `kubectl get -o yaml` List, is
      // all one window: three copies of it otherwise).
      chunks = [];
      const end = eof ? win.length : cut;
      const from = first && win[0] === 0xef && win[1] === 0xbb && win[2] === 0xbf ? 3 : 0;
      first = false;
      const scan = win.toString('latin1', from, end);
      const rest = Buffer.from(win.subarray(end));
      win = undefined;
      const winBase = base + from;
      const part = parseLatin1Window(
        file,
        scan,
        (end) => {
          // (A declined document that is not the file's last: what follows it in the file.)
          const at = winBase + end;
          if (at >= stamp.size) return undefined;
          closers ??= fileClosers(fd, stamp.size, readAhead);
          return { dq: closers.dq >= at, sq: closers.sq >= at };
        },
        at,
        { reader, base: winBase, own },
      );
      if (!part) return undefined;
      for (const o of part.objects) out.objects.push(o);
      for (const e of part.errors) out.errors.push(e);
      out.documents += part.documents;
      onObjects?.(out.objects.length, Math.min(1, pos / stamp.size));
      at.line += lineFeeds(scan);
      if (eof) break;
      base += end;
      chunks = rest.length ? [rest] : [];
      held = rest.length;
      cut = -1;
    }
    return out;
  });
}

/**
 * A document quick-yaml declines, read as parseDocuments reads it (loadDocument: js-yaml, or a
 * decline where its reading could differ from parse.ts's); undefined when declined.
 */
function loadAlone(text: string, own?: (s: string) => string): { value: Json; simple: boolean } | undefined {
  const marker = text.startsWith('---');
  const first = contentStart(text, 0, text.length, marker);
  if (first === undefined) return undefined;
  try {
    const read = loadDocument(text, mayHaveExplicitKey(text), own);
    return startsApart(text, first, marker, read.value) ? undefined : { value: read.value, simple: read.simple };
  } catch {
    // A js-yaml error, a Decline, a stack overflow.
    return undefined;
  } finally {
    nonStrings = new Set();
  }
}

/**
 * A List item quick-yaml declines, read from the lines before `items:`, the `items:` line and the
 * item's lines: the List without its other items, which hold no anchor (quick-yaml reads none)
 * and so cannot change the item's value. Undefined when declined.
 */
function itemAlone(text: string, own: (s: string) => string): { value: Json; simple: boolean } | undefined {
  const read = loadAlone(text, own);
  const v = read?.value;
  const items = v !== null && typeof v === 'object' && !Array.isArray(v) ? v.items : undefined;
  return Array.isArray(items) && items.length === 1 ? { value: items[0], simple: read!.simple } : undefined;
}

/** The lines before `items:` of a List read item by item must lie in this many bytes. */
const LIST_PREFIX_BYTES = 64 * 1024;
const SP = 0x20;
const LF = 0x0a;
const DASH = 0x2d;

/**
 * A one-document `kind: List` (as `kubectl get -o yaml` writes it: `apiVersion`, then `items:`
 * and its block sequence, then `kind` and `metadata`), read item by item from the file's bytes as
 * fast-json.ts reads a JSON List: the document's text is never one string (a List of large
 * objects held its text twice over, as Latin-1 and decoded: 358 MB of corpus objects peaked at
 * 2.2 GB). Each item is the lines from its `- ` line at the sequence's column to the next; every
 * line between is blank or more indented, so quick-yaml reads the item from its own lines (its
 * dash made a space, its columns kept) exactly as it reads it inside the document, with the depth
 * it has there. The rest of the document (the lines before `items:`, in the first 64 KiB, and
 * after the sequence) is read with `items: []` in its place, which also finds a second `items` key. Anything else (a comment or a line less indented inside the sequence, a
 * byte-order mark or a line separator inside, a second document) returns undefined, and the file
 * is read document by document as before. Items quick-yaml declines (with a line that would end
 * the sequence before a later item, which is taken as part of the item before it) are looked at
 * once the sequence is read: the syntax error among them that makes the whole List unreadable is
 * returned, with no object (list-error.ts); without one, undefined. Positions are read from each
 * item's own lines (listItemSpans' spans).
 */
export function parseYamlListFile(file: string, stamp: FileStamp, chunkBytes = CHUNK_BYTES, onObjects?: (objects: number, fraction: number) => void, readAhead = READ_AHEAD): ParsedObjects | undefined {
  return withStampedFile(stamp, (fd) => readYamlList(file, stamp, fd, chunkBytes, onObjects, readAhead));
}

function readYamlList(file: string, stamp: FileStamp, fd: number, chunkBytes: number, onObjects: ((objects: number, fraction: number) => void) | undefined, readAhead: number): ParsedObjects | undefined {
  const w = new ChunkWindow(fd, chunkBytes);
  try {
    // The prefix: the lines before `items:` (other keys, comments, a first `---`).
    let open = -1; // offset of the line after `items:`
    let prefixEnd = -1; // offset of the `items:` line
    for (let at = 0; ; ) {
      const win = w.view;
      const nl = win.indexOf(LF, at);
      if (nl < 0) {
        if (win.length > LIST_PREFIX_BYTES || !w.more()) return undefined;
        continue;
      }
      if (at === 0 && win[0] === 0xef) return undefined; // a byte-order mark: the usual path
      // (An `items:` line at column 0 is the List's key: a line of a nested node or a block or
      // multi-line scalar is more indented in what quick-yaml reads, which the rest's reading checks.)
      if (win[at] === 0x69 && win.toString('latin1', at, nl).replace(/ +$/, '') === 'items:') {
        prefixEnd = at;
        open = nl + 1;
        break;
      }
      at = nl + 1;
      if (at > LIST_PREFIX_BYTES) return undefined;
    }
    const prefix = textOf(w.view, 0, prefixEnd);
    const itemsLine = textOf(w.view, prefixEnd, open);
    // A document before the List's: the usual path (which reads documents one by one).
    if (/\n(?:---|\.\.\.)(?:[ \t\n]|$)/.test(prefix)) return undefined;
    let line = 1 + lineFeeds(w.view.toString('latin1', 0, open));
    // The sequence's column: that of the first item's dash, after blank lines (w.base is 0 here).
    let first = open;
    let column = -1;
    for (;;) {
      while (w.view.indexOf(LF, first) < 0) if (!w.more()) return undefined;
      const win = w.view;
      let k = first;
      while (win[k] === SP) k++;
      if (win[k] === LF) {
        first = k + 1;
        line++;
        continue;
      }
      if (win[k] !== DASH || (win[k + 1] !== SP && win[k + 1] !== LF)) return undefined;
      column = k - first;
      break;
    }
    /** Items read (the objects among them are kept as views). */
    let count = 0;
    const objects: YamlObjectView[] = [];
    /** Items that read like objects written wrong (see not-an-object.ts). */
    const errors: InputError[] = [];
    /**
     * Items read before the List's kind, which follows them in kubectl's layout, that are no
     * object as written: an item of a typed list takes its apiVersion and kind from the List
     * (listItem). Decided after the items, each in its place among the objects (a hole until then).
     */
    const pending: { at: number; k: number; value: unknown; view: (v: JsonObject) => YamlObjectView }[] = [];
    const reader = new DocumentReader(readAgainFrom(stamp), stamp.size, readAhead);
    const own = ownedStrings();
    const limits = { ...QUICK_LIMITS, maxDepth: QUICK_LIMITS.maxDepth - 2, own };
    // The document's root: its first key (at column 0), after a `---` line, comments and blank lines.
    const root = contentStart(prefix, 0, prefix.length, prefix.startsWith('---'));
    if (root === undefined) return undefined;
    const docPos = { line: 1 + lineFeeds(prefix.slice(0, root)), column: 1 };
    // (Where an item's own lines cannot tell a position, the document read again decides.)
    const docSpan = new Span(reader, 0, stamp.size, 1, root, false, 0);
    // File offsets throughout: the window holds the bytes from w.base (bytes before `keep` are
    // dropped when it reads on).
    /** File offset of the first line feed at or after f, reading on as needed; -1 if none. */
    const lfFrom = (f: number): number => {
      for (;;) {
        const i = w.view.indexOf(LF, f - w.base);
        if (i >= 0) return w.base + i;
        if (!w.more()) return -1;
      }
    };
    /** The byte at file offset f, reading on as needed; -1 past the end. */
    const byteAt = (f: number): number => {
      while (f - w.base >= w.view.length) if (!w.more()) return -1;
      return w.view[f - w.base];
    };
    /** File offset of the first item line (a `- ` at the sequence's column) from the line at f on; -1 if none. */
    const itemAfter = (f: number): number => {
      for (;;) {
        let k = f;
        while (k - f < column && byteAt(k) === SP) k++;
        if (k - f === column && byteAt(k) === DASH && (byteAt(k + 1) === SP || byteAt(k + 1) === LF)) return f;
        const nl = lfFrom(f);
        if (nl < 0) return -1;
        f = nl + 1;
      }
    };
    let s = first; // file offset of the item's first line
    let rest = -1; // file offset of the first line after the sequence
    // Items quick-yaml declines, each with the clean item after it: the List's syntax error is
    // looked for in them (list-error.ts) once the sequence is read.
    const broken = new BrokenItems();
    /** Whether the last item's last line has no line feed. */
    let cutShort = false;
    while (rest < 0) {
      w.keep = s;
      // The item's lines: to the next line whose content starts at the sequence's column or left of it.
      let e: number;
      let lines = 0;
      /** Whether the item took in lines that would end the sequence (a broken item's). */
      let tookIn = false;
      for (let f = s; ; ) {
        const nl = lfFrom(f);
        lines++;
        if (nl < 0) {
          // A last line without a line feed (a file cut short, say): the item runs to the end.
          e = rest = w.base + w.view.length;
          cutShort = true;
          break;
        }
        const next = nl + 1;
        let k = next;
        while (k - next <= column && byteAt(k) === SP) k++;
        if (k - next > column) {
          f = next;
          continue;
        }
        let b = k;
        while (byteAt(b) === SP) b++;
        const c = byteAt(b);
        if (c === LF) {
          // A blank line: the item's.
          f = next;
          continue;
        }
        if (c === -1) {
          // The end of the file (after blanks without a line feed: the usual path).
          if (b > next) return undefined;
          e = rest = next;
          break;
        }
        if (k - next === column && c === DASH && (b === k) && (byteAt(k + 1) === SP || byteAt(k + 1) === LF)) {
          e = next;
          break;
        }
        // A comment at the sequence's column or left of it is left to the usual path, and so is
        // a line at an indented sequence's column that is no item; anything else ends the
        // sequence (at column 0, kubectl's layout, the List's next key).
        if (c === 0x23 || (column > 0 && k - next === column)) return undefined;
        // A line that would end the sequence, with an item after it: a broken item's (it then
        // takes every line to that item, and quick-yaml declines it).
        const later = itemAfter(next);
        if (later < 0) {
          e = rest = next;
          break;
        }
        for (let i = next; i < later; i++) if (byteAt(i) === LF) lines++;
        e = later;
        tookIn = true;
        break;
      }
      const bytes = w.view.subarray(s - w.base, e - w.base);
      if (!isAscii(bytes) && (bytes.includes(BOM) || bytes.includes(LS_BYTES) || bytes.includes(PS_BYTES))) return undefined;
      const t = textOf(w.view, s - w.base, e - w.base);
      // The item's node: after the dash and blanks, or on a later line.
      let node = column + 1;
      while (node < t.length && (t.charCodeAt(node) === SP || t.charCodeAt(node) === LF)) node++;
      if (t.charCodeAt(node) === 0x23) return undefined;
      const quick = readQuick(`${t.slice(0, column)} ${t.slice(column + 1)}`, limits);
      // An item quick-yaml declines (a tab in a block scalar, an anchor) is read as the in-memory
      // reader reads the List, by js-yaml, with the lines before `items:` (whose anchors it may use)
      // but without the other items; its positions then come from its own lines read by yaml.
      const alone = quick === undefined && !tookIn ? itemAlone(prefix + itemsLine + t, own) : undefined;
      const value = quick ?? alone?.value;
      const k = count++;
      if (!(value === undefined ? broken.declinedItem(t, line) : broken.cleanItem(t, line))) return undefined;
      const span = new Span(reader, s, e, line, node, alone ? alone.simple : true, s);
      const view = (v: JsonObject) => new YamlObjectView(v, file, 0, `/items/${k}`, docSpan, docPos, span, alone !== undefined);
      if (isList(value)) return undefined;
      if (value !== undefined && isKubernetesObject(value)) objects.push(view(value));
      else if (value !== undefined) {
        pending.push({ at: objects.length, k, value, view });
        objects.length++;
      }
      if (onObjects && (count & 1023) === 0) onObjects(objects.length, e / stamp.size);
      line += lines;
      s = e;
    }
    // The rest of the document, read with the lines before `items:`.
    w.keep = rest;
    while (w.more());
    const tail = textOf(w.view, rest - w.base, w.view.length);
    // (With an anchor, say, as the in-memory reader reads it.)
    const around = `${prefix}items: []\n${tail}`;
    const list = readQuick(around, QUICK_LIMITS) ?? loadAlone(around)?.value;
    if (broken.declined) {
      // The syntax error that makes the whole List unreadable (whatever its kind: a file cut short
      // has none after its items), else the usual path (the declined items are well-formed YAML
      // quick-yaml does not read).
      if (!list) return undefined;
      const parts = [{ text: prefix + itemsLine, line: 1 }, ...broken.parts];
      if (tail) parts.push({ text: tail, line });
      const error = listPartsError(file, parts, 0);
      return error ? { file, objects: [], errors: [error], documents: 1 } : undefined;
    }
    // (An item's last line without a line feed: the usual path.)
    if (cutShort) return undefined;
    // A List cut short at a line (kubectl writes kind after the items): the same error as the whole reading's.
    const half = list && !isKubernetesObject(list) ? notAnObject(list, { items: count }) : undefined;
    if (half) return { file, objects: [], errors: [{ file, ...docPos, message: half }], documents: 1 };
    if (!list || !isKubernetesObject(list) || !Array.isArray(list.items) || list.items.length !== 0) return undefined;
    const kind = list.kind as string;
    if (kind !== 'List' && !kind.endsWith('List')) return undefined;
    if (pending.length) {
      // The items that were no object as written, in their places (the others' errors in item order).
      for (const p of pending) {
        const item = listItem(list, p.value);
        if (isList(item)) return undefined;
        if (isKubernetesObject(item)) objects[p.at] = p.view(item);
        else itemError(errors, item, p.k, () => p.view(item as unknown as JsonObject));
      }
      const placed = objects.filter((o) => o !== undefined);
      objects.length = 0;
      for (const o of placed) objects.push(o);
    }
    onObjects?.(objects.length, 1);
    return { file, objects, errors, documents: 1 };
  } catch {
    // A CR (ChunkWindow), a read error: the usual path decides.
    return undefined;
  }
}
const LS_BYTES = Buffer.from([0xe2, 0x80, 0xa8]);
const PS_BYTES = Buffer.from([0xe2, 0x80, 0xa9]);

const MARKER_LINE = Buffer.from('\n---', 'latin1');

/**
 * What follows a part of the stream that ends at a `---` line (`end`, an offset in the text the
 * documents are found in): undefined at the end of the stream, else whether a quote that yaml's
 * lexer would take as closing a quoted scalar comes later (see readAlone).
 */
type After = (end: number) => Closers | undefined;
interface Closers {
  /** A `"` after an even run of backslashes. */
  dq: boolean;
  /** A `'` that ends a run of an odd number of them (yaml skips `''` pairs). */
  sq: boolean;
}

/** A text (or a file's bytes) read backwards: what lastClosers needs. */
interface Backwards {
  size: number;
  /** As String's or Buffer's lastIndexOf (-1 when `from` < 0). */
  lastIndexOf(code: number, from: number): number;
  at(i: number): number;
}

/** Offsets of the last `"` and the last `'` that could close a quoted scalar (see Closers), or -1. */
function lastClosers(b: Backwards): { dq: number; sq: number } {
  let dq = -1;
  for (let i = b.lastIndexOf(0x22, b.size - 1); i >= 0; i = b.lastIndexOf(0x22, i - 1)) {
    let n = 0;
    while (i - 1 - n >= 0 && b.at(i - 1 - n) === 0x5c) n++;
    if (n % 2 === 0) {
      dq = i;
      break;
    }
  }
  let sq = -1;
  for (let i = b.lastIndexOf(0x27, b.size - 1); i >= 0; ) {
    let j = i;
    while (j > 0 && b.at(j - 1) === 0x27) j--;
    if ((i - j) % 2 === 0) {
      sq = i;
      break;
    }
    i = b.lastIndexOf(0x27, j - 1);
  }
  return { dq, sq };
}

/** After for a whole text (computed on first use: only a declined document needs it). */
function textAfter(text: string): After {
  let last: { dq: number; sq: number } | undefined;
  return (end) => {
    if (end >= text.length) return undefined;
    last ??= lastClosers({
      size: text.length,
      lastIndexOf: (code, from) => (from < 0 ? -1 : text.lastIndexOf(String.fromCharCode(code), from)),
      at: (i) => text.charCodeAt(i),
    });
    return { dq: last.dq >= end, sq: last.sq >= end };
  };
}

/**
 * lastClosers of a file's bytes, read backwards from its end, first `block` bytes (the quotes are
 * usually near it), then blocks twice as long each time up to the read chunk: a file whose last
 * quote is far from its end takes a few reads, not one per block.
 */
function fileClosers(fd: number, size: number, block: number): { dq: number; sq: number } {
  let held: { start: number; bytes: Buffer } | undefined;
  let next = Math.max(1, block);
  const holding = (i: number) => {
    if (!held || i < held.start || i >= held.start + held.bytes.length) {
      const start = Math.max(0, i + 1 - next);
      next = Math.min(2 * next, Math.max(block, CHUNK_BYTES));
      const bytes = Buffer.allocUnsafe(i + 1 - start);
      // (A file that shrank since: withStampedFile's reader gives up, and the caller reads it whole.)
      if (fs.readSync(fd, bytes, 0, bytes.length, start) !== bytes.length) throw new Error('the file changed while it was read');
      held = { start, bytes };
    }
    return held;
  };
  return lastClosers({
    size,
    lastIndexOf: (code, from) => {
      for (let i = from; i >= 0; ) {
        const b = holding(i);
        const k = b.bytes.lastIndexOf(code, i - b.start);
        if (k >= 0) return b.start + k;
        i = b.start - 1;
      }
      return -1;
    },
    at: (i) => {
      const b = holding(i);
      return b.bytes[i - b.start];
    },
  });
}

/** parse.ts's LineCounter of `text`, with every line moved down by `shift` lines. */
function shiftedLineCounter(text: string, shift: number): LineCounter {
  const lc = textLineCounter(text);
  const own = lc.linePos;
  lc.linePos = (offset) => {
    const p = own(offset);
    return { line: p.line + shift, col: p.col };
  };
  return lc;
}

/**
 * A document the fast path declines, read by parse.ts alone: `own` is the part of the stream from
 * its `---` line (or the stream's start) to the next `---` line (or the stream's end), the first
 * of whose lines is line `line` of the file, and its documents are numbered from `docIndex`. The
 * same documents, values, errors and positions as parse.ts's reading of the whole stream (the
 * differential tests check it), because nothing crosses a `---` line at the start of a line for
 * yaml (parse.ts's readDocuments included):
 * - yaml's lexer ends every scalar, flow collection and document there (and every `---` starts a
 *   new document, from where the previous one left off: a document's end or `...`), and its
 *   composer carries nothing but `%` directives (which the fast path leaves to parse.ts whole)
 *   from one document to the next;
 * - except for what it looks ahead at to close a quoted scalar: the first closing quote anywhere
 *   after it; when there is none, the scalar runs to the end of the stream (and readDocuments then
 *   cuts its document at the next marker). So a `---` line follows `own` here when one follows it
 *   in the stream, and a closing quote of each kind after it when there is one in the stream
 *   after it (`after`); the documents that line starts are dropped.
 * Returns the objects and errors, and how many documents (empty ones included) the part holds;
 * undefined if yaml or the decoding threw (the caller then reads the whole stream, which fails
 * as parse.ts's reading does).
 */
function readAlone(file: string, own: string, line: number, docIndex: number, after: Closers | undefined): { parsed: ParsedObjects; count: number } | undefined {
  const text = after ? `${own}---\n${after.dq ? '"\n' : ''}${after.sq ? "'\n" : ''}` : own;
  const lc = shiftedLineCounter(text, line - 1);
  try {
    let docs = readDocuments(text, lc);
    if (after) docs = docs.filter((d) => d.range[0] < own.length);
    const p = parsedFromDocuments(file, docs, lc, undefined, undefined, docIndex);
    return { parsed: { file, objects: p.objects, errors: p.errors, documents: p.documents }, count: docs.length };
  } catch {
    return undefined;
  }
}

/**
 * The documents of `scan` (the text, or its bytes read as Latin-1), each read from its own text
 * `docText(start, end)`. With `decoded`, offsets in `scan` are bytes: everything inside a
 * document is computed on its own text, and the whole-text offsets (--fix's) are summed from the
 * documents' lengths. The documents are cut at `---` lines; one the fast path declines is read
 * by parse.ts alone (readAlone), the others keep the fast path. Undefined when the text has a
 * `%` line (see the file comment) or yaml threw on a declined document.
 */
function parseDocuments(file: string, scan: string, docText: (start: number, end: number) => string, decoded: boolean, after: After, at: WindowStart = { line: 1, docIndex: 0, offset: 0 }, fromFile?: FromFile): ParsedObjects | undefined {
  const text = scan;
  if (text.charCodeAt(0) === 0x25 || text.includes('\n%')) return undefined;
  const crs = text.includes('\r');
  const explicitKeys = mayHaveExplicitKey(text);
  // Document starts: offset 0 (no marker) and every `---` line.
  // A `...` ends a document; a `...` before any `---` makes a document of the text before it
  // even without content (as `yaml` counts); two in one document, or content after one
  // (js-yaml then reads two documents and `load` throws), are read by parse.ts.
  const starts: number[] = [0];
  /** Indexes in `starts` of documents with two `...` lines. */
  const twoEnds = new Set<number>();
  let ends = 0;
  let firstEnded = false;
  DOC_MARKER.lastIndex = 0;
  for (let m = DOC_MARKER.exec(text); m; m = DOC_MARKER.exec(text)) {
    // A marker for YAML starts after a line feed and is followed by a blank or the end (`^` and
    // `$` also match around a CR, U+2028 and U+2029, which are no line breaks for yaml).
    if (m.index > 0 && text.charCodeAt(m.index - 1) !== 0x0a) continue;
    if (m.index + 3 < text.length && !BLANK_AFTER.test(text[m.index + 3])) continue;
    if (m[0] === '...') {
      if (++ends > 1) twoEnds.add(starts.length - 1);
      if (starts.length === 1) firstEnded = true;
    } else {
      if (m.index > 0) starts.push(m.index);
      ends = 0;
    }
  }
  const out: ParsedObjects = { file, objects: [], errors: [], documents: 0 };
  let line = at.line;
  let lineAt = 0;
  let docIndex = at.docIndex;
  /** Offset of the document in the whole text (differs from `start` when offsets are bytes). */
  let offset = at.offset;
  let declined = 0;
  for (let d = 0; d < starts.length; d++) {
    const start = starts[d];
    const end = d + 1 < starts.length ? starts[d + 1] : text.length;
    for (let i = text.indexOf('\n', lineAt); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) line++;
    lineAt = start;
    const marker = text.startsWith('---', start) && (start + 3 === text.length || /[ \t\r\n]/.test(text[start + 3]));
    if (start === end) continue; // the text starts with a marker
    const own = docText(start, end);
    const docOffset = offset;
    offset += own.length;
    // (Two `...`, a lone CR, tabs before the content: parse.ts.)
    const first = twoEnds.has(d) || (crs && loneCr(own)) ? undefined : contentStart(own, 0, own.length, marker);
    let read: { value: Json; content: boolean; simple: boolean } | undefined;
    if (first !== undefined) {
      try {
        read = loadDocument(own, explicitKeys, fromFile?.own);
      } catch {
        // A js-yaml error, a Decline, a value with no JSON form, a stack overflow: parse.ts decides.
        read = undefined;
      } finally {
        nonStrings = new Set();
      }
    }
    if (read === undefined || first === undefined || startsApart(own, first, marker, read.value)) {
      // Most documents declined (a chart whose every template uses a merge key, say): trying
      // js-yaml first costs more than it saves; parse.ts reads the whole text (the same result)
      // in one pass. (Not for a file read in chunks: it is not held whole.)
      if (!fromFile && ++declined >= MOSTLY_DECLINED && declined * 4 > (d + 1) * 3) return undefined;
      // A large List with a syntax error in an item: the error, found from the items around it.
      const error = own.length >= LIST_SPLIT_MIN ? listDocumentError(file, own, line, docIndex) : undefined;
      if (error) {
        docIndex++;
        out.documents++;
        out.errors.push(error);
        continue;
      }
      // (A file read in chunks keeps nothing of its windows: the document's own copy of its text.)
      const alone = readAlone(file, fromFile ? flatCopy(own) : own, line, docIndex, after(end));
      if (!alone) return undefined;
      docIndex += alone.count;
      out.documents += alone.parsed.documents;
      for (const o of alone.parsed.objects) out.objects.push(o);
      for (const e of alone.parsed.errors) out.errors.push(e);
      continue;
    }
    const { value, content, simple } = read;
    if (!marker && !content && !firstEnded) continue; // comments before the first marker
    const index = docIndex++;
    out.documents++;
    // (Not an object: skipped, unless it reads like one written wrong.)
    const half = isKubernetesObject(value) ? undefined : notAnObject(value);
    if (!half && !isKubernetesObject(value)) continue;
    let l = line;
    let ls = 0;
    for (let i = own.indexOf('\n'); i >= 0 && i < first; i = own.indexOf('\n', i + 1)) (l++, (ls = i + 1));
    const docPos = { line: l, column: first - ls + 1 };
    if (!isKubernetesObject(value)) {
      out.errors.push({ file, ...docPos, message: half! });
      continue;
    }
    const span = fromFile
      ? new Span(fromFile.reader, fromFile.base + start, fromFile.base + end, line, first, simple, docOffset)
      : decoded
        ? new Span(own, 0, own.length, line, first, simple, docOffset)
        : new Span(text, start, end, line, start + first, simple, docOffset);
    if (isList(value)) {
      const items = fromFile && simple ? listItemSpans(text, start, end, marker, line, fromFile, docOffset, value.items.length) : undefined;
      for (let i = 0; i < value.items.length; i++) {
        const item = listItem(value, value.items[i]);
        // (A List inside the List, rare: parse.ts reads its items.)
        if (isList(item)) return undefined;
        if (isKubernetesObject(item)) out.objects.push(new YamlObjectView(item, file, index, `/items/${i}`, span, docPos, items?.[i]));
        else itemError(out.errors, item, i, () => new YamlObjectView(item as unknown as JsonObject, file, index, `/items/${i}`, span, docPos, items?.[i]));
      }
      continue;
    }
    out.objects.push(new YamlObjectView(value, file, index, '', span, docPos));
  }
  at.docIndex = docIndex;
  at.offset = offset;
  return out;
}
/**
 * One span per item of a simple List document of a file read in chunks (`scan`: its bytes as
 * Latin-1, so offsets are the file's), each the item's lines (from the line of its node to the
 * next item's), rooted at its node: an item's positions then read only its own bytes again.
 * Undefined when the items are not a block sequence of `count` elements whose lines start with
 * blanks and the dash alone.
 */
function listItemSpans(scan: string, start: number, end: number, marker: boolean, line: number, fromFile: FromFile, docOffset: number, count: number): Span[] | undefined {
  const root = contentStart(scan, start, end, marker);
  if (root === undefined) return undefined;
  const nodes = new TextLocator(scan, start, end).listElements(root, 'items');
  if (!nodes || nodes.length !== count) return undefined;
  const starts = nodes.map((n) => Math.max(start, scan.lastIndexOf('\n', n - 1) + 1));
  const spans: Span[] = [];
  let l = line;
  let at = start;
  for (let i = 0; i < nodes.length; i++) {
    const s = starts[i];
    // (Between the line start and the node: blanks and the dash, ASCII, so the item's own text decodes to the same offsets.)
    for (let k = s; k < nodes[i]; k++) if (scan.charCodeAt(k) !== 0x20 && scan.charCodeAt(k) !== 0x2d) return undefined;
    for (let k = scan.indexOf('\n', at); k >= 0 && k < s; k = scan.indexOf('\n', k + 1)) l++;
    at = s;
    spans.push(new Span(fromFile.reader, fromFile.base + s, fromFile.base + (i + 1 < nodes.length ? starts[i + 1] : end), l, nodes[i] - s, true, docOffset));
  }
  return spans;
}

/** Declined documents from this size on are tried as a List with a syntax error in an item (listDocumentError). */
const LIST_SPLIT_MIN = 256 * 1024;

/**
 * The syntax error of a List document the fast path declined (its text `own`, starting on line
 * `line` of the file), found by reading only the items quick-yaml declines, with the lines around
 * them (list-error.ts); undefined when it has none or cannot be found so (parse.ts then reads the
 * document whole).
 */
export function listDocumentError(file: string, own: string, line: number, docIndex: number): InputError | undefined {
  const layout = splitList(own);
  if (!layout) return undefined;
  const limits = { ...QUICK_LIMITS, maxDepth: QUICK_LIMITS.maxDepth - 2 };
  const tail = own.slice(layout.rest);
  // (Whatever its kind: a List cut short has none after its items.)
  if (!readQuick(`${own.slice(0, layout.itemsLine)}items: []\n${tail}`, QUICK_LIMITS)) return undefined;
  let l = line + lineFeeds(own.slice(0, layout.items[0].start));
  const broken = new BrokenItems();
  for (const it of layout.items) {
    const t = own.slice(it.start, it.end);
    const c = layout.column;
    const declined = readQuick(`${t.slice(0, c)} ${t.slice(c + 1)}`, limits) === undefined;
    if (!(declined ? broken.declinedItem(t, l) : broken.cleanItem(t, l))) return undefined;
    l += it.lines;
  }
  if (!broken.declined) return undefined;
  const parts = [{ text: own.slice(0, layout.head), line }, ...broken.parts];
  if (tail) parts.push({ text: tail, line: l });
  return listPartsError(file, parts, docIndex);
}

const BLANK_AFTER = /[ \t\r\n]/;
/** Declined documents from which, when they are over three quarters of those read, a text is read whole. */
const MOSTLY_DECLINED = 32;

/**
 * Whether a document's start reads differently in js-yaml than in yaml (its content starts at
 * `first`): a block collection that starts on the `---` line (js-yaml reads it, yaml reports
 * it), or, in the part before the first marker, content that starts with `---` (js-yaml takes
 * that for a marker whatever follows it; yaml only before a blank, and then it is a marker here too).
 */
function startsApart(own: string, first: number, marker: boolean, value: Json): boolean {
  if (!marker) return own.startsWith('---', first);
  if (value === null || typeof value !== 'object') return false;
  const nl = own.indexOf('\n');
  if (nl >= 0 && nl < first) return false;
  const c = own.charCodeAt(first);
  return first < own.length && c !== 0x5b && c !== 0x7b;
}

/** A copy of a string that shares no storage with it (see ownedStrings). */
function flatCopy(s: string): string {
  return (' ' + s).slice(1);
}
