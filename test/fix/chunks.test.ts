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
import { CHUNKED_FROM, lineChunks } from '../../lib/fix/chunks';
import { chunkedDiff, detectStyle, lineTexts, splitLines } from '../../lib/fix/format';
import { ALL_RULES } from '../../lib/rules';

const RENDERED = path.resolve(__dirname, '../../../shared/corpus/rendered');
const RUNS = Math.ceil(Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 60) / 5);

/** The corpus rendered files, as one stream of documents (namespaced copies, as the bench makes). */
function stream(copies: number): string {
  const files = fs.existsSync(RENDERED) ? fs.readdirSync(RENDERED).filter((f) => f.endsWith('.yaml')).sort() : [];
  const docs = files.flatMap((f) => fs.readFileSync(path.join(RENDERED, f), 'utf8').split(/^---[^\n]*\n/m).filter((d) => /^kind:/m.test(d) && !/^(\.\.\.|%)/m.test(d)));
  const out: string[] = [];
  for (let c = 0; c < copies; c++) for (const d of docs) out.push(d.replace(/^(  namespace: .*)$/m, `$1-${c}`).replace(/\n?$/, '\n'));
  return out.join('---\n');
}

function whole(file: string, a: string, b: string): string {
  return a === b ? '' : createTwoFilesPatch(`a/${file}`, `b/${file}`, a, b, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY, context: 3 });
}

function same(a: string, b: string): void {
  const A = splitLines(a).map((l) => l.text);
  const B = splitLines(b).map((l) => l.text);
  expect(unifiedDiff('f.yaml', a, b)).toBe(whole('f.yaml', a, b));
  expect(chunkedDiff(a, b, A, B, 4000)).toEqual(diffArrays(A, B, { maxEditLength: 4000 }));
  expect(chunkedDiff(b, a, B, A, 4000)).toEqual(diffArrays(B, A, { maxEditLength: 4000 }));
}

const BIG = stream(1);

describe('dry-run diffs in parts', () => {
  test('the stream is large enough to be diffed in parts', () => {
    expect(splitLines(BIG).length).toBeGreaterThan(CHUNKED_FROM * 2);
  });

  test('the corpus stream fixed (with proposals): the whole-file diffs, from parts', () => {
    const policy = loadPolicy('recommended', ALL_RULES);
    const r = fixSources([{ file: 'f.yaml', text: BIG }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.33'), proposals: true });
    const fixed = r.files[0].text;
    expect(r.files[0].applied.length).toBeGreaterThan(50);
    expect(lineChunks(BIG, fixed)!.chunks.length).toBeGreaterThan(20);
    same(BIG, fixed);
  });

  test('random edits of the stream: the whole-file diffs, from parts', () => {
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
});

test('lineTexts is splitLines without Line objects', () => {
  for (const t of ['', '\n', 'a', 'a\n', 'a\r\n', 'a\r', 'a\r\nb\rc\n\n', '\r\n\r\n', 'x\n\r', BIG.slice(0, 5000)]) expect(lineTexts(t)).toEqual(splitLines(t).map((l) => l.text));
});
