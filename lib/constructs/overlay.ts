import { ApiObject, JsonPatch } from 'cdk8s';
import { IConstruct } from 'constructs';
import { isObject, Json, JsonObject } from '../model/types';

/** An edit of a synthesized manifest: mutate it in place. */
export type ManifestTransform = (manifest: JsonObject) => void;

/**
 * Where an API object keeps its overlay: a global symbol, not a module-level map or `instanceof`,
 * so that two copies of kubegrace in one app (a company library bringing its own) share one overlay.
 */
const OVERLAY = Symbol.for('kubegrace.dev/ManifestOverlay');

/**
 * Edits applied to an API object's manifest **after** its L1 `toJson()`.
 *
 * The L1 classes of cdk8s-plus-27 (`KubeDeployment`, ...) re-filter their output through the
 * Kubernetes 1.27 schema after `ApiObject.addJsonPatch` ran, so fields newer than 1.27 (the preStop
 * `sleep` action, `restartPolicy: Always` on native sidecars) silently disappear when added by JSON
 * patch. An overlay wraps the instance's `toJson`, so its edits land after that filter: this is the
 * one place kubegrace's constructs emit such fields, and the escape hatch for app repos that need
 * one too:
 *
 * ```ts
 * ManifestOverlay.of(deployment).addJsonPatch(JsonPatch.add('/spec/template/spec/os', { name: 'linux' }));
 * ```
 *
 * Edits run in the order they were added, on every synthesis; `ApiObject.addJsonPatch` still runs
 * first (before the schema filter).
 */
export class ManifestOverlay {
  /** The overlay of an API object, or of the L1 object behind an L2 construct; installed on first use. */
  static of(c: IConstruct): ManifestOverlay {
    const obj = ApiObject.of(c) as ApiObject & { [OVERLAY]?: ManifestOverlay };
    let overlay = obj[OVERLAY];
    if (!overlay) {
      overlay = new ManifestOverlay(obj);
      Object.defineProperty(obj, OVERLAY, { value: overlay, enumerable: false });
    }
    return overlay;
  }

  private readonly transforms: ManifestTransform[] = [];

  private constructor(readonly apiObject: ApiObject) {
    const base = apiObject.toJson.bind(apiObject);
    // An own property shadows the (filtering) prototype method of the L1 class.
    Object.defineProperty(apiObject, 'toJson', {
      configurable: true,
      writable: true,
      value: () => this.apply(base()),
    });
  }

  /** RFC 6902 operations applied after the L1 schema filter. */
  addJsonPatch(...ops: JsonPatch[]): void {
    this.transforms.push((m) => {
      const patched = JsonPatch.apply(m, ...ops) as JsonObject;
      if (patched === m) return;
      // A patch of the root ("" path) returns a new document: carry it over.
      for (const k of Object.keys(m)) delete m[k];
      Object.assign(m, patched);
    });
  }

  /** A function that edits the synthesized manifest in place. */
  addTransform(fn: ManifestTransform): void {
    this.transforms.push(fn);
  }

  private apply(manifest: JsonObject): JsonObject {
    for (const t of this.transforms) t(manifest);
    if (process.env.CDK8S_DISABLE_SORT) return manifest;
    // Same order as cdk8s' own output: keys sorted, then apiVersion, kind, metadata first.
    const sorted = sortKeys(manifest) as JsonObject;
    const out: JsonObject = {};
    for (const k of ['apiVersion', 'kind', 'metadata', ...Object.keys(sorted)]) if (k in sorted) out[k] = sorted[k];
    return out;
  }
}

function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
  return out;
}
