/** Plain JSON values, as Kubernetes objects are after parsing. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export interface Position {
  line: number;
  column: number;
}

/** Identifies an object in output (the JSON contract's `object`). */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** A problem with the input itself (not a rule finding): unreadable file, YAML syntax, limits. */
export interface InputError extends Position {
  file: string;
  message: string;
}

/**
 * One Kubernetes object read from a source file, with enough of its origin to point a finding
 * at the exact line and column of any field.
 */
export interface KObject extends ObjectRef, Position {
  readonly raw: JsonObject;
  readonly file: string;
  /** Index of the YAML document in its file (0-based). */
  readonly docIndex: number;
  /** JSON pointer of this object inside its document: '' or '/items/3' for List items. */
  readonly basePointer: string;
  /** Stable identity within one run: file, document and pointer. */
  readonly uid: string;
  /** Position of the deepest node that exists along `pointer` (relative to the object). */
  locate(pointer: string): Position;
}

/** A JSON value as messages name it: `the number 5`, `a mapping`. */
export function jsonType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'number') return `the number ${v}`;
  return `the boolean ${v}`;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function refOf(o: KObject): ObjectRef {
  const ref: ObjectRef = { apiVersion: o.apiVersion, kind: o.kind, name: o.name };
  if (o.namespace !== undefined) ref.namespace = o.namespace;
  return ref;
}

/** `Kind/name` or `Kind/namespace/name`, for messages. */
export function describe(o: ObjectRef): string {
  return `${o.kind}/${o.name}`;
}
