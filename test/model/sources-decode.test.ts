/**
 * A utf8Source's text decoded from its Latin-1 reading (run by run of non-ASCII bytes) is exactly
 * its bytes decoded as UTF-8: kept or released bytes, few or many runs, 2- to 4-byte sequences.
 */
import fc from 'fast-check';
import { latin1Of, utf8Source } from '../../lib/model/sources';

function decoded(text: string, release: boolean): string {
  const bytes = Buffer.from(text, 'utf8');
  const src = utf8Source('f.yaml', bytes);
  latin1Of(src, release);
  return src.text;
}

describe('utf8Source text from the Latin-1 reading', () => {
  const texts = [
    '',
    'a: 1\n',
    'name: café\nb: ü\n',
    'x: "😀 emoji"\ny: 中文\n',
    'é',
    'a\u0080b\u07ffc\u0800d\uffff\n',
    // Many short runs (beyond one per 4 KiB): the whole bytes are decoded instead.
    Array.from({ length: 5000 }, (_, i) => `k${i}: 值${i} é\n`).join(''),
    `${'x'.repeat(70000)}ä${'y'.repeat(70000)}`,
  ];
  test.each(texts.map((t, i) => [i, t]))('text %i', (_, t) => {
    expect(decoded(t, false)).toBe(t);
    expect(decoded(t, true)).toBe(t);
  });

  test('any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', 'é', 'ß', '中', '😀', '\u0080', '\u07ff', '\u0800') }), (t) => {
        expect(decoded(t, false)).toBe(t);
      }),
      { numRuns: 500, seed: 3 },
    );
  });
});
