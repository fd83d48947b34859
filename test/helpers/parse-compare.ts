/** Shared by the differential tests of the fast paths (fast-path.test.ts, fast-yaml.test.ts). */
import { LintOptions, runRules, sortFindings } from '../../lib/engine/run';
import type { ParsedObjects } from '../../lib/model/fast-json';
import { checkFieldTypes } from '../../lib/model/field-types';
import { escapeSegment } from '../../lib/model/parse';
import { expectEqual } from './equal';
import { isObject, Json, KObject } from '../../lib/model/types';

/** Every pointer into a value (members and elements), plus some that do not exist. */
export function pointers(v: Json, base = '', out: string[] = []): string[] {
  out.push(base);
  if (Array.isArray(v)) {
    v.forEach((x, i) => pointers(x, `${base}/${i}`, out));
    out.push(`${base}/${v.length}`, `${base}/-1`, `${base}/x`);
  } else if (isObject(v)) {
    for (const k of Object.keys(v)) pointers(v[k], `${base}/${escapeSegment(k)}`, out);
    out.push(`${base}/no~1such`, `${base}/nope/deeper`);
  }
  return out;
}

/** The fields of a parsed object both readers must agree on (raw and positions are compared apart). */
export function view(o: KObject) {
  return { apiVersion: o.apiVersion, kind: o.kind, name: o.name, namespace: o.namespace, line: o.line, column: o.column, uid: o.uid, docIndex: o.docIndex, basePointer: o.basePointer };
}

/**
 * Where an object locates each pointer, as [pointer, position] pairs: compare two readers with one
 * `expect(locatedAt(fast, ps)).toEqual(locatedAt(slow, ps))` (a mismatch names every pointer that
 * differs) rather than one expect per pointer, whose bookkeeping (an Error with a stack trace per
 * call) cost more than the comparison itself over thousands of pointers.
 */
export function locatedAt(o: { locate(pointer: string): unknown }, ps: string[]): [string, unknown][] {
  return ps.map((p) => [p, o.locate(p)]);
}

/**
 * Asserts that a fast path's reading of a file agrees with parse.ts's (`slow`) on everything: the
 * input errors, the number of documents, each object's identity, position and value, the
 * positions of every pointer of the first `located` objects (12 by default), and, unless
 * `findings` is false, the rules' findings (with their positions) and the field-type errors.
 */
export function agreeWith(lint: LintOptions, fast: ParsedObjects, slow: ParsedObjects, file: string, opts: { findings?: boolean; located?: number } = {}): void {
  expectEqual(fast.errors, slow.errors);
  expect(fast.documents).toBe(slow.documents);
  expectEqual(fast.objects.map(view), slow.objects.map(view));
  fast.objects.forEach((f, i) => {
    const s = slow.objects[i];
    expectEqual(f.raw, s.raw, { strict: true });
    // Every pointer of the first objects (the findings check the reported ones of all).
    if (i < (opts.located ?? 12)) {
      const ps = pointers(s.raw);
      expectEqual(locatedAt(f, ps), locatedAt(s, ps));
    }
  });
  if (opts.findings !== false) {
    const a = sortFindings(runRules(fast.objects, lint), [file]);
    const b = sortFindings(runRules(slow.objects, lint), [file]);
    expectEqual(a, b);
    expectEqual(fast.objects.flatMap(checkFieldTypes), slow.objects.flatMap(checkFieldTypes));
  }
}
