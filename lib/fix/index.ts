import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { Document, parseAllDocuments } from 'yaml';
import { ResolvedPolicy } from '../engine/policy';
import { runRules, sortFindings } from '../engine/run';
import { Finding, Fix, FixEdit, Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ParsedFile, parseText, pointerSegments } from '../model/parse';
import { k8sValue } from '../model/yaml11';
import { Source } from '../model/sources';
import { JsonObject, KObject, ObjectRef } from '../model/types';
import { applyEdits, FixError } from './edit';
import { changedLineCount, detectStyle, dominantEol, lineMapping, lostComments, mergeEdit, mergeEditMixed } from './format';
import { DocEdit, surgicalEdit } from './surgical';
import { changedPathsShifted, isUnder, sameValue } from './values';

export { FixError } from './edit';
export { positionMapping } from './format';
export { changedPaths, changedPathsShifted, isUnder } from './values';

export interface FixOptions {
  rules: Rule[];
  policy: ResolvedPolicy;
  version: KubeVersion;
  /** Also apply `proposal` fixes (new objects, strategy changes, ...), not just the safe set. */
  proposals?: boolean;
  /** Lint-and-fix rounds before giving up on reaching a fixed point (default 5). */
  maxPasses?: number;
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
  original: string;
  /** The fixed text (equal to `original` when nothing was applied). */
  text: string;
  applied: AppliedFix[];
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
}

export const CHART_REASON = "rendered from a Helm chart: fix the chart's templates or values";
export const PROPOSAL_REASON = 'a proposal, not a safe repair: review it and apply it with --fix-proposals';
const DEFAULT_MAX_PASSES = 5;

interface FileState {
  source: Source;
  bom: string;
  /** Current text without the BOM. */
  text: string;
  applied: AppliedFix[];
  /** Why this file is no longer edited, once a fix could not be written safely. */
  refused?: string;
}

/** Remembers which object each fix was reported for (the Finding carries only its ref). */
function tracking(rule: Rule, owner: Map<Fix, KObject>): Rule {
  return {
    meta: rule.meta,
    check(ctx) {
      rule.check({
        ...ctx,
        report(r) {
          if (r.fix) owner.set(r.fix, r.object);
          ctx.report(r);
        },
      });
    },
  };
}

function fixKey(f: Finding): string {
  const o = f.object;
  return `${f.ruleId}\u0000${f.file}\u0000${o.kind}/${o.namespace ?? ''}/${o.name}\u0000${f.pointer}\u0000${f.fix?.description ?? ''}`;
}

function overlaps(a: string[], b: string[]): boolean {
  return isUnder(a, b) || isUnder(b, a);
}

