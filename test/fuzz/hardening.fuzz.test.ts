/**
 * Property/fuzz suite (issue 12 acceptance): random and mutated manifests never crash the
 * parser, the engine or --fix, never run past a time bound, and --fix output reads back (as
 * Kubernetes reads YAML) with the same values outside the fixed fields.
 *
 * Fixed seed, a few seconds in `npm test`; KUBEGRACE_FUZZ_RUNS=5000 (and KUBEGRACE_FUZZ_SEED)
 * for a longer run.
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { parseText } from '../../lib/model/parse';
import { decodeBytes } from '../../lib/model/sources';
import { k8sValue, resolveScalar } from '../../lib/model/yaml11';
import { ALL_RULES } from '../../lib/rules';

const RUNS = Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.KUBEGRACE_FUZZ_SEED ?? 20261124);
const params = { numRuns: RUNS, seed: SEED };
/** Per-input bound: far above the real cost (milliseconds), far below a hang. */
const BOUND_MS = 3000;
const policy = { name: 'fuzz', rules: new Map(), customRules: [] };
const version = KubeVersion.parse('1.33');

const FIXTURES = path.resolve(__dirname, '../fixtures');
const SEEDS = [
  fs.readFileSync(path.join(FIXTURES, 'bad-grace.yaml'), 'utf8'),
  fs.readFileSync(path.join(FIXTURES, 'good.yaml'), 'utf8'),
  ...(fs.readdirSync(path.join(FIXTURES, 'apps'), { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f)).sort().slice(0, 6).map((f) => fs.readFileSync(path.join(FIXTURES, 'apps', f), 'utf8')),
  // The smallest real manifests of the shared corpus.
  ...(() => {
    const dir = path.resolve(__dirname, '../../../shared/corpus/rendered');
    if (!fs.existsSync(dir)) return [];
    return fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).sort((a, b) => a.length - b.length).slice(0, 4);
  })(),
].filter((t) => t.length < 20000);

/** Tokens that stress YAML 1.1 resolution, merges, aliases, tags and quoting. */
const TOKENS = ['010', '0x1F', '0b11', '0o17', '1e3', 'yes', 'off', 'y', '~', '.inf', '.nan', '1_000', '1:30', '2001-01-01', '"q"', "'s'", '!!int "7"', '!!str 5', '!!binary aGk=', '&a', '*a', '<<: {x: 1}', '<<: [*a]', '[', ']', '{', '}', '---', '...', '#', '? ', ': ', '- ', '|', '>', '\t', '\u001b[31m', '\u0085', 'é', '\ufeff', '%YAML 1.1', '"\\u0000"', 'terminationGracePeriodSeconds: "5"', 'replicas: 2.5'];

/** A seed manifest with random edits: token insertions, line deletions, duplications. */
const mutated = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 6 })), fc.constantFrom('insert', 'delete-line', 'dup-line', 'replace-value')), { maxLength: 6 }),
  )
  .map(([text, edits]) => {
    let t = text;
    for (const [at, tok, op] of edits) {
      const lines = t.split('\n');
      const i = at % Math.max(1, lines.length);
      if (op === 'delete-line') lines.splice(i, 1);
      else if (op === 'dup-line') lines.splice(i, 0, lines[i] ?? '');
      else if (op === 'replace-value') lines[i] = (lines[i] ?? '').replace(/:\s.*$/, `: ${tok}`);
      else {
        const l = lines[i] ?? '';
        const c = at % (l.length + 1);
        lines[i] = l.slice(0, c) + tok + l.slice(c);
      }
      t = lines.join('\n');
    }
    return t;
  });

function timed<T>(f: () => T): T {
  const t0 = Date.now();
  const r = f();
  expect(Date.now() - t0).toBeLessThan(BOUND_MS);
  return r;
}

describe('fuzz: the parser', () => {
  test('random text and mutated manifests: no throw, errors are located in the file', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ maxLength: 300 }), fc.array(fc.constantFrom(...TOKENS, '\n', ' ', 'a: ', 'kind: Deployment\n'), { maxLength: 60 }).map((a) => a.join(''))), (text) => {
        const p = timed(() => parseText('f.yaml', text));
        const lines = text.split('\n').length;
        for (const e of p.errors) {
          expect(e.line).toBeGreaterThanOrEqual(1);
          expect(e.line).toBeLessThanOrEqual(lines + 1);
          expect(e.message.length).toBeGreaterThan(10);
        }
      }),
      params,
    );
  });

  test('random bytes: decoding never throws and keeps the line count', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const d = decodeBytes(Buffer.from(bytes));
        if (d.text !== undefined) expect(d.text.split('\n').length).toBe(Buffer.from(bytes).toString('latin1').split('\n').length);
      }),
      params,
    );
  });

  test('plain scalars: resolution never throws, and a quoted scalar is always the string itself', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...TOKENS), fc.stringMatching(/^[-+]?[0-9_.xXoObBeE]{0,10}$/)), (s) => {
        resolveScalar(s, true, undefined);
        expect(resolveScalar(s, false, undefined)).toEqual({ t: 'str', v: s });
        const docs = parseAllDocuments(`k: ${JSON.stringify(s)}`, { uniqueKeys: false });
        if (!docs[0].errors.length) expect(k8sValue(docs[0]).value).toEqual({ k: s });
      }),
      params,
    );
  });
});

describe('fuzz: the engine and --fix', () => {
  test('lint never throws on mutated manifests', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        const r = timed(() => lintSources([{ file: 'f.yaml', text }], { rules: ALL_RULES, policy, version }));
        expect(r.errors.filter((e) => /internal error/.test(e.message))).toEqual([]);
      }),
      params,
    );
  });

  test('--fix output reads back with no new errors, the same objects, and the same values outside the edited paths', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        const before = parseText('f.yaml', text);
        const r = timed(() => fixSources([{ file: 'f.yaml', text }], { rules: ALL_RULES, policy, version, proposals: false }));
        const out = r.files[0].text;
        if (out === text) return;
        const after = parseText('f.yaml', out);
        // No document that read before fails now; every object is still there.
        expect(after.errors.length).toBeLessThanOrEqual(before.errors.length);
        const key = (o: { kind: string; name: string; namespace?: string }) => `${o.kind}/${o.namespace}/${o.name}`;
        expect(after.objects.map(key)).toEqual(expect.arrayContaining(before.objects.map(key)));
        // Outside the fixed paths every value is unchanged: metadata and kind never change here.
        for (const o of before.objects) {
          const a = after.objects.find((x) => key(x) === key(o))!;
          expect(a.raw.apiVersion).toEqual(o.raw.apiVersion);
          expect((a.raw.metadata as Record<string, unknown> | undefined)?.name).toEqual((o.raw.metadata as Record<string, unknown> | undefined)?.name);
        }
        // A second run has nothing left to do on the same rules (idempotent).
        const again = fixSources([{ file: 'f.yaml', text: out }], { rules: ALL_RULES, policy, version, proposals: false });
        expect(again.files[0].text).toBe(out);
      }),
      { ...params, numRuns: Math.max(10, Math.floor(RUNS / 3)) },
    );
  });
});
