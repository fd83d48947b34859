import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { Document, isMap, isNode, isPair, isSeq, LineCounter, parseAllDocuments, ToStringOptions } from 'yaml';
import { ResolvedPolicy } from '../engine/policy';
import { ruleGraphs, runRules, sortFindings } from '../engine/run';
import { Finding, Fix, FixEdit, Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { applySourceNamespace, parseSource } from '../engine/run';
import { ParsedObjects } from '../model/fast-json';
import { parseYamlFast } from '../model/fast-yaml';
import { PARSE_OPTIONS, ParsedFile, parsedFromDocuments, parseText, pointerSegments, withoutStacks } from '../model/parse';
import { K8sValue, k8sValue } from '../model/yaml11';
import { latin1Made, Source } from '../model/sources';
import { JsonObject, KObject, ObjectRef } from '../model/types';
import { cloneDocument } from './clone';
import { applyEdits, FixError } from './edit';
import { changedLineCount, commentTokens, detectStyle, dominantEol, lineMapping, lostComments, mergeEdit, mergeEditMixed } from './format';
import { assemblePieces, FileText, markerSlices, MovedObject, Piece, PiecewiseFile, piecewiseText, shiftDocument, SliceLines, sliceStarts } from './pieces';
import { Chunked, lineChunks, linesText } from './chunks';
import { applyJsonEdits, TextTree } from './splice';
import { DocEdit, surgicalEdit, treeEdit } from './surgical';
import { changedPathsShifted, isUnder, sameValue } from './values';

export { FixError } from './edit';
export { positionMapping } from './format';
export { lineChunksBoth } from './chunks';
export { changedPaths, changedPathsShifted, isUnder } from './values';

export interface FixOptions {
  rules: Rule[];
  policy: ResolvedPolicy;
  version: KubeVersion;
  /** Also apply `proposal` fixes (new objects, strategy changes, ...), not just the safe set. */
  proposals?: boolean;
  /** Lint-and-fix rounds before giving up on reaching a fixed point (default 5). */
  maxPasses?: number;
  /**
   * Also parse each file read back piecewise as a whole and throw when the two readings differ
   * (a self-check for tests; costs a whole parse per fixed file and pass).
   */
  verifyPiecewise?: boolean;
  /**
   * Edit documents the YAML fast path read by text splices, without yaml Documents (default
   * true; false takes the Document route everywhere, for tests comparing the two).
   */
  textSplice?: boolean;
  /**
   * Run every rule in every lint (for tests comparing). By default a lint followed by a pass runs
   * only the rules that can fix (meta.fixable) and the policy's custom rules; the last lint, which
   * is the report, runs them all.
   */
  lintAll?: boolean;
}

export interface AppliedFix {
  ruleId: string;
  file: string;
  object: ObjectRef;
  description: string;
  safety: 'safe' | 'proposal';
  /**
   * Line of the finding in the fixed text (`FixedFile.text`, the file as written), where the user
   * finds the repair: the finding's line when its pass applied it, carried through the lines later
   * passes inserted or removed (a line that a later pass replaced maps to where its replacement
   * starts). The report of what remains after --fix is linted on the same text.
   */
  line: number;
  /** The edits, with pointers relative to the object (as the rule made them). */
  edits: FixEdit[];
}

export interface FixedFile {
  file: string;
  path?: string;
  /** The text as read, made whole when first read. */
  readonly original: string;
  /** The fixed text (equal to `original` when nothing was applied), made whole when first read. */
  readonly text: string;
  /** Whether `text` differs from `original`. */
  readonly changed: boolean;
  /**
   * The fixed text as consecutive slices (its documents), whose concatenation is `text`: a writer
   * can write them one by one without making the whole text, which costs a copy of the file in
   * memory (two bytes a character once one character is outside Latin-1).
   */
  chunks(): readonly string[];
  applied: AppliedFix[];
}

/**
 * A FixedFile of `bom` and the text as read, and `fixed` (undefined: the text as read), each made
 * whole only when read.
 */
function fixedFile(file: string, bom: string, read: FileText, fixed: FileText | undefined, applied: AppliedFix[]): FixedFile {
  let original: string | undefined;
  let text: string | undefined;
  const originalText = () => (original ??= bom + read.value);
  const whole = () => (text ??= fixed ? bom + fixed.value : originalText());
  // Texts of different lengths differ; texts of the same length are compared whole.
  const changed = fixed !== undefined && (fixed.length !== read.length || whole() !== originalText());
  return {
    file,
    get original() {
      return originalText();
    },
    get text() {
      return whole();
    },
    changed,
    chunks: () => (text !== undefined ? [text] : fixed ? (bom ? [bom, ...fixed.parts()] : fixed.parts()) : [whole()]),
    applied,
  };
}

export interface SkippedFix {
  finding: Finding;
  reason: string;
}

export interface FixResult {
  /** Every source, in input order. */
  files: FixedFile[];
  /** Findings with a fix that was not applied, from the last lint, with the reason. */
  skipped: SkippedFix[];
  /** Lint-and-fix rounds that applied something. */
  passes: number;
  /** False when fixes were still applicable after maxPasses rounds. */
  converged: boolean;
  /**
   * The last lint, of the fixed texts (`files[].text`): each file's reading and the sorted
   * findings, which the report of what remains can use instead of linting again.
   */
  lint: { parsed: ParsedObjects[]; findings: Finding[] };
  work: FixWork;
}

export const CHART_REASON = "rendered from a Helm chart: fix the chart's templates or values";
export const PROPOSAL_REASON = 'a proposal, not a safe repair: review it and apply it with --fix-proposals';
const DEFAULT_MAX_PASSES = 5;

interface FileState {
  source: Source;
  bom: string;
  /** Current text without the BOM (the pieces of the last pass until joined: pieces.ts). */
  text: FileText;
  /** The text as read, without the BOM. */
  original: FileText;
  /** The text is JSON (a JSON file stays JSON: its edits keep it JSON, and nothing is added before its first document). */
  json: boolean;
  /**
   * Whether the text may hold a CRLF line break: false is certain (the text had none, and no
   * piece written since has one; every piece but the last ends with a line feed, so no CRLF spans
   * two), and then its dominant line break is LF without reading the whole text again.
   */
  crlf: boolean;
  applied: AppliedFix[];
  /** Why this file is no longer edited, once a fix could not be written safely. */
  refused?: string;
  /** The current text as the lint reads it. */
  parsed: ParsedObjects;
  /** parse.ts's reading of the current text, with its documents, once the file has fixes (or is YAML). */
  model?: FileModel;
}

/**
 * Remembers which object each fix was reported for (the Finding carries only its ref), and how
 * many findings each rule reported (one per report).
 */
function tracking(rule: Rule, owner: Map<Fix, KObject>, counts: Map<Rule, number>): Rule {
  return {
    meta: rule.meta,
    check(ctx) {
      rule.check({
        ...ctx,
        report(r) {
          // (A finding the run already has, from another world of variants, is not counted.)
          if (!ctx.report(r)) return false;
          if (r.fix) owner.set(r.fix, r.object);
          counts.set(rule, (counts.get(rule) ?? 0) + 1);
          return true;
        },
      });
    },
  };
}

/**
 * The findings of one runRules over `rules` (then the policy's custom rules), from two runs: `a`
 * over the fixable ones (then the custom rules), `b` over the others. A run reports rule by rule,
 * each rule's findings together and in its own order, so the findings are cut per rule by their
 * counts and put back in the rules' order: the same list, which sortFindings (a stable sort)
 * orders as it orders one run's.
 */
function mergeRuns(rules: Rule[], counts: Map<Rule, number>, a: Finding[], b: Finding[]): Finding[] {
  const out: Finding[] = [];
  let ia = 0;
  let ib = 0;
  for (const r of rules) {
    const n = counts.get(r) ?? 0;
    if (r.meta.fixable) for (const end = ia + n; ia < end; ia++) out.push(a[ia]);
    else for (const end = ib + n; ib < end; ib++) out.push(b[ib]);
  }
  // The custom rules' findings, last as in one run.
  for (; ia < a.length; ia++) out.push(a[ia]);
  if (ib !== b.length) throw new Error('--fix: the findings of the rules that cannot fix do not add up');
  return out;
}

/**
 * A text read back by the YAML fast path as exactly one clean document holding one object (its
 * reading), or undefined: then yaml decides. The fast path reads a document it declines with
 * parse.ts and returns that reading with its errors (a duplicate key, say): such a reading is no
 * read-back (exported for tests).
 */
export function fastReadBack(file: string, text: string): ParsedObjects | undefined {
  const fast = parseYamlFast(file, text);
  return fast && fast.errors.length === 0 && fast.documents === 1 && fast.objects.length === 1 && fast.objects[0].basePointer === '' ? fast : undefined;
}

function fixKey(f: Finding): string {
  const o = f.object;
  return `${f.ruleId}\u0000${f.file}\u0000${o.kind}/${o.namespace ?? ''}/${o.name}\u0000${f.pointer}\u0000${f.fix?.description ?? ''}`;
}

function overlaps(a: string[], b: string[]): boolean {
  return isUnder(a, b) || isUnder(b, a);
}

/** The document's value as Kubernetes reads it (YAML 1.1, merge keys: lib/model/yaml11). */
function toJs(doc: Document, decoded?: WeakMap<Document, K8sValue>): { value?: unknown; failed?: boolean } {
  let r = decoded?.get(doc);
  if (!r) {
    r = k8sValue(doc);
    decoded?.set(doc, r);
  }
  return r.error ? { failed: true } : { value: r.value };
}

function isJsonText(t: string): boolean {
  const s = t.trimStart();
  return s.startsWith('{') || s.startsWith('[');
}

function jsonIndent(t: string): number | undefined {
  const m = /\n([ \t]+)\S/.exec(t);
  return m ? m[1].length : undefined;
}

interface PendingDoc {
  /** Object values to add as new documents right after this one. */
  added: JsonObject[];
}

/** What one pass did to one file: the edited documents, their edits and values, and new documents. */
interface FileEdits {
  edited: Map<number, DocEdit[]>;
  /** The fixed value of each edited document. */
  values: Map<number, unknown>;
  pending: Map<number, PendingDoc>;
  /** Documents edited by text splices: their fixed slice (splice.ts). */
  splices: Map<number, { text?: string }>;
}

/**
 * A file's documents for the fixer: the slice of the text each one was read from, and its yaml
 * Document (offsets in the whole text) once a fix needs it. A file read piecewise (pieces.ts) is
 * sliced at its `---` lines, its documents are parsed one by one when first edited, and the
 * objects of each document are kept for the lint of unchanged documents; any other file is
 * parse.ts's whole reading, sliced as the documents' ranges say, and is read back whole.
 */
interface FileModel {
  docs: (Document.Parsed | undefined)[];
  starts: number[];
  piecewise: boolean;
  /** Each document's objects in the current text (piecewise files). */
  objects: KObject[][];
  documents: number;
  /** The line each document's slice starts on, when a piecewise read-back counted them (pieces.ts SliceLines). */
  sliceLines?: SliceLines;
  /** Each document's slice of the text, when the model was read back piecewise (its pieces). */
  texts?: string[];
}

/** Document d's slice of the text: its piece, else cut from the whole text. */
function docText(model: FileModel, d: number, text: FileText): string {
  return model.texts?.[d] ?? text.value.slice(model.starts[d], d + 1 < model.starts.length ? model.starts[d + 1] : text.length);
}

/** The dominant line break of the file's current text (format.ts's dominantEol). */
function fileEol(st: FileState): string {
  return st.crlf ? dominantEol(st.text.value) : '\n';
}

/** The model of parse.ts's whole reading of `text`. */
function wholeModel(text: string, full: ParsedFile): FileModel {
  const objects = groupObjects(full.objects, full.docs.length);
  const whole: FileModel = { docs: full.docs, starts: sliceStarts(text, full.docs), piecewise: false, objects, documents: full.documents };
  if (full.errors.length || full.docs.some((d) => d.errors.length) || !piecewiseText(text)) return whole;
  const starts = markerSlices(text);
  // The `---` slices must hold the documents yaml read (they do, given piecewiseText).
  if (starts.length !== full.docs.length) return whole;
  for (let i = 0; i < starts.length; i++) {
    const end = i + 1 < starts.length ? starts[i + 1] : text.length;
    if (full.docs[i].range[0] < starts[i] || full.docs[i].range[1] > end) return whole;
  }
  return { ...whole, starts, piecewise: true };
}

/** The model of a fast path's reading (no documents yet), or undefined when it cannot be sliced. */
function fastModel(text: FileText, parsed: ParsedObjects): FileModel | undefined {
  if (parsed.errors.length) return undefined;
  // A text known by its Latin-1 reading: its documents decoded alone (FileText.latin1Documents).
  const alone = text.latin1Documents();
  let starts: number[];
  let texts: string[] | undefined;
  if (alone) ({ starts, texts } = alone);
  else {
    const t = text.value;
    if (!piecewiseText(t)) return undefined;
    starts = markerSlices(t);
  }
  if (parsed.objects.some((o) => o.docIndex >= starts.length)) return undefined;
  const model: FileModel = { docs: new Array<undefined>(starts.length).fill(undefined), starts, piecewise: true, objects: groupObjects(parsed.objects, starts.length), documents: parsed.documents };
  if (texts) model.texts = texts;
  return model;
}

function groupObjects(objects: KObject[], n: number): KObject[][] {
  const out: KObject[][] = Array.from({ length: n }, () => []);
  for (const o of objects) out[o.docIndex]?.push(o);
  return out;
}

/**
 * Document `i` of a piecewise file, parsed alone from its slice when first needed (offsets moved
 * to the whole text); undefined when the slice does not read as exactly one clean document.
 */
function docOf(model: FileModel, i: number, text: FileText, counters: FixWork, decoded: WeakMap<Document, K8sValue>): Document.Parsed | undefined {
  const known = model.docs[i];
  if (known) return known;
  // The fast path parsed the document already when a rule asked for a position in it: take it,
  // and its value, which is the fast path's (proven equal; a List's is not at hand).
  const o = model.objects[i]?.[0] as (KObject & { takeDocument?: () => { doc: Document.Parsed; start: number } | undefined }) | undefined;
  const seen = typeof o?.takeDocument === 'function' ? o.takeDocument() : undefined;
  if (seen && !seen.doc.errors.length && (i === 0 || seen.doc.directives.docStart)) {
    shiftDocument(seen.doc, seen.start);
    model.docs[i] = seen.doc;
    if (o!.basePointer === '' && model.objects[i].length === 1) decoded.set(seen.doc, { value: o!.raw, duplicates: [] });
    return seen.doc;
  }
  const start = model.starts[i];
  const docs = readAlone(docText(model, i, text));
  counters.documentsParsed++;
  if (docs.length !== 1 || docs[0].errors.length || (i > 0 && !docs[0].directives.docStart)) return undefined;
  shiftDocument(docs[0], start);
  model.docs[i] = docs[0];
  // A document that is one object has the value the fast path read (proven equal to yaml's).
  if (o && o.basePointer === '' && model.objects[i].length === 1) decoded.set(docs[0], { value: o.raw, duplicates: [] });
  return docs[0];
}

/** The only documents (empty ones included) of a text read alone. */
function readAlone(text: string): Document.Parsed[] {
  return withoutStacks(() => Array.from(parseAllDocuments(text, PARSE_OPTIONS) as Iterable<Document.Parsed>));
}

type Rendered = { text: FileText; next?: PiecewiseFile; pieces?: Piece[]; lines: (line: number) => number } | { error: string };

/**
 * Writes edited documents back into the file text. Documents without edits are copied byte for
 * byte (each document's slice runs from the end of the previous one, so `---`, directives and
 * leading comments go with it); edited ones come from renderDoc; new objects follow their
 * document. The result must read back as exactly the intended documents: when the file allows it
 * (pieces.ts), the edited and added documents are read back alone, each must be exactly one
 * document with the intended value, and the unchanged documents are kept; otherwise the whole
 * result is parsed and compared.
 */
function renderFile(
  file: string,
  text: FileText,
  eol: string,
  model: FileModel,
  documentsOf: (d: number) => { orig: Document.Parsed; work: Document } | undefined,
  { edited, values, pending, splices }: FileEdits,
  counters: FixWork,
  decoded: WeakMap<Document, K8sValue>,
): Rendered | 'again' {
  const original = model.docs;
  const n = model.starts.length;
  const toEol = (s: string) => (eol === '\n' ? s : s.replace(/\r?\n/g, eol));
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let piecewise = model.piecewise;
  const added: { k: number; value: JsonObject }[] = [];
  for (let i = 0; i < n; i++) {
    const from = model.starts[i];
    const end = i === n - 1 ? text.length : model.starts[i + 1];
    const old = docText(model, i, text);
    let seg = old;
    const edits = edited.get(i);
    if (edits) {
      const r = renderDoc(old, () => text.value, from, end, () => documentsOf(i), values.get(i), edits, eol, decoded, file, splices.get(i)?.text);
      if ('again' in r) return 'again';
      if ('error' in r) return r;
      if (r.spliced) counters.documentsSpliced++;
      seg = r.text;
      if (r.doc || r.objects) {
        pieces.push({ kind: 'new', text: seg, doc: r.doc, objects: r.objects, oldStart: from, oldText: old, oldIndex: i });
        counters.documentsReadBack++;
      } else piecewise = false;
    } else pieces.push({ kind: 'kept', text: seg, doc: original[i], oldStart: from, oldIndex: i });
    parts.push(seg);
    const adds = pending.get(i)?.added ?? [];
    if (adds.length) {
      if (parts.length && !/\n$/.test(parts[parts.length - 1])) {
        parts.push(eol);
        piecewise = false;
      }
      const style = detectStyle(seg);
      for (const v of adds) {
        const t = toEol('---\n' + new Document(v, { version: '1.1' }).toString(style));
        parts.push(t);
        added.push({ k: pieces.length, value: v });
        pieces.push({ kind: 'new', text: t, doc: undefined as unknown as Document.Parsed });
      }
      // A following document that relied on `...` to start needs its own `---` now (every
      // document after the first of a piecewise file starts with one).
      const next = i + 1 < n && !model.piecewise ? original[i + 1] : undefined;
      if (next && !next.directives.docStart && !/^\s*(#[^\n]*\n\s*)*---/.test(text.value.slice(end))) {
        parts.push('---' + eol);
        piecewise = false;
      }
    }
  }
  // A line feed at the end only where the text had one (a change here is no piece's: read back whole).
  let last = parts.length - 1;
  while (last > 0 && !parts[last].length) last--;
  const endsWithLf = text.endsWithLineFeed();
  if (last >= 0 && !endsWithLf && parts[last].endsWith('\n')) {
    parts[last] = parts[last].replace(/\r?\n$/, '');
    piecewise = false;
  } else if (endsWithLf && !(last >= 0 && parts[last].endsWith('\n'))) {
    parts.push(eol);
    piecewise = false;
  }

  if (piecewise) {
    // Each new object reads back alone as exactly itself: by the YAML fast path when it reads it
    // as that object (a plain rendering always is), else by yaml.
    for (const a of added) {
      const fast = fastReadBack(file, pieces[a.k].text);
      if (fast && sameValue(fast.objects[0].raw, a.value)) {
        counters.documentsReadBack++;
        (pieces[a.k] as Piece & { kind: 'new' }).objects = fast.objects;
        continue;
      }
      const docs = readAlone(pieces[a.k].text);
      counters.documentsReadBack++;
      if (docs.length !== 1 || docs[0].errors.length) return { error: 'a new document would not parse' };
      if (!sameValue(toJs(docs[0], decoded).value, a.value)) return { error: 'a new document would not read back as the object added' };
      pieces[a.k].doc = docs[0];
    }
    const next = assemblePieces(pieces, model.sliceLines);
    if (next) return { text: next.text, next, pieces, lines: next.lines };
  }
  const out = parts.join('');
  // The whole file must read back as exactly the intended documents.
  counters.wholeReadBacks++;
  const expected: { value?: unknown; broken: boolean }[] = [];
  for (let i = 0; i < n; i++) {
    // A document of a piecewise file not parsed yet is read from its slice now (this is rare).
    const doc = original[i] ?? docOf(model, i, text, counters, decoded);
    if (!doc) return { error: `document ${i + 1} could not be read back` };
    // (A document without a value of the pass is unchanged: its own value.)
    expected.push(doc.errors.length ? { broken: true } : { value: values.has(i) ? values.get(i) : toJs(doc, decoded).value, broken: false });
    for (const v of pending.get(i)?.added ?? []) expected.push({ value: v, broken: false });
  }
  const back = readAlone(out);
  if (back.length !== expected.length) return { error: `the fixed file would hold ${back.length} documents instead of ${expected.length}` };
  for (let i = 0; i < back.length; i++) {
    const e = expected[i];
    if (e.broken) continue;
    if (back[i].errors.length) return { error: `document ${i + 1} would not parse after the fix: ${back[i].errors[0].message.split('\n')[0]}` };
    if (!sameValue(toJs(back[i]).value, e.value)) return { error: `document ${i + 1} would not read back as the fixed values` };
  }
  return { text: new FileText(out), lines: lineMapping(text.value, out) };
}

/**
 * One edited document. First the edits as text operations in place (every other byte stays);
 * when they cannot express the edit, a line-wise merge of yaml's rendering into the original
 * (with the detected style, the other sequence indentation, and per region the better of the
 * two, since real files mix both), else yaml's rendering of the whole document. Each candidate
 * must parse back to the fixed values and keep every comment; the one changing fewest lines wins.
 * Returns the winning text with its reading when it reads as exactly one document.
 */
function renderDoc(
  seg: string,
  whole: () => string,
  from: number,
  to: number,
  documents: () => { orig: Document.Parsed; work: Document } | undefined,
  fixed: unknown,
  edits: DocEdit[],
  eol: string,
  decoded: WeakMap<Document, K8sValue>,
  file: string,
  spliced?: string,
): { text: string; doc?: Document.Parsed; objects?: KObject[]; spliced?: true } | { error: string } | { again: true } {
  const toEol = (t: string) => (eol === '\n' ? t : t.replace(/\n/g, eol));
  type Candidate = { text?: string; before: string; after: string };
  let want = fixed;
  let problem = 'it could not be rendered';
  let segComments: string[] | undefined;
  type Reading = { docs?: Document.Parsed[]; objects?: KObject[] };
  /** Whether the candidate loses a comment of the document (and says which in `problem`). */
  const commentLost = (c: Candidate, text: string): boolean => {
    // Without a `#` the document has no comment to lose (the lexer is not needed to know).
    const lost = seg.includes('#') ? lostComments((segComments ??= commentTokens(seg)), c.before, c.after, text) : [];
    if (lost.length) problem = `the comment "${lost[0]}" would be lost`;
    return lost.length > 0;
  };
  const check = (c: Candidate): Reading | undefined => {
    if (c.text === undefined) return undefined;
    // One plain Kubernetes object: the YAML fast path reads it as yaml would (or declines).
    const fast = fastReadBack(file, c.text);
    if (fast) {
      if (!sameValue(fast.objects[0].raw, want)) {
        problem = 'the result would not read back as the fixed values';
        return undefined;
      }
      if (commentLost(c, c.text)) return undefined;
      return { objects: fast.objects };
    }
    const all = readAlone(c.text);
    const docs = all.filter((d) => d.contents !== null || d.errors.length);
    if (docs.length !== 1 || docs[0].errors.length) {
      problem = 'the result would not parse';
      return undefined;
    }
    if (!sameValue(toJs(docs[0], decoded).value, want)) {
      problem = 'the result would not read back as the fixed values';
      return undefined;
    }
    if (commentLost(c, c.text)) return undefined;
    return { docs: all };
  };
  // The winner's reading: the fast path's objects, or yaml's document when it is exactly one.
  const alone = (r: Reading) => (r.objects ? { objects: r.objects } : r.docs!.length === 1 ? { doc: r.docs![0] } : {});
  // A text splice (made without a yaml Document) is the in-place edit below, made already.
  if (spliced !== undefined) {
    const got = check({ text: spliced, before: '', after: '' });
    if (got) return { text: spliced, spliced: true, ...alone(got) };
  }
  const both = documents();
  if (!both) return { again: true };
  const { orig, work } = both;
  if (want === undefined) want = toJs(work).value;
  let surgical: () => Candidate;
  let others: () => Candidate[];
  // In-place text edits only insert text or replace scalars: they keep every comment, which is
  // checked with nothing counted as dropped by the edit (no renderings needed).
  if (isJsonText(seg.replace(/^(\s*(---|#)[^\n]*\n)*/, ''))) {
    // JSON stays JSON: yaml would render new keys unquoted inside the flow mapping.
    const ind = jsonIndent(seg);
    const lead = /^(\s*---[^\n]*\n)?/.exec(seg)![0].replace(/\r/g, '');
    surgical = () => ({ text: surgicalEdit(whole(), from, to, orig, edits, { ...detectStyle(seg), flowCollectionPadding: false }, eol), before: '', after: '' });
    others = () => {
      const before = lead + JSON.stringify(toJs(orig).value, null, ind) + '\n';
      const after = lead + JSON.stringify(want, null, ind) + '\n';
      return [
        { text: mergeEdit(seg, before, after, eol), before, after },
        { text: toEol(after), before, after },
      ];
    };
  } else {
    const style = detectStyle(seg);
    surgical = () => ({ text: surgicalEdit(whole(), from, to, orig, edits, style, eol), before: '', after: '' });
    others = () => {
      const render = (st: typeof style) => ({ before: orig.toString(st), after: work.toString(st) });
      let main: { before: string; after: string };
      try {
        main = render(style);
      } catch {
        // yaml cannot render this document (an exotic tag, say): no rendering is a candidate.
        return [];
      }
      const variants = [main, render({ ...style, indentSeq: !style.indentSeq })];
      return [
        ...variants.map((v) => ({ text: mergeEdit(seg, v.before, v.after, eol), ...v })),
        // Comments the edit dropped are judged against the detected style's renderings.
        { text: mergeEditMixed(seg, variants, eol), ...main },
        { text: toEol(main.after), ...main },
      ];
    };
  }
  // In-place text edits change only the edited lines: nothing can do better. (The same text as a
  // splice that did not read back is not read again: it fails the same way.)
  const first = surgical();
  const firstDocs = first.text !== undefined && first.text === spliced ? undefined : check(first);
  if (firstDocs) return { text: first.text!, ...alone(firstDocs) };
  let rest: Candidate[];
  try {
    rest = others();
  } catch (e) {
    rest = [];
    problem = `yaml cannot render it (${(e as Error).message.split('\n')[0]})`;
  }
  // The one changing the fewest lines wins (the first of equals, in the order above): tried
  // cheapest first, the first that reads back wins and the costlier ones are not read back.
  const tried = rest
    .map((c, order) => ({ c, order, cost: c.text === undefined ? 0 : changedLineCount(seg, c.text) }))
    .filter((x) => x.c.text !== undefined)
    .sort((a, b) => a.cost - b.cost || a.order - b.order);
  const reasons = new Map<number, string>();
  for (const t of tried) {
    const docs = check(t.c);
    if (docs) return { text: t.c.text!, ...alone(docs) };
    reasons.set(t.order, problem);
  }
  // None reads back: the reason given is the last candidate's, in the order above.
  if (tried.length) problem = reasons.get(Math.max(...reasons.keys()))!;
  return { error: problem };
}

/** What the fixer read, for tests and profiles: whole-file parses and documents read back alone. */
export interface FixWork {
  /** Whole-file parses (parse.ts) per file, after the lint's own reading of the input. */
  fileParses: Record<string, number>;
  /** Documents of files read by a fast path, parsed alone from their slice when first edited. */
  documentsParsed: number;
  /** Edited or added documents read back alone. */
  documentsReadBack: number;
  /** Fixed files read back whole (not piecewise). */
  wholeReadBacks: number;
  /** Edited documents written by text splices, without a yaml Document (splice.ts). */
  documentsSpliced: number;
}

/**
 * Lints the sources together, applies the fixes of unsuppressed findings (safe ones, plus
 * proposals when asked) to the YAML documents, and repeats until nothing more applies. Each file
 * is read once as the lint reads it; a file is parsed with its YAML documents only when it has a
 * fix to apply, and after a pass only its edited documents are read again (see pieces.ts).
 */
export function fixSources(sources: Source[], opts: FixOptions): FixResult {
  const maxPasses = opts.maxPasses ?? DEFAULT_MAX_PASSES;
  const counters: FixWork = { fileParses: {}, documentsParsed: 0, documentsReadBack: 0, wholeReadBacks: 0, documentsSpliced: 0 };
  // Values of parsed documents, which are never mutated (edits go to clones): read once each.
  const decoded = new WeakMap<Document, K8sValue>();
  const parseWhole = (file: string, text: string): ParsedFile => {
    counters.fileParses[file] = (counters.fileParses[file] ?? 0) + 1;
    return parseText(file, text, undefined, decoded);
  };
  const states: FileState[] = sources.map((s) => {
    // (Read first: the text is then made from the reading's Latin-1 string, see sources.ts.)
    const parsed = parseSource(s, decoded);
    // A file the YAML fast path read as Latin-1 is not decoded whole unless something needs the
    // whole text (FileText.fromLatin1): its documents are, one by one, when it has fixes. (Its
    // BOM, line breaks and first character are ASCII or the BOM's bytes there.)
    const l = latin1Made(s);
    if (l !== undefined) {
      const bom = l.startsWith('\xef\xbb\xbf') ? '\ufeff' : '';
      const body = bom ? l.slice(3) : l;
      const text = FileText.fromLatin1(body, () => s.text.slice(bom.length));
      return { source: s, bom, text, original: text, json: isJsonText(body), crlf: body.includes('\r\n'), applied: [], parsed };
    }
    const bom = s.text.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
    const text = s.text.slice(bom.length);
    const t = new FileText(text);
    return { source: s, bom, text: t, original: t, json: isJsonText(text), crlf: text.includes('\r\n'), applied: [], parsed };
  });
  const byFile = new Map(states.map((s, i) => [s.source.file, i]));
  const fileOrder = sources.map((s) => s.file);
  const failed = new Map<string, string>();
  const noop = new Set<string>();
  let passes = 0;
  let converged = false;
  let skipped: SkippedFix[] = [];
  let findings: Finding[];

  type Todo = { f: Finding; fix: Fix; obj: KObject; file: number };
  /**
   * One pass over one file: applies its fixes to its documents and renders the fixed text, or
   * undefined when nothing applied. With `splice`, a document the YAML fast path read is edited
   * without a yaml Document (splice.ts) for as long as its edits allow; it moves to the Document
   * route (parsed, cloned, the pass's earlier fixes replayed) at the first edit that the splice
   * cannot make, or when the spliced text does not read back as intended. 'again' asks for the
   * pass to be run without splices (a document that could not then be parsed alone).
   */
  const fixFile = (st: FileState, items: Todo[], splice: boolean): { rendered: Rendered; appliedHere: AppliedFix[] } | undefined | 'again' => {
    // Only now, with a fix to apply, does the file get its YAML documents: parse.ts's reading
    // has them; after a fast path, the documents to edit are parsed alone from their slices.
    if (!st.model) {
      const p = st.parsed;
      if ('docs' in p) st.model = wholeModel(st.text.value, p as ParsedFile);
      else st.model = fastModel(st.text, p) ?? wholeModel(st.text.value, parseWhole(st.source.file, st.text.value));
    }
    const json = st.json;
    // A document the fixer knows the whole value of (one object, the document itself) may be spliced.
    const spliceable = (m: FileModel, d: number) => splice && !json && m.piecewise && m.objects[d]?.length === 1 && m.objects[d][0].basePointer === '';
    if (items.some((t) => !spliceable(st.model!, t.obj.docIndex) && !docOf(st.model!, t.obj.docIndex, st.text, counters, decoded))) st.model = wholeModel(st.text.value, parseWhole(st.source.file, st.text.value));
    const model = st.model;
    const work: (Document | undefined)[] = [...model.docs];
    const edited = new Map<number, DocEdit[]>();
    const values = new Map<number, unknown>();
    const busy = new Map<number, string[][]>();
    const pending = new Map<number, PendingDoc>();
    const addedKeys = new Set<string>();
    const appliedHere: AppliedFix[] = [];
    // The fixes applied to each document in this pass, replayed on a fresh clone when a later
    // one fails after editing the document (or changes nothing).
    const replay = new Map<number, { base: string; edits: FixEdit[] }[]>();
    const restore = (d: number) => {
      const c = cloneDocument(model.docs[d]!);
      for (const r of replay.get(d) ?? []) applyEdits(c, r.base, r.edits);
      work[d] = replay.get(d)?.length ? c : model.docs[d];
    };
    // Documents edited by splices in this pass: their value and text so far (text: undefined
    // while only objects were added after them); documents moved to the Document route.
    const splices = new Map<number, { value: unknown; text?: string }>();
    const documentRoute = new Set<number>();
    // Each spliced document's reading of its text and its style, for all its fixes of the pass.
    const trees = new Map<number, { seg: string; tree: TextTree; style: ToStringOptions }>();
    let eol: string | undefined;
    /** Moves document d to the Document route, replaying this pass's fixes on it; false when it cannot be. */
    const toDocument = (d: number): boolean => {
      documentRoute.add(d);
      const sp = splices.get(d);
      splices.delete(d);
      if (!docOf(model, d, st.text, counters, decoded)) return false;
      try {
        restore(d);
      } catch (e) {
        if (e instanceof FixError) return false;
        throw e;
      }
      if (replay.get(d)?.length) {
        const v = toJs(work[d]!);
        // Both routes must agree on the value (splice.ts's applyJsonEdits mirrors edit.ts).
        if (v.failed || (sp && !sameValue(v.value, sp.value))) return false;
        values.set(d, v.value);
      }
      return true;
    };
    /** Applies a fix to document d by a text splice; false when the Document route must decide. */
    const spliceFix = (d: number, obj: KObject, fix: Fix, adds: JsonObject[], paths: string[][]): boolean => {
      const sp = splices.get(d) ?? { value: model.objects[d][0].raw as unknown };
      const after = applyJsonEdits(sp.value, obj.basePointer, fix.edits);
      if (after === undefined) return false;
      const changed = !sameValue(sp.value, after);
      // A fix that changes nothing is the Document route's to report.
      if (!changed && !adds.length) return false;
      let text = sp.text;
      let list = edited.get(d);
      if (changed) {
        list = [...(list ?? [])];
        for (const e of fix.edits) if (e.op !== 'add-object') list.push({ op: e.op, segs: pointerSegments(obj.basePointer + e.pointer), value: e.op === 'remove' ? undefined : e.value });
        eol ??= fileEol(st);
        let t = trees.get(d);
        // (The document's own slice: its piece after a pass, else cut from the file's text.)
        if (!t) {
          const seg = docText(model, d, st.text);
          trees.set(d, (t = { seg, tree: new TextTree(seg, 0, seg.length, model.objects[d][0].raw), style: detectStyle(seg) }));
        }
        text = treeEdit(t.tree, t.seg, 0, t.seg.length, list, t.style, eol);
        if (text === undefined) return false;
      }
      splices.set(d, { value: after, text });
      values.set(d, after);
      const done = replay.get(d) ?? [];
      done.push({ base: obj.basePointer, edits: fix.edits });
      replay.set(d, done);
      if (changed) edited.set(d, list!);
      busy.set(d, [...(busy.get(d) ?? []), ...paths]);
      return true;
    };
    for (const { f, fix, obj } of items) {
      const key = fixKey(f);
      const d = obj.docIndex;
      const base = pointerSegments(obj.basePointer);
      const paths = fix.edits.flatMap((e) => (e.op === 'add-object' ? [] : [pointerSegments(obj.basePointer + e.pointer)]));
      const adds = fix.edits.flatMap((e) => (e.op === 'add-object' ? [e.value] : []));
      // Two fixes touching the same place in one pass: the first wins; the next lint decides.
      if (paths.some((x) => (busy.get(d) ?? []).some((y) => overlaps(x, y)))) continue;
      const addKeys = adds.map((v) => JSON.stringify([v.kind, (v.metadata as JsonObject | undefined)?.namespace, (v.metadata as JsonObject | undefined)?.name]));
      if (addKeys.some((k) => addedKeys.has(k))) continue;
      let dirty = false;
      try {
        if (paths.some((x) => isUnder(x, [...base, 'spec', 'selector']))) throw new FixError('fixes never edit spec.selector (immutable in apps/v1)');
        if (adds.length && json) throw new FixError('cannot add an object to a JSON file; add it by hand or convert the file to YAML');
        let spliced = false;
        if (spliceable(model, d) && !documentRoute.has(d)) {
          spliced = spliceFix(d, obj, fix, adds, paths);
          if (!spliced && !toDocument(d)) return 'again';
        }
        if (!spliced) {
          // One clone per edited document and pass; the fixes of this pass accumulate on it.
          const own = work[d] !== model.docs[d];
          const doc = own ? work[d]! : cloneDocument(model.docs[d]!);
          const before = values.has(d) ? values.get(d) : toJs(model.docs[d]!, decoded).value;
          dirty = own;
          const res = applyEdits(doc, obj.basePointer, fix.edits);
          const after = toJs(doc);
          if (after.failed) throw new FixError('the edited document could not be read back');
          // Items that only moved up a sequence (an earlier item was removed) are compared with the
          // items they were, so the shift alone is no change, but a changed shifted item is.
          const outside = changedPathsShifted(before, after.value, res.shifts).filter((x) => !res.touched.some((t) => isUnder(x, t)));
          if (outside.length) throw new FixError(`the edit would also change /${outside[0].join('/')} (shared through a YAML anchor or merge key); fix it by hand`);
          if (!res.changed && !adds.length) {
            noop.add(key);
            if (dirty) restore(d);
            continue;
          }
          work[d] = doc;
          values.set(d, after.value);
          const done = replay.get(d) ?? [];
          done.push({ base: obj.basePointer, edits: fix.edits });
          replay.set(d, done);
          if (res.changed) {
            const list = edited.get(d) ?? [];
            for (const e of fix.edits) if (e.op !== 'add-object') list.push({ op: e.op, segs: pointerSegments(obj.basePointer + e.pointer), value: e.op === 'remove' ? undefined : e.value });
            edited.set(d, list);
          }
          busy.set(d, [...(busy.get(d) ?? []), ...res.claimed]);
        }
        if (adds.length) {
          const pd = pending.get(d) ?? { added: [] };
          pd.added.push(...adds);
          pending.set(d, pd);
          addKeys.forEach((k) => addedKeys.add(k));
        }
        appliedHere.push({ ruleId: f.ruleId, file: f.file, object: f.object, description: fix.description, safety: fix.safety, line: f.line, edits: fix.edits });
      } catch (e) {
        if (!(e instanceof FixError)) throw e;
        // A fix that failed half-way leaves no trace: the document is rebuilt from the others.
        if (dirty) restore(d);
        failed.set(key, `cannot apply the fix: ${e.message}`);
      }
    }
    if (!appliedHere.length) return undefined;
    // A spliced document whose text does not read back as intended takes the Document route.
    const documentsOf = (d: number): { orig: Document.Parsed; work: Document } | undefined => {
      if (splices.has(d) && !toDocument(d)) return undefined;
      return { orig: model.docs[d]!, work: work[d]! };
    };
    const rendered = renderFile(st.source.file, st.text, (eol ??= fileEol(st)), model, documentsOf, { edited, values, pending, splices }, counters, decoded);
    return rendered === 'again' ? 'again' : { rendered, appliedHere };
  };

  // A lint followed by a pass serves only to find the fixes to apply: the rules that can report
  // one (meta.fixable) and the policy's custom rules run for it. The other rules run too when the
  // lint is the last one, which is the report (see mergeRuns).
  const canFix = opts.rules.filter((r) => r.meta.fixable);
  const cannotFix = opts.rules.filter((r) => !r.meta.fixable);
  const split = !opts.lintAll && cannotFix.length > 0;
  const classify = (list: Finding[], owner: Map<Fix, KObject>) => {
    const skip: SkippedFix[] = [];
    const todo: { f: Finding; fix: Fix; obj: KObject; file: number }[] = [];
    for (const f of list) {
      if (f.suppressed || !f.fix) continue;
      const file = byFile.get(f.file);
      const obj = owner.get(f.fix);
      const st = file === undefined ? undefined : states[file];
      const key = fixKey(f);
      let reason: string | undefined;
      if (!st || !obj) reason = 'the finding belongs to no input file';
      else if (st.source.chart !== undefined) reason = CHART_REASON;
      else if (st.refused) reason = st.refused;
      else if (f.fix.safety === 'proposal' && !opts.proposals) reason = PROPOSAL_REASON;
      else if (failed.has(key)) reason = failed.get(key);
      else if (noop.has(key)) reason = 'the fix is already in place, yet the rule still reports it; fix it by hand';
      else {
        // A number Kubernetes cannot take (every number a fix writes goes to an integer field): a hook
        // of 1e23 seconds makes a grace period of 1e+23, which the API server refuses.
        for (const e of f.fix.edits) {
          if ((e.op === 'set' || e.op === 'append') && typeof e.value === 'number' && !Number.isSafeInteger(e.value)) {
            reason = `the fix would write ${String(e.value)} to ${e.pointer}, which is no integer Kubernetes accepts; fix it by hand`;
            break;
          }
        }
      }
      if (reason) skip.push({ finding: f, reason });
      else todo.push({ f, fix: f.fix, obj: obj!, file: file! });
    }
    return { skip, todo };
  };
  for (;;) {
    const owner = new Map<Fix, KObject>();
    const counts = new Map<Rule, number>();
    const objects = states.flatMap((s) => s.parsed.objects);
    // The last lint runs its rules in two parts over the same objects: on the same graphs.
    const graphs = split ? ruleGraphs(objects, opts.policy, opts.version) : undefined;
    const first = runRules(objects, { rules: (split ? canFix : opts.rules).map((r) => tracking(r, owner, counts)), policy: opts.policy, version: opts.version }, graphs);
    findings = sortFindings(split ? first.slice() : first, fileOrder);
    let { skip, todo } = classify(findings, owner);
    if (split && (!todo.length || passes >= maxPasses)) {
      // The last lint: the other rules' findings join, in the order one run of all would give.
      const rest = runRules(objects, { rules: cannotFix.map((r) => tracking(r, owner, counts)), policy: { ...opts.policy, customRules: [] }, version: opts.version }, graphs);
      findings = sortFindings(mergeRuns(opts.rules, counts, first, rest), fileOrder);
      const all = classify(findings, owner);
      // A rule that reports a fix although its meta says it cannot: the lints before were short of
      // its fixes, so the whole repair runs again with every rule in every lint.
      if (rest.some((f) => f.fix) || all.todo.length !== todo.length) return fixSources(sources, { ...opts, lintAll: true });
      ({ skip, todo } = all);
    }
    skipped = skip;
    if (!todo.length) {
      converged = true;
      break;
    }
    if (passes >= maxPasses) {
      for (const t of todo) skipped.push({ finding: t.f, reason: `still reported after ${maxPasses} fix passes (fixes may be undoing each other); fix it by hand` });
      break;
    }
    passes++;

    const groups = new Map<number, typeof todo>();
    for (const t of todo) {
      const g = groups.get(t.file);
      if (g) g.push(t);
      else groups.set(t.file, [t]);
    }
    for (const [fi, items] of groups) {
      const st = states[fi];
      // A file's pass first edits by text splices where it can; in the rare case that a
      // document then cannot be parsed alone after all, the pass is run again without them.
      let r = fixFile(st, items, opts.textSplice !== false);
      if (r === 'again') r = fixFile(st, items, false);
      if (r === 'again') throw new Error('--fix: a file pass without text splices cannot ask for a retry');
      if (!r) continue;
      const { rendered, appliedHere } = r;
      if ('error' in rendered) {
        st.refused = `the fix was not written because ${rendered.error}; apply it by hand`;
        continue;
      }
      const model = st.model!;
      // Lines found on the text before this pass move with what the pass inserted and removed.
      for (const a of [...st.applied, ...appliedHere]) a.line = rendered.lines(a.line);
      st.text = rendered.text;
      st.applied.push(...appliedHere);
      // (Kept pieces are the old text's: only a new piece can bring a CRLF; see FileState.crlf.)
      if (!st.crlf) st.crlf = rendered.pieces ? rendered.pieces.some((p) => p.kind === 'new' && p.text.includes('\r\n')) : rendered.text.value.includes('\r\n');
      const next = rendered.next && rendered.pieces ? piecewiseModel(st.source.file, model, rendered.next, rendered.pieces, decoded) : undefined;
      if (next) {
        st.model = next.model;
        st.parsed = next.parsed;
        // (The documents read again are in the namespace the file is applied into, as at first.)
        applySourceNamespace(st.source, st.parsed.objects);
        if (opts.verifyPiecewise) verifyPiecewise(next.parsed, next.model.docs, rendered.next!.lineCounter, parseText(st.source.file, rendered.text.value));
      } else {
        const full = parseWhole(st.source.file, rendered.text.value);
        st.model = wholeModel(rendered.text.value, full);
        st.parsed = full;
        applySourceNamespace(st.source, st.parsed.objects);
      }
    }
  }

  const files: FixedFile[] = states.map((s) => {
    const ff = fixedFile(s.source.file, s.bom, s.original, s.applied.length ? s.text : undefined, s.applied);
    if (s.source.path !== undefined) ff.path = s.source.path;
    return ff;
  });
  return { files, skipped, passes, converged, lint: { parsed: states.map((s) => s.parsed), findings }, work: counters };
}

/**
 * The model and lint reading of a file read back piecewise: new documents' objects read from
 * them, unchanged documents' objects kept (moved down and renumbered); undefined when a document
 * now reads with an error (the caller then reads the file whole).
 */
function piecewiseModel(file: string, model: FileModel, next: PiecewiseFile, pieces: Piece[], decoded: WeakMap<Document, K8sValue>): { model: FileModel; parsed: ParsedObjects } | undefined {
  const objects: KObject[][] = [];
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    if (p.kind === 'new' && !p.doc) {
      // Read back by the fast path alone: its lines count from the slice's first line.
      objects.push(p.objects!.map((o) => new MovedObject(o, k, next.moved.get(k)!)));
      continue;
    }
    if (p.kind === 'kept' && !p.doc) {
      // Objects of a document at the same offset and index stay as they are (a fast path's
      // objects keep offsets into the text they read); others are moved.
      const lines = next.moved.get(k)!;
      objects.push(next.starts[k] === p.oldStart && k === p.oldIndex ? model.objects[p.oldIndex] : model.objects[p.oldIndex].map((o) => new MovedObject(o, k, lines)));
      continue;
    }
    const read = parsedFromDocuments(file, [p.doc!], next.lineCounter, undefined, decoded, k);
    if (read.errors.length) return undefined;
    objects.push(read.objects);
  }
  const documents = model.documents + pieces.length - model.starts.length;
  return {
    model: { docs: next.docs, starts: next.starts, piecewise: true, objects, documents, sliceLines: next.sliceLines, texts: pieces.map((p) => p.text) },
    parsed: { file, objects: objects.flat(), errors: [], documents },
  };
}

/** The piecewise reading of a fixed file must be what parse.ts reads from the whole text (tests). */
function verifyPiecewise(got: ParsedObjects, docs: (Document.Parsed | undefined)[], lc: LineCounter, want: ParsedFile): void {
  const ranges = (n: unknown, out: number[]): number[] => {
    if (isNode(n) && n.range) out.push(...n.range);
    if (isMap(n) || isSeq(n)) for (const it of n.items as unknown[]) isPair(it) ? (ranges(it.key, out), ranges(it.value, out)) : ranges(it, out);
    return out;
  };
  const view = (p: ParsedObjects, ds: (Document.Parsed | undefined)[], starts: number[]) =>
    JSON.stringify({
      documents: p.documents,
      errors: p.errors,
      objects: p.objects.map((o) => ({ uid: o.uid, line: o.line, column: o.column, raw: o.raw, at: ['/metadata/name', '/spec', '/spec/template/spec/containers/0/name'].map((x) => o.locate(x)) })),
      lines: starts,
      nodes: ds.map((d, i) => (d && docs[i] ? ranges(d.contents, []) : null)),
    });
  if (view(got, docs, lc.lineStarts) !== view(want, want.docs, want.lineCounter.lineStarts)) throw new Error(`--fix: the piecewise reading of ${got.file} differs from reading it whole`);
}

/**
 * A unified diff with `a/` and `b/` headers and 3 lines of context (as git); empty when nothing
 * changed. `plan` is lineChunks(before, after), when the caller has it already.
 */
export function unifiedDiff(file: string, before: string, after: string, plan?: { chunks: Chunked | undefined }): string {
  if (before === after) return '';
  // git-style headers; an absolute path must not turn into `a//abs`.
  const name = file.replace(/^\/+/, '');
  const patch = (a: string, b: string) => createTwoFilesPatch(`a/${name}`, `b/${name}`, a, b, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY, context: 3 });
  // A large file: the parts around its changed documents, their hunks moved to the file's lines
  // (chunks.ts; parts are farther apart than two contexts, so no hunk spans two).
  const ch = plan ? plan.chunks : lineChunks(before, after);
  if (!ch) return patch(before, after);
  let head = '';
  let body = '';
  for (const c of ch.chunks) {
    const p = patch(linesText(before, ch.aStarts, c.a0, c.a1), linesText(after, ch.bStarts, c.b0, c.b1));
    const cut = p.indexOf('\n', p.indexOf('\n') + 1) + 1;
    head = p.slice(0, cut);
    body += p.slice(cut).replace(/^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm, (_, a: string, n: string, b: string, m: string) => `@@ -${Number(a) + c.a0},${n} +${Number(b) + c.b0},${m} @@`);
  }
  return head + body;
}