/** The document's value as Kubernetes reads it (YAML 1.1, merge keys: lib/model/yaml11). */
function toJs(doc: Document): { value?: unknown; failed?: boolean } {
  const r = k8sValue(doc);
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

/** What one pass did to one file: the edited documents, their edits, and new documents. */
interface FileEdits {
  edited: Map<number, DocEdit[]>;
  pending: Map<number, PendingDoc>;
}

/**
 * Writes edited documents back into the file text. Documents without edits are copied byte for
 * byte (each document's slice runs from the end of the previous one, so `---`, directives and
 * leading comments go with it); edited ones come from renderDoc; new objects follow their
 * document. The whole result is re-parsed and compared with the intended documents.
 */
function renderFile(text: string, original: Document.Parsed[], work: Document[], { edited, pending }: FileEdits): { text: string } | { error: string } {
  const eol = dominantEol(text);
  const toEol = (s: string) => (eol === '\n' ? s : s.replace(/\r?\n/g, eol));
  const parts: string[] = [];
  let start = 0;
  const expected: { value?: unknown; broken: boolean }[] = [];
  for (let i = 0; i < original.length; i++) {
    const end = i === original.length - 1 ? text.length : Math.max(start, original[i].range[2]);
    const from = start;
    let seg = text.slice(from, end);
    start = end;
    const next = original[i + 1];
    const edits = edited.get(i);
    if (edits) {
      const r = renderDoc(text, from, end, original[i], work[i], edits, eol);
      if ('error' in r) return r;
      seg = r.text;
    }
    expected.push(original[i].errors.length ? { broken: true } : { value: toJs(work[i]).value, broken: false });
    parts.push(seg);
    const adds = pending.get(i)?.added ?? [];
    if (adds.length) {
      if (parts.length && !/\n$/.test(parts[parts.length - 1])) parts.push(eol);
      const style = detectStyle(seg);
      for (const v of adds) {
        parts.push(toEol('---\n' + new Document(v, { version: '1.1' }).toString(style)));
        expected.push({ value: v, broken: false });
      }
      // A following document that relied on `...` to start needs its own `---` now.
      if (next && !next.directives.docStart && !/^\s*(#[^\n]*\n\s*)*---/.test(text.slice(start))) parts.push('---' + eol);
    }
  }
  let out = parts.join('');
  if (!text.endsWith('\n') && out.endsWith('\n')) out = out.replace(/\r?\n$/, '');
  if (text.endsWith('\n') && !out.endsWith('\n')) out += eol;
  // The whole file must read back as exactly the intended documents.
  const back = Array.from(parseAllDocuments(out, { prettyErrors: false, uniqueKeys: false }) as Iterable<Document.Parsed>);
  if (back.length !== expected.length) return { error: `the fixed file would hold ${back.length} documents instead of ${expected.length}` };
  for (let i = 0; i < back.length; i++) {
    const e = expected[i];
    if (e.broken) continue;
    if (back[i].errors.length) return { error: `document ${i + 1} would not parse after the fix: ${back[i].errors[0].message.split('\n')[0]}` };
    if (!sameValue(toJs(back[i]).value, e.value)) return { error: `document ${i + 1} would not read back as the fixed values` };
  }
  return { text: out };
}

/**
 * One edited document. First the edits as text operations in place (every other byte stays);
 * when they cannot express the edit, a line-wise merge of yaml's rendering into the original
 * (with the detected style, the other sequence indentation, and per region the better of the
 * two, since real files mix both), else yaml's rendering of the whole document. Each candidate
 * must parse back to the fixed values and keep every comment; the one changing fewest lines wins.
 */
function renderDoc(text: string, from: number, to: number, orig: Document.Parsed, work: Document, edits: DocEdit[], eol: string): { text: string } | { error: string } {
  const seg = text.slice(from, to);
  const want = toJs(work).value;
  const toEol = (t: string) => (eol === '\n' ? t : t.replace(/\n/g, eol));
  type Candidate = { text?: string; before: string; after: string };
  let surgical: () => Candidate;
  let others: () => Candidate[];
  if (isJsonText(seg.replace(/^(\s*(---|#)[^\n]*\n)*/, ''))) {
    // JSON stays JSON: yaml would render new keys unquoted inside the flow mapping.
    const ind = jsonIndent(seg);
    const lead = /^(\s*---[^\n]*\n)?/.exec(seg)![0].replace(/\r/g, '');
    const before = lead + JSON.stringify(toJs(orig).value, null, ind) + '\n';
    const after = lead + JSON.stringify(want, null, ind) + '\n';
    surgical = () => ({ text: surgicalEdit(text, from, to, orig, edits, { ...detectStyle(seg), flowCollectionPadding: false }, eol), before, after });
    others = () => [
      { text: mergeEdit(seg, before, after, eol), before, after },
      { text: toEol(after), before, after },
    ];
  } else {
    const style = detectStyle(seg);
    const render = (st: typeof style) => ({ before: orig.toString(st), after: work.toString(st) });
    let main: { before: string; after: string };
    try {
      main = render(style);
    } catch {
      // yaml cannot render this document (an exotic tag, say): only in-place edits remain, and
      // they must then keep every comment of the original.
      main = { before: seg, after: seg };
    }
    surgical = () => ({ text: surgicalEdit(text, from, to, orig, edits, style, eol), ...main });
    others = () => {
      const variants = [main, render({ ...style, indentSeq: !style.indentSeq })];
      return [
        ...variants.map((v) => ({ text: mergeEdit(seg, v.before, v.after, eol), ...v })),
        // Comments the edit dropped are judged against the detected style's renderings.
        { text: mergeEditMixed(seg, variants, eol), ...main },
        { text: toEol(main.after), ...main },
      ];
    };
  }
  let problem = 'it could not be rendered';
  const check = (c: Candidate): boolean => {
    if (c.text === undefined) return false;
    const docs = Array.from(parseAllDocuments(c.text, { prettyErrors: false, uniqueKeys: false }) as Iterable<Document.Parsed>).filter((d) => d.contents !== null || d.errors.length);
    if (docs.length !== 1 || docs[0].errors.length) {
      problem = 'the result would not parse';
      return false;
    }
    if (!sameValue(toJs(docs[0]).value, want)) {
      problem = 'the result would not read back as the fixed values';
      return false;
    }
    const lost = lostComments(seg, c.before, c.after, c.text);
    if (lost.length) {
      problem = `the comment "${lost[0]}" would be lost`;
      return false;
    }
    return true;
  };
  // In-place text edits change only the edited lines: nothing can do better.
  const first = surgical();
  if (check(first)) return { text: first.text! };
  let best: { text: string; cost: number } | undefined;
  let rest: Candidate[];
  try {
    rest = others();
  } catch (e) {
    rest = [];
    problem = `yaml cannot render it (${(e as Error).message.split('\n')[0]})`;
  }
  for (const c of rest) {
    if (!check(c)) continue;
    const cost = changedLineCount(seg, c.text!);
    if (!best || cost < best.cost) best = { text: c.text!, cost };
  }
  return best ? { text: best.text } : { error: problem };
}

/**
 * Lints the sources together, applies the fixes of unsuppressed findings (safe ones, plus
 * proposals when asked) to the YAML documents, and repeats until nothing more applies.
 */
export function fixSources(sources: Source[], opts: FixOptions): FixResult {
  const maxPasses = opts.maxPasses ?? DEFAULT_MAX_PASSES;
  const states: FileState[] = sources.map((s) => {
    const bom = s.text.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
    return { source: s, bom, text: s.text.slice(bom.length), applied: [] };
  });
  const byFile = new Map(states.map((s, i) => [s.source.file, i]));
  const fileOrder = sources.map((s) => s.file);
  const failed = new Map<string, string>();
  const noop = new Set<string>();
  let passes = 0;
  let converged = false;
  let skipped: SkippedFix[] = [];

  for (;;) {
    const parsed: ParsedFile[] = states.map((s) => parseText(s.source.file, s.text));
    const owner = new Map<Fix, KObject>();
    const rules = opts.rules.map((r) => tracking(r, owner));
    const findings = sortFindings(
      runRules(
        parsed.flatMap((p) => p.objects),
        { rules, policy: opts.policy, version: opts.version },
      ),
      fileOrder,
    );
    skipped = [];
    const todo: { f: Finding; fix: Fix; obj: KObject; file: number }[] = [];
    for (const f of findings) {
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
      if (reason) skipped.push({ finding: f, reason });
      else todo.push({ f, fix: f.fix, obj: obj!, file: file! });
    }
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
    for (const t of todo) groups.set(t.file, [...(groups.get(t.file) ?? []), t]);
    for (const [fi, items] of groups) {
      const st = states[fi];
      const p = parsed[fi];
      const work: Document[] = [...p.docs];
      const edited = new Map<number, DocEdit[]>();
      const busy = new Map<number, string[][]>();
      const pending = new Map<number, PendingDoc>();
      const addedKeys = new Set<string>();
      const appliedHere: AppliedFix[] = [];
      const json = isJsonText(st.text);
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
        try {
          if (paths.some((x) => isUnder(x, [...base, 'spec', 'selector']))) throw new FixError('fixes never edit spec.selector (immutable in apps/v1)');
          if (adds.length && json) throw new FixError('cannot add an object to a JSON file; add it by hand or convert the file to YAML');
          const clone = work[d].clone();
          const before = toJs(work[d]).value;
          const res = applyEdits(clone, obj.basePointer, fix.edits);
          const after = toJs(clone);
          if (after.failed) throw new FixError('the edited document could not be read back');
          // Items that only moved up a sequence (an earlier item was removed) are compared with the
          // items they were, so the shift alone is no change, but a changed shifted item is.
          const outside = changedPathsShifted(before, after.value, res.shifts).filter((x) => !res.touched.some((t) => isUnder(x, t)));
          if (outside.length) throw new FixError(`the edit would also change /${outside[0].join('/')} (shared through a YAML anchor or merge key); fix it by hand`);
          if (!res.changed && !adds.length) {
            noop.add(key);
            continue;
          }
          work[d] = clone;
          if (res.changed) {
            const list = edited.get(d) ?? [];
            for (const e of fix.edits) if (e.op !== 'add-object') list.push({ op: e.op, segs: pointerSegments(obj.basePointer + e.pointer), value: e.op === 'remove' ? undefined : e.value });
            edited.set(d, list);
          }
          busy.set(d, [...(busy.get(d) ?? []), ...res.claimed]);
          if (adds.length) {
            const pd = pending.get(d) ?? { added: [] };
            pd.added.push(...adds);
            pending.set(d, pd);
            addKeys.forEach((k) => addedKeys.add(k));
          }
          appliedHere.push({ ruleId: f.ruleId, file: f.file, object: f.object, description: fix.description, safety: fix.safety, line: f.line, edits: fix.edits });
        } catch (e) {
          if (!(e instanceof FixError)) throw e;
          failed.set(key, `cannot apply the fix: ${e.message}`);
        }
      }
      if (!appliedHere.length) continue;
      const r = renderFile(st.text, p.docs, work, { edited, pending });
      if ('error' in r) {
        st.refused = `the fix was not written because ${r.error}; apply it by hand`;
        continue;
      }
      // Lines found on the text before this pass move with what the pass inserted and removed.
      const moved = lineMapping(st.text, r.text);
      for (const a of [...st.applied, ...appliedHere]) a.line = moved(a.line);
      st.text = r.text;
      st.applied.push(...appliedHere);
    }
  }

  const files: FixedFile[] = states.map((s) => {
    const ff: FixedFile = { file: s.source.file, original: s.source.text, text: s.applied.length ? s.bom + s.text : s.source.text, applied: s.applied };
    if (s.source.path !== undefined) ff.path = s.source.path;
    return ff;
  });
  return { files, skipped, passes, converged };
}

/** A unified diff with `a/` and `b/` headers and 3 lines of context (as git); empty when nothing changed. */
export function unifiedDiff(file: string, before: string, after: string): string {
  if (before === after) return '';
  // git-style headers; an absolute path must not turn into `a//abs`.
  const name = file.replace(/^\/+/, '');
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY, context: 3 });
}

