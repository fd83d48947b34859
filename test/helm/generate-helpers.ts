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
import { analyze, readObjects } from '../../lib/helm/analyze';
import { HELM_LABELS, INSTANCE_LABEL } from '../../lib/helm/templates';
import { isObject, Json, JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';

export const HELM = path.resolve(__dirname, '../../node_modules/.bin/helm');
/** helm template's default cluster version is 1.20, below every generated chart's kubeVersion. */
export const KUBE = '1.33.0';
const VERSION = KubeVersion.parse('1.33');
const POLICY = loadPolicy('recommended', ALL_RULES);

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * helm with its cache, config and data below `home` (a temporary directory, never the user's).
 * GOGC=800: the Go runtime of these short helm processes (one per rendering, ~500 in
 * helm/generate.test.ts) collects garbage only once the heap is 9x the live data instead of 2x; on
 * these small charts that is no collection at all, and a rendering costs ~35% less CPU (0.053 ->
 * 0.035 s). The output is the same: GOGC tunes the collector, nothing else.
 */
export function makeHelm(home: string): (args: string[]) => HelmRun {
  const env = { HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data'), GOGC: '800' };
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

/** Removes what a release adds: Helm labels, the instance label in selectors and pod templates, kubegrace.dev/ignore annotations. */
export function normalized(o: JsonObject): JsonObject {
  const c = withoutHelmLabels(o);
  const strip = (v: Json): void => {
    if (Array.isArray(v)) v.forEach(strip);
    else if (isObject(v)) {
      delete v[INSTANCE_LABEL];
      Object.values(v).forEach(strip);
    }
  };
  strip(c);
  const m = c.metadata as JsonObject;
  const ann = m.annotations as JsonObject | undefined;
  if (ann) {
    delete ann['kubegrace.dev/ignore'];
    delete ann['kubegrace.dev/ignore-reason'];
    if (Object.keys(ann).length === 0) delete m.annotations;
  }
  return c;
}

/**
 * The synthesized objects as a release renders them by default: names <release>-<chart>-<short> (the
 * fullname alone for the object named like the chart), the release namespace, no Namespace object, and
 * the references between them renamed alike.
 */
export function expectedRendering(text: string, chart: string, release: string, ns: string): JsonObject[] {
  const a = analyze(readObjects(text));
  const short = new Map(a.objects.map((o) => [`${o.kind}/${o.name}`, a.shortNames.get(o.uid)!]));
  const full = release.includes(chart) ? release : `${release}-${chart}`;
  const nameOf = (kind: string, n: string) => {
    if (!short.has(`${kind}/${n}`)) return n;
    const s = short.get(`${kind}/${n}`)!;
    return s === chart ? full : `${full}-${s}`;
  };
  const podSpecs = (c: JsonObject): JsonObject[] => {
    const spec = c.spec as JsonObject | undefined;
    const t = (spec?.template ?? ((spec?.jobTemplate as JsonObject | undefined)?.spec as JsonObject | undefined)?.template) as JsonObject | undefined;
    return isObject(t?.spec as Json) ? [t!.spec as JsonObject] : [];
  };
  return docs(text)
    .filter((o) => o.kind !== 'Namespace')
    .map((o) => {
      const c = JSON.parse(JSON.stringify(o)) as JsonObject;
      const m = c.metadata as JsonObject;
      m.name = nameOf(String(o.kind), String(m.name));
      if (!['ClusterRole', 'ClusterRoleBinding', 'PriorityClass', 'StorageClass'].includes(String(o.kind))) m.namespace = ns;
      const spec = c.spec as JsonObject | undefined;
      if (o.kind === 'StatefulSet' && spec && typeof spec.serviceName === 'string') spec.serviceName = nameOf('Service', spec.serviceName);
      if (o.kind === 'TargetGroupBinding' && spec && isObject(spec.serviceRef)) spec.serviceRef.name = nameOf('Service', String(spec.serviceRef.name));
      if (o.kind === 'HorizontalPodAutoscaler' && spec && isObject(spec.scaleTargetRef)) spec.scaleTargetRef.name = nameOf(String(spec.scaleTargetRef.kind), String(spec.scaleTargetRef.name));
      for (const ps of podSpecs(c)) {
        if (typeof ps.serviceAccountName === 'string') ps.serviceAccountName = nameOf('ServiceAccount', ps.serviceAccountName);
        for (const g of (ps.readinessGates as JsonObject[] | undefined) ?? []) {
          const m2 = /^(target-health\.elbv2\.k8s\.aws\/)(.*)$/.exec(String(g.conditionType));
          if (m2) g.conditionType = `${m2[1]}${nameOf('TargetGroupBinding', m2[2])}`;
        }
        for (const v of (ps.volumes as JsonObject[] | undefined) ?? []) {
          if (isObject(v.configMap)) v.configMap.name = nameOf('ConfigMap', String(v.configMap.name));
          if (isObject(v.secret)) v.secret.secretName = nameOf('Secret', String(v.secret.secretName));
        }
      }
      return c;
    });
}
