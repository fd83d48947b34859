/** Shared by the chart generator tests: the real helm binary, isolated, and the linter over its output. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { Finding } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { HelmRun, runHelm } from '../../lib/helm/helm-bin';
import { HELM_LABELS } from '../../lib/helm/templates';
import { isObject, JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';

export const HELM = path.resolve(__dirname, '../../node_modules/.bin/helm');
/** helm template's default cluster version is 1.20, below every generated chart's kubeVersion. */
export const KUBE = '1.33.0';
const VERSION = KubeVersion.parse('1.33');
const POLICY = loadPolicy('recommended', ALL_RULES);

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** helm with its cache, config and data below `home` (a temporary directory, never the user's). */
export function makeHelm(home: string): (args: string[]) => HelmRun {
  const env = { HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data') };
  return (args) => runHelm(args, { helm: HELM, env });
}

/** Writes a values file (JSON is YAML) and returns its path. */
export function valuesFile(dir: string, values: JsonObject): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `values-${fs.readdirSync(dir).length}.yaml`);
  fs.writeFileSync(file, JSON.stringify(values, null, 2));
  return file;
}

/** The objects of a multi-document YAML text. */
export function docs(text: string): JsonObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as unknown)
    .filter(isObject) as JsonObject[];
}

export function idOf(o: JsonObject): string {
  const m = (o.metadata ?? {}) as JsonObject;
  return `${String(o.kind)}/${String(m.namespace ?? '')}/${String(m.name)}`;
}

/** Objects by kind/namespace/name. */
export function byId(objs: JsonObject[]): Map<string, JsonObject> {
  return new Map(objs.map((o) => [idOf(o), o]));
}

/** An object without the labels Helm adds (removing `labels` when nothing else is left). */
export function withoutHelmLabels(o: JsonObject): JsonObject {
  const c = JSON.parse(JSON.stringify(o)) as JsonObject;
  const m = c.metadata as JsonObject;
  const labels = m.labels as JsonObject | undefined;
  if (labels) {
    for (const l of HELM_LABELS) delete labels[l];
    if (Object.keys(labels).length === 0) delete m.labels;
  }
  return c;
}

/** Unsuppressed findings of rendered manifests (recommended policy, Kubernetes 1.33). */
export function lintRendered(text: string): Finding[] {
  const r = lintSources([{ file: 'rendered.yaml', text }], { rules: ALL_RULES, policy: POLICY, version: VERSION });
  if (r.errors.length) throw new Error(`rendered output is not valid YAML: ${JSON.stringify(r.errors)}`);
  return r.findings.filter((f) => !f.suppressed);
}

export function errorsOf(findings: Finding[]): string[] {
  return findings.filter((f) => f.severity === 'error').map((f) => `${f.ruleId} ${f.object.kind}/${f.object.name}: ${f.message}`);
}

/** Deep merge of plain objects (later wins; arrays and scalars replace). */
export function merge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as JsonObject, v) : v;
  return out;
}
