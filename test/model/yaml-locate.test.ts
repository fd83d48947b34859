/**
 * yaml-locate.ts keeps what it has read of each block mapping and sequence, so that locating many
 * members of one document walks its lines once. Those memos must not change an answer: every
 * lookup, in any order after any others, gives what a locator that has read nothing gives (the
 * walk from the first entry). fast-yaml.test.ts compares the answers with parse.ts's locateNode.
 */
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { pointerSegments } from '../../lib/model/parse';
import { TextLocator, UNSURE } from '../../lib/model/yaml-locate';
import { pointers } from '../helpers/parse-compare';
import { mutated } from '../helpers/yaml-inputs';

/** The first document of `text`: its end and the offset of its first content line (the root node). */
function firstDocument(text: string): { root: number; end: number } | undefined {
  const second = /\n---(?=[ \t\r\n]|$)/.exec(text.slice(3));
  const end = second ? second.index + 4 : text.length;
  const m = /^(?![ \t]*(?:#|---|$))[ \t]*(\S)/m.exec(text.slice(0, end));
  return m ? { root: m.index + m[0].length - 1, end } : undefined;
}

/** Pointers to look up: every node of the value yaml reads (when it reads one), keys seen in the text, and keys that are nowhere. */
function lookups(text: string): string[][] {
  const out: string[] = [];
  try {
    const doc = parseAllDocuments(text, { uniqueKeys: false })[0] as { toJS?: () => unknown } | undefined;
    const v = doc?.toJS?.();
    if (v && typeof v === 'object') out.push(...pointers(v as never));
  } catch {
    // not readable: the keys in the text serve
  }
  const keys = [...text.matchAll(/^[ \t-]*([A-Za-z0-9_.'"-]+):/gm)].map((m) => m[1].replace(/^['"]|['"]$/g, ''));
  for (const k of keys.slice(0, 30)) out.push(`/${k}`, `/spec/${k}`, `/metadata/${k}`, `/spec/template/spec/containers/0/${k}`);
  out.push('/nowhere', '/spec/nowhere', '/spec/template/spec/containers/5/name', '/metadata/labels/nowhere');
  return out.map(pointerSegments);
}

function sameAsFresh(text: string, order: number[]): void {
  const doc = firstDocument(text);
  if (!doc) return;
  const all = lookups(text);
  const shared = new TextLocator(text, 0, doc.end);
  for (const i of order.length ? order.map((k) => k % all.length) : all.map((_, k) => k)) {
    const segs = all[i];
    const want = new TextLocator(text, 0, doc.end).locate(doc.root, segs);
    const got = shared.locate(doc.root, segs);
    if (got !== want) throw new Error(`/${segs.join('/')}: ${got} after earlier lookups, ${want} from a fresh locator, in:\n${text}`);
  }
}

describe('TextLocator: remembered entries never change an answer', () => {
  test('a mapping with an entry it cannot read: keys before it are found, keys after it and missing keys are UNSURE, in any order', () => {
    const text = 'a: 1\nb:\n  c: 2\n  d: 3\n&x e: 4\nf: 5\n';
    const loc = new TextLocator(text, 0, text.length);
    const fresh = (segs: string[]) => new TextLocator(text, 0, text.length).locate(0, segs);
    expect(fresh(['f'])).toBe(UNSURE);
    expect(fresh(['missing'])).toBe(UNSURE);
    expect(fresh(['b', 'd'])).toBe(text.indexOf('d:'));
    // The same through one locator, the walk stopped at the anchored key first.
    expect(loc.locate(0, ['f'])).toBe(UNSURE);
    expect(loc.locate(0, ['b', 'd'])).toBe(text.indexOf('d:'));
    expect(loc.locate(0, ['b', 'missing'])).toBe(text.indexOf('b:'));
    expect(loc.locate(0, ['missing'])).toBe(UNSURE);
    expect(loc.locate(0, ['a'])).toBe(0);
  });

  test('a mapping with a tab-indented line after some entries, and one with equal keys (the first is the one found)', () => {
    const tab = 'a: 1\nb: 2\n\tc: 3\nd: 4\n';
    const loc = new TextLocator(tab, 0, tab.length);
    expect(loc.locate(0, ['b'])).toBe(tab.indexOf('b:'));
    expect(loc.locate(0, ['d'])).toBe(UNSURE);
    expect(loc.locate(0, ['a'])).toBe(0);
    expect(loc.locate(0, ['zz'])).toBe(UNSURE);
    const dup = 'a: 1\nb: 2\na: 3\n';
    const l2 = new TextLocator(dup, 0, dup.length);
    expect(l2.locate(0, ['b'])).toBe(dup.indexOf('b:'));
    expect(l2.locate(0, ['a'])).toBe(0);
    expect(l2.locate(0, ['zz'])).toBe(0);
  });

  test('mutated manifests: every lookup in a random order gives what a fresh locator gives', () => {
    fc.assert(
      fc.property(mutated, fc.array(fc.nat(), { maxLength: 80 }), (text, order) => sameAsFresh(text, order)),
      { numRuns: 150 },
    );
  });
});
