/**
 * Differential tests: the values Kubernetes reads (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1)
 * against values computed by hand from go-yaml v2.4.2 resolve.go/decode.go and
 * sigs.k8s.io/yaml convertToJSONableObject. Each expectation names the rule that gives it.
 */
import { parseAllDocuments } from 'yaml';
import { parseText } from '../../lib/model/parse';
import { formatFloat32g, k8sValue, resolveScalar } from '../../lib/model/yaml11';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { gracePeriodBudget } from '../../lib/rules/grace-period-budget';
import { servedDeployment } from '../helpers/manifests';
import { cpuMs } from '../helpers/cpu';

function value(text: string): unknown {
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  const r = k8sValue(docs[0]);
  if (r.error) throw r.error;
  return r.value;
}
function failure(text: string): string {
  const r = k8sValue(parseAllDocuments(text, { uniqueKeys: false })[0]);
  return r.error ? r.error.message : 'no error';
}
const plain = (s: string) => {
  const g = resolveScalar(s, true, undefined);
  return g.t === 'null' ? null : g.t === 'int' || g.t === 'uint' || g.t === 'big' ? Number(g.v) : g.v;
};

describe('plain scalars resolve as go-yaml v2 does', () => {
  test.each([
    // resolve table (first character y Y n N t T f F o O ~): booleans and nulls
    ['yes', true], ['Yes', true], ['YES', true], ['y', true], ['Y', true], ['on', true], ['On', true], ['ON', true],
    ['true', true], ['True', true], ['TRUE', true],
    ['no', false], ['No', false], ['NO', false], ['n', false], ['N', false], ['off', false], ['Off', false], ['OFF', false],
    ['false', false], ['False', false], ['FALSE', false],
    ['', null], ['~', null], ['null', null], ['Null', null], ['NULL', null],
    // not in the table: strings (mixed case is not recognised)
    ['yEs', 'yEs'], ['oN', 'oN'], ['nULL', 'nULL'], ['t', 't'], ['f', 'f'], ['o', 'o'],
    // ints: strconv.ParseInt(s without '_', 0, 64) (Go prefixes; leading 0 is octal)
    ['010', 8], ['0o17', 15], ['0O17', 15], ['0b11', 3], ['0B11', 3], ['0x1F', 31], ['0X1f', 31], ['-0x10', -16], ['+010', 8],
    ['0', 0], ['00', 0], ['-0b101', -5], ['1_000', 1000], ['1__0', 10], ['12_', 12], ['0x_1F', 31], ['-_1', -1],
    ['9223372036854775807', 9223372036854775807],
    // ParseUint: 2^63 .. 2^64-1
    ['18446744073709551615', 18446744073709551615],
    // floats: yamlStyleFloat on the text without '_' (an exponent needs no dot), then ParseFloat
    ['1e3', 1000], ['1E3', 1000], ['09', 9], ['08', 8], ['1.', 1], ['1.5', 1.5], ['-1.5e-1', -0.15], ['+.5', 0.5], ['1_0.5', 10.5],
    ['99999999999999999999', 1e20],
    // '.' hint: ParseFloat on the raw text (underscores not removed)
    ['.5', 0.5], ['.5e1', 5], ['.5_0', '.5_0'], ['.', '.'], ['.x', '.x'],
    // big.Int for hex/octal beyond 64 bits
    ['0x10000000000000000', 18446744073709551616],
    // strings: sexagesimal, timestamps, signs alone, leading underscore, hex floats, Go-isms
    ['1:30', '1:30'], ['2001-12-14', '2001-12-14'], ['2001-12-14t21:59:43.10-05:00', '2001-12-14t21:59:43.10-05:00'],
    ['-', '-'], ['+', '+'], ['_1', '_1'], ['0x', '0x'], ['0b', '0b'], ['0x1p3', '0x1p3'], ['1e', '1e'], ['0b12', '0b12'],
    ['-0xFFFFFFFFFFFFFFFFFF', '-0xFFFFFFFFFFFFFFFFFF'], ['1e400', '1e400'], ['Infinity', 'Infinity'], ['NaN', 'NaN'],
    ['<<', '<<'], ['ünïcode', 'ünïcode'],
  ] as Array<[string, unknown]>)('%j', (s, want) => {
    expect(plain(s)).toEqual(want);
  });

  test('.inf and .nan are floats with no JSON form', () => {
    expect(resolveScalar('.inf', true, undefined)).toEqual({ t: 'float', v: Infinity });
    expect(resolveScalar('-.INF', true, undefined)).toEqual({ t: 'float', v: -Infinity });
    expect(Number.isNaN((resolveScalar('.NaN', true, undefined) as { v: number }).v)).toBe(true);
    expect(failure('a: .inf')).toMatch(/\.inf has no JSON form/);
    expect(failure('a: [.nan]')).toMatch(/\.nan has no JSON form/);
  });
});

