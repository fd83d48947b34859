/**
 * detectStyle's pattern counts (format.ts matchCount) found from the rare characters of each
 * pattern are exactly the counts of the regular expressions' global matches: on random texts
 * of the characters that matter (brackets, quotes, indicators, every kind of white space), and on
 * the corpus documents.
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { DOUBLE, matchCount, PADDED, SINGLE, TIGHT } from '../../lib/fix/format';

const PATTERNS = [PADDED, TIGHT, SINGLE, DOUBLE];
const regexCount = (t: string, re: RegExp) => (t.match(new RegExp(re.source, 'g')) ?? []).length;

describe('detectStyle pattern counts', () => {
  test('random texts: the same counts as the regular expressions', () => {
    const unit = fc.constantFrom('{', '[', ']', '}', "'", '"', ':', '-', ' ', '  ', '\t', '\n', '\r', '\u00a0', '\u2028', '\u3000', '\ufeff', 'a', 'x: ', '- ', '#');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (t) => {
        for (const re of PATTERNS) expect([re.source, matchCount(t, re)]).toEqual([re.source, regexCount(t, re)]);
      }),
      { numRuns: 3000, seed: 11 },
    );
  });

  test('dense texts of the patterns\' own characters, and overlapping cases', () => {
    const unit = fc.constantFrom('{', '[', ']', ' ', "'", ':', '-', '\n', 'a');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (t) => {
        for (const re of PATTERNS) expect([re.source, matchCount(t, re)]).toEqual([re.source, regexCount(t, re)]);
      }),
      { numRuns: 3000, seed: 12 },
    );
    for (const t of ['[ [ a', '[[a', '{{}', ": ' '", "-  \n'x'", ": -  '", '[ ', '[', "'", ":'"]) {
      for (const re of PATTERNS) expect([t, re.source, matchCount(t, re)]).toEqual([t, re.source, regexCount(t, re)]);
    }
  });

  test('the corpus: the same counts as the regular expressions', () => {
    const dir = path.resolve(__dirname, '../../../shared/corpus/rendered');
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
      const t = fs.readFileSync(path.join(dir, f), 'utf8');
      for (const re of PATTERNS) expect([f, re.source, matchCount(t, re)]).toEqual([f, re.source, regexCount(t, re)]);
    }
  });
});
