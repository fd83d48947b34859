/**
 * What @bufbuild/cel 0.6.1 implements of the CEL the Kubernetes API server offers
 * (k8s.io/apiserver/pkg/cel/environment base.go: standard CEL, ext.Strings v2 from 1.29, optional
 * types, the Kubernetes list/regex/quantity/... libraries, sets, two-variable comprehensions). The
 * exported policies use only the "supported" column; this test pins the survey, so a new version
 * of the evaluator that changes it is noticed.
 */
import { CelInput, isCelError, run } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

const o = new Map<string, unknown>([
  ['n', 3n],
  ['list', [1n, 2n]],
  ['name', 'sleep 10'],
  ['m', new Map([['a', 'x']])],
]);

function ev(expr: string): unknown {
  const r = run(expr, { o: o as unknown as CelInput }, { funcs: strings });
  return isCelError(r) ? 'error' : r;
}

describe('@bufbuild/cel 0.6.1 against the Kubernetes CEL environment', () => {
  test.each([
    ['has(o.m.a) && !has(o.m.b)', true],
    ["o.list.exists(x, x > 1) && o.list.all(x, x > 0) && o.list.exists_one(x, x == 1)", true],
    ['size(o.list.map(x, x * 2).filter(x, x > 2)) == 1', true],
    ["o.name.matches('^sleep [0-9]+$')", true],
    ["'a,b '.split(',').map(s, s.trim()) == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b'", true],
    ["'AbC'.lowerAscii() == 'abc' && 'abc'.substring(1) == 'bc' && 'abc'.indexOf('c') == 2 && 'a\\tb'.replace('\\t', ' ') == 'a b'", true],
    ["double('1.5') == 1.5 && int('10') == 10 && int(1.9) == 1", true],
    ["duration('1m30s').getSeconds() == 90", true],
    ["[o.n].map(v, v * v)[0] == 9", true],
    ["{'a': dyn(1), 'b': dyn('x')}.b == 'x'", true],
    ['1 < 1.5 && 1 == 1.0', true],
    // Used by the catalog readings: lastIndexOf (strings v2), \\u escapes, inline RE2 flags.
    ["'reg:5000/app:1'.lastIndexOf(':') == 12 && 'a/b'.lastIndexOf('/') == 1 && size('\\u001f') == 1", true],
    ["'Metrics'.matches('(?i)^metrics$') && !'Metrics'.matches('^metrics$')", true],
  ])('supported: %s', (expr, want) => {
    expect(ev(expr)).toBe(want);
  });

  test.each([
    ['optional field selection', "o.m.?b.orValue('d')"],
    ['optional index', 'o.list[?5].orValue(0)'],
    ['cel.bind', 'cel.bind(x, 2, x * x)'],
    ['two-variable comprehension', 'o.list.all(i, v, v > 0)'],
    ['Kubernetes list library: sum', '[1, 2].sum()'],
    ['Kubernetes list library: max', '[1, 2].max()'],
    ['Kubernetes regex library: find', "'abc'.find('b')"],
    ['Kubernetes quantity library', "quantity('1Gi')"],
    ['math extension', 'math.greatest(1, 2)'],
    ['sets extension', 'sets.contains([1, 2], [1])'],
    ['RE2 refuses lookahead (as the API server does)', "'abc'.matches('(?!a)b')"],
  ])('not supported: %s', (_what, expr) => {
    expect(ev(expr)).toBe('error');
  });

  test('duration.getMilliseconds() differs from cel-go (field, not total): not used', () => {
    // cel-go: int64(d.Milliseconds()) = 1500 (cel-go common/types/duration.go DurationGetMilliseconds).
    expect(ev("duration('1.5s').getMilliseconds()")).toBe(500n);
  });

  test('a JSON number is a double unless given as a bigint (the evaluator harness converts integers)', () => {
    expect(ev('o.n + 1')).toBe(4n);
    expect(isCelError(run('x + 1', { x: 3 }, { funcs: strings }))).toBe(true);
  });
});