describe('quoting, block scalars and explicit tags', () => {
  test('quoted and block scalars are strings', () => {
    expect(value(`a: "010"\nb: 'yes'\nc: |\n  on\nd: >\n  0x1F\n`)).toEqual({ a: '010', b: 'yes', c: 'on\n', d: '0x1F\n' });
  });
  test('explicit tags resolve the text (quoted or not) and must fit it', () => {
    expect(value(`a: !!int "010"\nb: !!float 3\nc: !!str 010\nd: !!bool "yes"\ne: !!null ""\nf: !!binary aGVsbG8=\ng: !!timestamp 2001-01-02\nh: !custom 42\ni: ! 7`)).toEqual({
      a: 8, b: 3, c: '010', d: true, e: null, f: 'hello', g: '2001-01-02', h: '42', i: '7',
    });
    expect(failure('a: !!int abc')).toBe('cannot decode !!str `abc` as a !!int');
    expect(failure('a: !!int 1.5')).toBe('cannot decode !!float `1.5` as a !!int');
    expect(failure('a: !!float yes')).toBe('cannot decode !!bool `yes` as a !!float');
    expect(failure('a: !!timestamp 2001-13-01')).toBe('cannot decode !!str `2001-13-01` as a !!timestamp');
    expect(failure('a: !!binary "not base64!"')).toMatch(/invalid base64/);
  });
});

describe('merge keys', () => {
  test('the issue: a merged terminationGracePeriodSeconds is the one Kubernetes uses', () => {
    expect(value('spec: {<<: {terminationGracePeriodSeconds: 3}}')).toEqual({ spec: { terminationGracePeriodSeconds: 3 } });
  });
  test('keys are set in document order: explicit after << wins, explicit before << loses', () => {
    expect(value('<<: {a: 1, b: 1}\na: 2')).toEqual({ a: 2, b: 1 });
    expect(value('a: 2\n<<: {a: 1, b: 1}')).toEqual({ a: 1, b: 1 });
  });
  test('a list of maps: the earlier map wins', () => {
    expect(value('base: &b {r: 10, x: 0}\ncenter: &c {x: 1, z: 2}\nm:\n  <<: [*c, *b]\n  label: c')).toEqual({
      base: { r: 10, x: 0 }, center: { x: 1, z: 2 }, m: { x: 1, z: 2, r: 10, label: 'c' },
    });
    // (a plain `y` key would be the boolean true: go-yaml v2 reads y/n as booleans, keys too)
    expect(value('{x: 1, y: 2}')).toEqual({ x: 1, true: 2 });
  });
  test('the yaml.org merge examples all give the same map', () => {
    const text = `anchors:
  list:
    - &CENTER { "x": 1, "y": 2 }
    - &LEFT   { "x": 0, "y": 2 }
    - &BIG    { "r": 10 }
    - &SMALL  { "r": 1 }
plain: {"x": 1, "y": 2, "r": 10, label: center/big}
mergeOne: {<< : *CENTER, "r": 10, label: center/big}
mergeMultiple: {<< : [ *CENTER, *BIG ], label: center/big}
override: {<< : [ *BIG, *LEFT, *SMALL ], "x": 1, label: center/big}
shortTag: {!!merge "<<" : [ *CENTER, *BIG ], label: center/big}
inlineMap: {<< : {"x": 1, "y": 2, "r": 10}, label: center/big}
inlineSequenceMap: {<< : [ *CENTER, {"r": 10} ], label: center/big}
`;
    const v = value(text) as Record<string, unknown>;
    for (const k of ['mergeOne', 'mergeMultiple', 'override', 'shortTag', 'inlineMap', 'inlineSequenceMap']) expect([k, v[k]]).toEqual([k, v.plain]);
  });
  test('a quoted "<<" is an ordinary key; nested merges apply; bad merge values fail', () => {
    expect(value('"<<": {a: 1}')).toEqual({ '<<': { a: 1 } });
    expect(value("'<<': x")).toEqual({ '<<': 'x' });
    expect(value('a: &a {<<: {x: 1}, z: 2}\nb: {<<: *a}')).toEqual({ a: { x: 1, z: 2 }, b: { x: 1, z: 2 } });
    expect(value('a: <<')).toEqual({ a: '<<' });
    expect(failure('<<: 1')).toBe('map merge requires map or sequence of maps as the value');
    expect(failure('a: &x 1\n<<: [*x]')).toBe('map merge requires map or sequence of maps as the value');
    expect(failure('<<: [[1]]')).toBe('map merge requires map or sequence of maps as the value');
  });
});

