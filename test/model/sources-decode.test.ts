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
    // Runs on both sides of and across the 64 KiB blocks whose bytes are checked for ASCII at once.
    ...[65534, 65535, 65536, 65537, 131070].map((n) => `${'a'.repeat(n)}日本é${'b'.repeat(10)}ü${'c'.repeat(65536)}😀`),
    `${'é'.repeat(40000)}${'d'.repeat(100000)}ß`,
  ];
  test.each(texts.map((t, i) => [i, t]))('text %i', (_, t) => {
    expect(decoded(t, false)).toBe(t);
    expect(decoded(t, true)).toBe(t);
  });

  test('runs at any offset, with long ASCII stretches between them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(140000), fc.constantFrom('é', '中文', '😀', 'ßß')), { maxLength: 6 }), (runs) => {
        const t = runs.map(([n, r]) => 'x'.repeat(n) + r).join('');
        expect(decoded(t, false)).toBe(t);
        expect(decoded(t, true)).toBe(t);
      }),
      { numRuns: 60, seed: 5 },
    );
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
