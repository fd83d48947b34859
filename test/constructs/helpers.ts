import { Chart, Testing, Yaml } from 'cdk8s';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { Finding } from '../../lib/engine/types';
import { KubeVersion, NEWEST_KNOWN } from '../../lib/engine/version';
import { isObject, JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';

/** The synthesized manifests of a chart. */
export function synth(chart: Chart): JsonObject[] {
  return Testing.synth(chart) as JsonObject[];
}

/** The first manifest of a kind. */
export function byKind(manifests: JsonObject[], kind: string, index = 0): JsonObject {
  const all = manifests.filter((m) => m.kind === kind);
  if (!all[index]) throw new Error(`no ${kind} #${index} in ${manifests.map((m) => m.kind).join(', ')}`);
  return all[index];
}

export function podSpec(m: JsonObject): JsonObject {
  const spec = (m.spec as JsonObject).template as JsonObject;
  return spec.spec as JsonObject;
}

export function container(m: JsonObject, name = 'main', list: 'containers' | 'initContainers' = 'containers'): JsonObject {
  const c = (podSpec(m)[list] as JsonObject[] | undefined)?.find((x) => isObject(x) && x.name === name);
  if (!c) throw new Error(`no ${list} entry "${name}"`);
  return c;
}

/** Unsuppressed findings of the chart's YAML under a policy (default strict), as `kubegrace lint` would report them. */
export function lintChart(chart: Chart, version = NEWEST_KNOWN, policy = 'strict'): Finding[] {
  const text = Yaml.stringify(...Testing.synth(chart));
  return lintYaml(text, version, policy);
}

export function lintYaml(text: string, version = NEWEST_KNOWN, policy = 'strict'): Finding[] {
  const result = lintSources([{ file: 'synth.yaml', text }], { rules: ALL_RULES, policy: loadPolicy(policy, ALL_RULES), version: KubeVersion.parse(version) });
  if (result.errors.length) throw new Error(`YAML errors: ${JSON.stringify(result.errors)}`);
  return result.findings.filter((f) => !f.suppressed);
}

/** `rule-id: message` lines, for readable failures. */
export function describeFindings(findings: Finding[]): string[] {
  return findings.map((f) => `${f.severity} ${f.ruleId} ${f.object.kind}/${f.object.name} ${f.pointer}: ${f.message}`);
}