describe('keys become JSON strings as sigs.k8s.io/yaml converts them', () => {
  test('ints, booleans (y/n/on/off too), floats in float32 %g', () => {
    expect(value('010: a\nyes: b\nn: c\non: d\n1.5: e\n1e6: f\n0.1: g\n123456: h\n-0.00001: i\n0x10: j')).toEqual({
      '8': 'a', true: 'd', false: 'c', // `yes` and `on` are the same Go key true: the later wins
      '1.5': 'e', '1e+06': 'f', '0.1': 'g', '123456': 'h', '-1e-05': 'i', '16': 'j',
    } as Record<string, string>);
    expect(value('yes: b\non: d')).toEqual({ true: 'd' });
  });
  test('formatFloat32g', () => {
    expect([1, 1.5, 1e6, 123456, 1234567, 0.0001, 0.00001, 3.14159265358979, 1e21, -2.5].map(formatFloat32g)).toEqual([
      '1', '1.5', '1e+06', '123456', '1.234567e+06', '0.0001', '1e-05', '3.1415927', '1e+21', '-2.5',
    ]);
  });
  test('keys with no JSON form fail the document', () => {
    expect(failure('~: 1')).toMatch(/null map key/);
    expect(failure('? [a]\n: 1')).toMatch(/invalid map key/);
    expect(failure('18446744073709551615: 1')).toMatch(/too large/);
    expect(failure('1: a\n"1": b')).toMatch(/both become "1"/);
  });
});

describe('aliases', () => {
  test('aliases expand; the latest anchor of a name wins', () => {
    expect(value('a: &x 1\nb: *x\nc: &x 2\nd: *x')).toEqual({ a: 1, b: 1, c: 2, d: 2 });
  });
  test('undefined and self-containing aliases fail with their own message', () => {
    expect(failure('a: *nope')).toMatch(/unknown anchor 'nope'/);
    expect(failure('a: &x [*x]')).toMatch(/contains itself/);
  });
  test('101 uses of one scalar anchor are fine (go-yaml counts expansion, not references)', () => {
    const text = 'a: &v 5\nl: [' + Array(101).fill('*v').join(', ') + ']';
    expect((value(text) as { l: number[] }).l).toHaveLength(101);
  });
  test('an alias bomb fails fast by go-yaml\'s alias ratio', () => {
    let text = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++) text += `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
    const c0 = cpuMs();
    expect(failure(text)).toMatch(/excessive aliasing/);
    expect(cpuMs() - c0).toBeLessThan(2000);
  });
});

describe('parseText reads manifests as Kubernetes does, with positions', () => {
  const deploy = (podSpec: string) => servedDeployment(podSpec);
  const lint = (yaml: string) => lintSources([{ file: 't.yaml', text: yaml }], { rules: [gracePeriodBudget], policy: { name: 't', rules: new Map(), customRules: [] }, version: KubeVersion.parse('1.33') });

  test('a merged grace of 3 s with a 5 s preStop sleep is reported, at the merged key', () => {
    const yaml = deploy(`      <<: {terminationGracePeriodSeconds: 3}
      containers:
      - name: app
        image: web:1
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 5}}}`);
    const r = lint(yaml);
    expect(r.errors).toEqual([]);
    expect(r.findings.map((f) => f.ruleId)).toEqual(['grace-period-budget']);
    const p = parseText('t.yaml', yaml).objects[0];
    expect(p.raw).toMatchObject({ spec: { template: { spec: { terminationGracePeriodSeconds: 3 } } } });
    expect(p.locate('/spec/template/spec/terminationGracePeriodSeconds')).toEqual({ line: 11, column: 12 });
  });

  test('terminationGracePeriodSeconds: 010 is 8 seconds, not 10', () => {
    const yaml = deploy(`      terminationGracePeriodSeconds: 010
      containers:
      - name: app
        image: web:1
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {sleep: {seconds: 5}}}`);
    expect(parseText('t.yaml', yaml).objects[0].raw).toMatchObject({ spec: { template: { spec: { terminationGracePeriodSeconds: 8 } } } });
    // 5 s sleep + 10 s default drain > 8 s
    expect(lint(yaml).findings.map((f) => f.ruleId)).toEqual(['grace-period-budget']);
  });

  test('a document Kubernetes cannot read is one error at its node; the other documents are kept', () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {x: .inf}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n';
    const p = parseText('c.yaml', text);
    expect(p.objects.map((o) => o.name)).toEqual(['a', 'c']);
    expect(p.errors).toEqual([{ file: 'c.yaml', line: 8, column: 11, message: expect.stringMatching(/\.inf has no JSON form/) }]);
  });

  test('duplicate keys: reported with both lines, and the last value is linted', () => {
    const p = parseText('d.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  k: "1"\n  k: "2"\n');
    expect(p.errors).toEqual([{ file: 'd.yaml', line: 6, column: 3, message: expect.stringMatching(/duplicate key "k" \(first at line 5\)/) }]);
    expect(p.objects[0].raw.data).toEqual({ k: '2' });
  });

  test('a boolean-looking key is located by its JSON name', () => {
    const p = parseText('k.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  on: x\n  "off": v\n');
    expect(p.objects[0].raw.data).toEqual({ true: 'x', off: 'v' });
    expect(p.objects[0].locate('/data/true')).toEqual({ line: 5, column: 3 });
    expect(p.objects[0].locate('/data/off')).toEqual({ line: 6, column: 3 });
  });
});
