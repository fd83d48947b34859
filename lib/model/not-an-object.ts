/**
 * Documents that read like Kubernetes objects but are none.
 *
 * kubegrace lints the objects among the documents it reads and skips the rest: a values file, a
 * Chart.yaml, a kustomization without kind. A mapping with an apiVersion or a kind and with
 * `metadata`, `spec` or `items` is an object written wrong, though, and skipping it lets the file
 * pass with that workload unchecked: `Kind: Deployment` (keys are case-sensitive), a kind left
 * out, or a `kubectl get -o yaml` dump cut short at a line (kubectl writes `kind: List` after the
 * items). The API server refuses such an object (apimachinery's "Object 'Kind' is missing in ..."
 * and "Object 'apiVersion' is missing in ..."); so does kubectl a sequence of objects at the top
 * level (a JSON array from `jq -s`). Each one is an input error at the document or List item,
 * reported the same way by every reader (parse.ts and the fast paths).
 */
import { InputError, isObject, Json, JsonObject, jsonType } from './types';

/**
 * Where the mapping is: a document of its own, or the item `item` of a List (the indexes down
 * from the document's List when Lists nest); `items`, the number of items of a List read without
 * them (the streamed readers).
 */
export type Place = { item?: number | readonly number[]; items?: number };

/** The input error's message for a mapping that reads like an object but is none, or undefined. */
export function notAnObject(v: unknown, place: Place = {}): string | undefined {
  // Objects in a sequence at the top level (`jq -s`, a JSON array): kubectl refuses it
  // (kubernetes/kubernetes#8362: "couldn't get version/kind: json: cannot unmarshal array").
  if (Array.isArray(v) && place.item === undefined) {
    const objects = v.filter((e) => isObject(e) && Object.keys(e).some((k) => /^(apiversion|kind)$/i.test(k))).length;
    if (!objects) return undefined;
    const held = objects === v.length ? `of ${objects} object${objects === 1 ? '' : 's'} at the top level` : `at the top level holding ${objects} object${objects === 1 ? '' : 's'} among ${v.length} items`;
    return `a sequence ${held}: kubectl reads a document as one object and refuses a sequence ("cannot unmarshal array"), so kubegrace checks none of them; put them under items: of a List (apiVersion: v1, kind: List), or write them as separate documents`;
  }
  if (!isObject(v)) return undefined;
  const okApi = typeof v.apiVersion === 'string' && v.apiVersion !== '';
  const okKind = typeof v.kind === 'string' && v.kind !== '';
  if (okApi && okKind) return undefined;
  const keys = Object.keys(v);
  const apiKey = keys.find((k) => k.toLowerCase() === 'apiversion');
  const kindKey = keys.find((k) => k.toLowerCase() === 'kind');
  // (A List item with neither is an object too, when it has metadata or a spec: a List holds
  // only objects, and the API server refuses an item without kind. A typed list's such items took
  // the List's apiVersion and kind already: listItem.)
  if (apiKey === undefined && kindKey === undefined && place.item === undefined) return undefined;
  if (!isObject(v.metadata) && !isObject(v.spec) && !Array.isArray(v.items)) return undefined;
  const name = isObject(v.metadata) && typeof v.metadata.name === 'string' && v.metadata.name !== '' ? v.metadata.name : undefined;
  const what = place.item !== undefined ? `List item ${typeof place.item === 'number' ? place.item : place.item.join(', item ')}${name ? ` (${JSON.stringify(name)})` : ''}` : name ? `object ${JSON.stringify(name)}` : 'this document';
  // kubectl's layout of a List: apiVersion, items, then kind and metadata. Cut short at a line, the
  // dump reads as a List without kind.
  if (place.item === undefined && okApi && v.kind === undefined && kindKey === undefined && Array.isArray(v.items) && !isObject(v.metadata)) {
    return `a List without kind: kubectl writes "kind: List" after the items, so this file was probably cut short (an interrupted kubectl get -o yaml); the API server refuses it, so kubegrace checks none of the ${place.items ?? v.items.length} items read; write the file again`;
  }
  const problems: string[] = [];
  const fixes: string[] = [];
  let missing: string | undefined;
  const field = (key: 'apiVersion' | 'kind', ok: boolean, found: string | undefined) => {
    if (ok) return;
    if (v[key] !== undefined) {
      problems.push(`${key} is ${jsonType(v[key] as Json)}, not a non-empty string`);
      fixes.push(`set ${key}`);
      return;
    }
    missing ??= key === 'kind' ? 'Kind' : key;
    problems.push(found !== undefined ? `no ${key} (there is "${found}": keys are case-sensitive)` : `no ${key}`);
    fixes.push(found !== undefined ? `rename "${found}" to ${key}` : `add ${key}`);
  };
  field('kind', okKind, kindKey);
  field('apiVersion', okApi, apiKey);
  const says = missing ? ` ("Object '${missing}' is missing")` : '';
  return `${what}: ${problems.join(', ')}; the API server refuses it${says}, so kubegrace checks nothing in it; ${fixes.join(' and ')}`;
}

/**
 * Adds the input error of List item `i` when it reads like an object but is none. `at` gives its
 * place: a reader's view of the item, made only then, puts it where the item's findings would be.
 */
export function itemError(errors: InputError[], item: unknown, i: number | readonly number[], at: () => { file: string; line: number; column: number }): void {
  const message = notAnObject(item, { item: i });
  if (!message) return;
  const { file, line, column } = at();
  errors.push({ file, line, column, message });
}

/**
 * A List item as apimachinery reads it (unstructured decodeToList): the API server writes the
 * items of a typed list (`DeploymentList`, `kubectl get --raw /apis/apps/v1/deployments`, a
 * client library's list) without apiVersion and kind, and an item with neither (no non-empty
 * string of either) takes the List's apiVersion and the List's kind without its "List" suffix.
 * Other items, and the items of a `kind: List` (whose kind would be empty), are as written.
 */
export function listItem(list: JsonObject, item: unknown): unknown {
  if (!isObject(item)) return item;
  const has = (v: unknown) => typeof v === 'string' && v !== '';
  if (has(item.kind) || has(item.apiVersion)) return item;
  const kind = typeof list.kind === 'string' && list.kind.endsWith('List') ? list.kind.slice(0, -'List'.length) : '';
  if (kind === '' || typeof list.apiVersion !== 'string') return item;
  const out: JsonObject = { apiVersion: list.apiVersion, kind };
  // (defineProperty: a `__proto__` member stays a member.)
  for (const [k, v] of Object.entries(item)) if (k !== 'kind' && k !== 'apiVersion') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Whether a document or List item is a list: a `List` or `*List` kind with an `items` sequence.
 * kubectl applies the items of a list, and of a list inside one, at any depth (cli-runtime's
 * FlattenListVisitor: "itemsToProcess"), never the list itself; so does kubegrace lint them.
 */
export function isList(v: unknown): v is JsonObject & { kind: string; items: Json[] } {
  return isObject(v) && typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items);
}
