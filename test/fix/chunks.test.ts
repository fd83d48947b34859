/**
 * --fix-dry-run diffs large files in parts (lib/fix/chunks.ts): the printed diff and the line
 * diff behind the position mapping must be exactly the whole-file diffs (jsdiff), over fixed
 * corpus streams and random edits of them (edited, added, removed and duplicated documents,
 * lines changed inside documents, blocks that could slide over equal lines).
 */
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { createTwoFilesPatch, diffArrays, FILE_HEADERS_ONLY } from 'diff';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources, unifiedDiff } from '../../lib/fix';
import { CHUNKED_FROM, forcedAlignment, lineChunks, lineChunksBoth } from '../../lib/fix/chunks';
import { chunkedDiff, detectStyle, lineTexts, positionMapping, splitLines, TextPosition } from '../../lib/fix/format';
import { ALL_RULES } from '../../lib/rules';
import { expectEqual } from '../helpers/equal';

const RENDERED = path.resolve(__dirname, '../../../shared/corpus/rendered');
const RUNS = Math.ceil(Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 60) / 5);

/** The corpus rendered files, as one stream of documents (namespaced copies, as the bench makes). */
function stream(copies: number): string {
  const files = fs.existsSync(RENDERED) ? fs.readdirSync(RENDERED).filter((f) => f.endsWith('.yaml')).sort() : [];
  const docs = files.flatMap((f) => fs.readFileSync(path.join(RENDERED, f), 'utf8').split(/^---[^\n]*\n/m).filter((d) => /^kind:/m.test(d) && !/^(\.\.\.|%)/m.test(d)));
  const out: string[] = [];
  // The suffix goes inside the namespace's quotes: `namespace: "argocd"-0` is not YAML (84 of the
  // stream's 869 documents were syntax errors, and the whole stream took the slow path).
  const suffixed = (d: string, c: number) => d.replace(/^(  namespace: )(["']?)(.*?)\2([ \t]*)$/m, (_m, key: string, q: string, ns: string, blank: string) => `${key}${q}${ns}-${c}${q}${blank}`);
  for (let c = 0; c < copies; c++) for (const d of docs) out.push(suffixed(d, c).replace(/\n?$/, '\n'));
  return out.join('---\n');
}

function whole(file: string, a: string, b: string): string {
  return a === b ? '' : createTwoFilesPatch(`a/${file}`, `b/${file}`, a, b, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY, context: 3 });
}

/** positionMapping as it was before it mapped from parts: one diff of the whole texts' lines. */
function referenceMapping(
  fixed: string,
  original: string,
  parts: ReturnType<typeof diffArrays<string>> | undefined | null = diffArrays(lineTexts(fixed), lineTexts(original), { maxEditLength: 4000 }),
): (p: TextPosition) => TextPosition {
  const O = lineTexts(original);
  const lastLine = Math.max(1, O.length);
  const F = lineTexts(fixed);
  if (!parts) return (p) => ({ line: Math.min(p.line, lastLine), column: p.line <= lastLine ? p.column : 1 });
  const map: { line: number; kept: boolean }[] = [];
  let io = 0;
  let changeStart: number | undefined;
  for (const p of parts) {
    const n = p.count ?? p.value.length;
    if (!p.added && !p.removed) {
      changeStart = undefined;
      for (let k = 0; k < n; k++) map.push({ line: io + k + 1, kept: true });
      io += n;
      continue;
    }
    if (changeStart === undefined) changeStart = io;
    if (p.added) io += n;
    else for (let k = 0; k < n; k++) map.push({ line: Math.min(changeStart + 1, lastLine), kept: false });
  }
  return (p) => {
    const m = map[p.line - 1];
    if (!m) return { line: Math.min(p.line, lastLine), column: 1 };
    if (m.kept) return { line: m.line, column: p.column };
    const prefix = (F[p.line - 1] ?? '').slice(0, p.column - 1);
    const o = O[m.line - 1] ?? '';
    const first = /\S/.exec(o);
    return { line: m.line, column: o.startsWith(prefix) ? p.column : first ? first.index + 1 : 1 };
  };
}

/** Positions on every line of `fixed` (and past it), at one of a few columns. */
function positions(fixed: string): TextPosition[] {
  const n = lineTexts(fixed).length;
  const out: TextPosition[] = [];
  for (let line = 0; line <= n + 2; line++) out.push({ line, column: [1, 3, 9, 40][line % 4] });
  return out;
}

function same(a: string, b: string): void {
  const A = splitLines(a).map((l) => l.text);
  const B = splitLines(b).map((l) => l.text);
  const patch = whole('f.yaml', a, b);
  expect(unifiedDiff('f.yaml', a, b)).toBe(patch);
  // (expectEqual: jest's toEqual walked every line of every part, and cost more than the diffs.)
  expectEqual(chunkedDiff(a, b, A, B, 4000), diffArrays(A, B, { maxEditLength: 4000 }));
  const backward = diffArrays(B, A, { maxEditLength: 4000 });
  expectEqual(chunkedDiff(b, a, B, A, 4000), backward);
  // The documents' alignment without diffArrays, and the mirrored plan of the dry run.
  // (Compared as JSON: jest's deep equality is slow on arrays of every line's offset.)
  const both = lineChunksBoth(a, b);
  expect(JSON.stringify(both.forward)).toBe(JSON.stringify(lineChunks(a, b, { forced: false })));
  expect(JSON.stringify(both.backward)).toBe(JSON.stringify(lineChunks(b, a, { forced: false })));
  expect(unifiedDiff('f.yaml', a, b, { chunks: both.forward })).toBe(patch);
  // The position mapping from parts: the whole-file mapping's, at every line.
  const ref = referenceMapping(b, a, backward);
  const got = positionMapping(b, a, { chunks: both.backward });
  const ps = positions(b);
  expect(JSON.stringify(ps.map(got))).toBe(JSON.stringify(ps.map(ref)));
}

const BIG = stream(1);

describe('dry-run diffs in parts', () => {
  test('the stream is large enough to be diffed in parts', () => {
    expect(splitLines(BIG).length).toBeGreaterThan(CHUNKED_FROM * 2);
  });

  test('the corpus stream fixed (with proposals): the whole-file diffs and position mapping, from parts', () => {
    const policy = loadPolicy('recommended', ALL_RULES);
    const r = fixSources([{ file: 'f.yaml', text: BIG }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.33'), proposals: true });
    const fixed = r.files[0].text;
    expect(r.files[0].applied.length).toBeGreaterThan(50);
    expect(lineChunks(BIG, fixed)!.chunks.length).toBeGreaterThan(20);
    same(BIG, fixed);
    // Its documents are aligned without diffArrays.
    const docs = (t: string) => t.split(/^(?=---(?:[ \t\r\n]|$))/m);
    const ids = new Map<string, number>();
    const id = (d: string) => ids.get(d) ?? (ids.set(d, ids.size), ids.size - 1);
    expect(forcedAlignment(docs(BIG).map(id), docs(fixed).map(id))).toBeDefined();
    // Some line moved by the fix maps back to another line number (the mapping did not give up).
    const map = positionMapping(fixed, BIG);
    expect(positions(fixed).some((p) => p.line > 0 && map(p).line !== p.line)).toBe(true);
  });

  test('random edits of the stream: the whole-file diffs and position mapping, from parts', () => {
    const docs = BIG.split(/^(?=---\n)/m);
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom('insert-line', 'delete-line', 'change-line', 'add-doc', 'dup-doc', 'drop-doc', 'marker-block', 'repeat-block'),
      line: fc.nat(),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 8 }), (edits) => {
        const out = [...docs];
        for (const e of edits) {
          const i = e.at % out.length;
          const lines = out[i].split('\n');
          const l = 1 + (e.line % Math.max(1, lines.length - 1));
          if (e.kind === 'insert-line') lines.splice(l, 0, '  added: line');
          else if (e.kind === 'delete-line') lines.splice(l, 1);
          else if (e.kind === 'change-line') lines[l] = `${lines[l]}x`;
          if (['insert-line', 'delete-line', 'change-line'].includes(e.kind)) out[i] = lines.join('\n');
          else if (e.kind === 'add-doc') out.splice(i + 1, 0, '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: x\n');
          else if (e.kind === 'dup-doc') out.splice(i + 1, 0, out[i].startsWith('---') ? out[i] : `---\n${out[i]}`);
          else if (e.kind === 'drop-doc' && out.length > 2) out.splice(i, 1);
          // A block whose lines equal the lines around it: it could be placed in several ways.
          else if (e.kind === 'marker-block') out.splice(i + 1, 0, '---\n');
          else if (e.kind === 'repeat-block') out[i] = out[i].replace(/\n$/, `\n${lines.slice(-4, -1).join('\n')}\n`);
        }
        same(BIG, out.join(''));
      }),
      { numRuns: RUNS, seed: Number(process.env.KUBEGRACE_FUZZ_SEED ?? 5) },
    );
  });

  test('forcedAlignment: where it answers, the documents diffArrays pairs are the ones it pairs', () => {
    const equalPairs = (parts: { count?: number; value: number[]; added?: boolean; removed?: boolean }[]) => {
      const out: [number, number][] = [];
      let i = 0;
      let j = 0;
      for (const p of parts) {
        const n = p.count ?? p.value.length;
        if (p.added) j += n;
        else if (p.removed) i += n;
        else for (let k = 0; k < n; k++) out.push([i++, j++]);
      }
      return out;
    };
    let answered = 0;
    fc.assert(
      fc.property(fc.array(fc.nat(12), { maxLength: 30 }), fc.array(fc.nat(12), { maxLength: 30 }), (a, b) => {
        const got = forcedAlignment(a, b);
        if (!got) return;
        answered++;
        expect(equalPairs(got)).toEqual(equalPairs(diffArrays(a, b)));
        expect(got.flatMap((p) => (p.added ? [] : p.value))).toEqual(a);
        expect(got.flatMap((p) => (p.removed ? [] : p.value))).toEqual(b);
      }),
      { numRuns: 500, seed: 7 },
    );
    // Sequences made as a fix makes them (common ones in order, unique ones around): always answered.
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(3), fc.nat(3)), { maxLength: 40 }), (spec) => {
        const a: number[] = [];
        const b: number[] = [];
        let next = 0;
        for (const [common, ra, rb] of spec) {
          if (common) {
            a.push(next % 5);
            b.push(next % 5);
          }
          for (let k = 0; k < ra; k++) a.push(100 + next++);
          for (let k = 0; k < rb; k++) b.push(1000 + next++);
        }
        const got = forcedAlignment(a, b);
        expect(got).toBeDefined();
        expect(equalPairs(got!)).toEqual(equalPairs(diffArrays(a, b)));
      }),
      { numRuns: 300, seed: 8 },
    );
    expect(answered).toBeGreaterThan(5);
  });

  test('a fixed text more than 4000 lines longer: the mapping from parts gives up as the whole-file mapping does', () => {
    const docs = BIG.split(/^(?=---\n)/m);
    const extra = Array.from({ length: 300 }, (_, i) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra-${i}\ndata:\n${'abcdefghij'.split('').map((k) => `  ${k}: "1"\n`).join('')}`).join('');
    const k = docs.length >> 1;
    const fixed = [...docs.slice(0, k), extra, ...docs.slice(k)].join('');
    expect(lineTexts(fixed).length - lineTexts(BIG).length).toBeGreaterThan(4000);
    const both = lineChunksBoth(BIG, fixed);
    expect(both.backward).toBeDefined();
    // The whole-file diff gives up: an edit script needs at least as many edits as the texts differ
    // in lines (> 4000, asserted above), more than maxEditLength 4000. So the reference is the mapping
    // of a diff that gave up, without letting diffArrays explore 4000 edit lengths to find that out
    // (5 s of the suite).
    const ref = referenceMapping(fixed, BIG, null);
    const got = positionMapping(fixed, BIG, { chunks: both.backward });
    const ps = positions(fixed);
    expect(JSON.stringify(ps.map(got))).toBe(JSON.stringify(ps.map(ref)));
  });

  test('small texts are diffed whole', () => {
    expect(lineChunks('a: 1\n', 'a: 2\n')).toBeUndefined();
  });
});

describe('detectStyle', () => {
  /** detectStyle as it was before its quick line checks (lib/fix/format.ts), for comparison. */
  function reference(text: string): unknown {
    const KEY = /^(\s*)(?:-\s+)?[^\s#'"][^#]*?:\s*(?:#.*)?$|^(\s*)(?:-\s+)?(['"]).*\3:\s*(?:#.*)?$/;
    const indentOf = (s: string) => s.length - s.trimStart().length;
    const lines = splitLines(text)
      .map((l) => l.text)
      .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#') && !/^(---|\.\.\.)(\s|$)/.test(l) && !l.startsWith('%'));
    const indents = new Map<number, number>();
    let seqIndented = 0;
    let seqFlush = 0;
    for (let i = 0; i + 1 < lines.length; i++) {
      const cur = lines[i];
      if (!KEY.test(cur) || /[|>][-+0-9]*\s*(#.*)?$/.test(cur)) continue;
      const next = lines[i + 1];
      const dash = /^(\s*)-\s+/.exec(cur);
      const keyCol = dash ? dash[0].length : indentOf(cur);
      const nextCol = indentOf(next);
      if (next.trimStart().startsWith('-')) {
        if (nextCol > keyCol) seqIndented++;
        else if (nextCol === keyCol) seqFlush++;
        if (nextCol > keyCol) indents.set(nextCol - keyCol, (indents.get(nextCol - keyCol) ?? 0) + 1);
      } else if (nextCol > keyCol) indents.set(nextCol - keyCol, (indents.get(nextCol - keyCol) ?? 0) + 1);
    }
    let indent = 2;
    let best = 0;
    for (const [d, n] of [...indents.entries()].sort((a, b) => a[0] - b[0])) {
      if (d >= 1 && d <= 8 && n > best) {
        indent = d;
        best = n;
      }
    }
    const body = lines.join('\n');
    const padded = (body.match(/[{[] [^\s]/g) ?? []).length;
    const tight = (body.match(/[{[][^\s\]}]/g) ?? []).length;
    const single = (body.match(/(?::|-)\s+'/g) ?? []).length;
    const double = (body.match(/(?::|-)\s+"/g) ?? []).length;
    return { indent, indentSeq: seqIndented >= seqFlush ? seqIndented > 0 || seqFlush === 0 : false, lineWidth: 0, minContentWidth: 0, flowCollectionPadding: padded >= tight ? padded > 0 || tight === 0 : false, singleQuote: single > double ? true : null };
  }

  test('the same style as the plain line-by-line reading, over the corpus documents (LF, CRLF, a last CR)', () => {
    let n = 0;
    for (const f of fs.existsSync(RENDERED) ? fs.readdirSync(RENDERED).filter((x) => x.endsWith('.yaml')) : []) {
      const t = fs.readFileSync(path.join(RENDERED, f), 'utf8');
      for (const s of [t, t.replace(/\n/g, '\r\n'), `${t}x\r`, ...t.split(/^(?=---)/m).slice(0, 40)]) {
        expect(detectStyle(s)).toEqual(reference(s));
        n++;
      }
    }
    expect(n).toBeGreaterThan(500);
  });

  test('the same style on lines the quick line check must leave to the plain reading', () => {
    const odd = ['\u00a0# nbsp comment', '\t# tab comment', '  \u3000', '\x1f: x', ' %not: directive', '%YAML 1.1', ' ---', '--- # c', '...', '.not: marker', '-- x', '- a', "  - 'q'", '  k: "d"', '  f: [ a ]', '  g: {b: 1}', '#'];
    const text = (pick: number[]) => ['spec:', ...pick.map((k) => odd[k % odd.length]), '  containers:', '  - name: x', '    args: [ "a", "b" ]', 'meta:', '    deep: 1'].join('\n');
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (pick) => {
        const t = text(pick);
        expect(detectStyle(t)).toEqual(reference(t));
      }),
      { numRuns: 300, seed: 9 },
    );
  });
});

test('lineTexts is splitLines without Line objects', () => {
  for (const t of ['', '\n', 'a', 'a\n', 'a\r\n', 'a\r', 'a\r\nb\rc\n\n', '\r\n\r\n', 'x\n\r', BIG.slice(0, 5000)]) expect(lineTexts(t)).toEqual(splitLines(t).map((l) => l.text));
});
