/** Shared by the differential tests of the fast paths (fast-path.test.ts, fast-yaml.test.ts). */
import { escapeSegment } from '../../lib/model/parse';
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
