/**
 * Property/fuzz suite (issue 12 acceptance): random and mutated manifests never crash the
 * parser, the engine or --fix, never run past a time bound, and --fix output reads back (as
 * Kubernetes reads YAML) with the same values outside the fixed fields.
 *
 * Fixed seed, a few seconds in `npm test`; KUBEGRACE_FUZZ_RUNS=5000 (and KUBEGRACE_FUZZ_SEED)
 * for a longer run.
 */
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { parseText } from '../../lib/model/parse';
import { decodeBytes } from '../../lib/model/sources';
import { k8sValue, resolveScalar } from '../../lib/model/yaml11';
import { ALL_RULES } from '../../lib/rules';
import { mutated, tokenText, TOKENS } from '../helpers/yaml-inputs';
import { cpuMs } from '../helpers/cpu';

const RUNS = Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.KUBEGRACE_FUZZ_SEED ?? 20261124);
const params = { numRuns: RUNS, seed: SEED };
/** Per-input bound in CPU milliseconds (helpers/cpu.ts): far above the real cost, far below a hang. */
const BOUND_MS = 3000;
const policy = { name: 'fuzz', rules: new Map(), customRules: [] };
const version = KubeVersion.parse('1.33');

function timed<T>(f: () => T): T {
  const c0 = cpuMs();
  const r = f();
  expect(cpuMs() - c0).toBeLessThan(BOUND_MS);
  return r;
}

describe('fuzz: the parser', () => {
  test('random text and mutated manifests: no throw, errors are located in the file', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ maxLength: 300 }), tokenText), (text) => {
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
        const r = timed(() => fixSources([{ file: 'f.yaml', text }], { rules: ALL_RULES, policy, version, proposals: false, verifyPiecewise: true }));
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
        const again = fixSources([{ file: 'f.yaml', text: out }], { rules: ALL_RULES, policy, version, proposals: false, verifyPiecewise: true });
        expect(again.files[0].text).toBe(out);
        // The yaml Document route everywhere (no text splices) writes the same and reports the same.
        const routed = fixSources([{ file: 'f.yaml', text }], { rules: ALL_RULES, policy, version, proposals: false, textSplice: false });
        expect(routed.files[0].text).toBe(out);
        expect(routed.files[0].applied).toEqual(r.files[0].applied);
        expect(routed.skipped.map((s) => s.reason)).toEqual(r.skipped.map((s) => s.reason));
      }),
      { ...params, numRuns: Math.max(10, Math.floor(RUNS / 3)) },
    );
  });
});
