/**
 * The comparison behind the differential tests: each exported validation must fire exactly when
 * `kubegrace lint` on the object alone reports the rule's condition at that severity, and each
 * mutation must repair what the linter's safe fix repairs, to the same result, idempotently. Both
 * sides are computed by running the real code: the linter, and the policies in a CEL evaluator.
 */
import * as fs from 'fs';
import * as path from 'path';
import { exportPolicies, ExportResult } from '../../lib/admission/policies';
import { ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { Finding } from '../../lib/engine/types';
import { KubeVersion } from '../../lib/engine/version';
import { parseText } from '../../lib/model/parse';
import { JsonObject } from '../../lib/model/types';
import { workloadOf } from '../../lib/model/workload';
import { ALL_RULES } from '../../lib/rules';
import { applyEdits, applyPatches, mutate, validate } from './evaluator';
import { TableCase } from './table-cases';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const CORPUS_VERSION = '1.34';

export interface Subject {
  origin: string;
  raw: JsonObject;
  version: string;
  params?: { ruleId: string; params: Record<string, unknown> };
}

export function policyFor(s: Subject): ResolvedPolicy {
  return { name: 'test', rules: new Map(s.params ? [[s.params.ruleId, { params: s.params.params }]] : []), customRules: [] };
}

/**
 * Lints one object alone (what admission sees) with every rule: the object as JSON (what the API
 * server hands a policy; the JSON reader gives exactly these values). The same object under the
 * same policy and version is linted once (an object marked served is also its twin subject, see
 * withTwins); the findings are not changed by the callers.
 */
const lintedAlone = new Map<string, Finding[]>();
export function lintAlone(raw: JsonObject, s: Subject): Finding[] {
  const text = JSON.stringify(raw);
  const key = `${s.version} ${JSON.stringify(s.params ?? null)} ${text}`;
  let findings = lintedAlone.get(key);
  if (!findings) {
    findings = lintSources([{ file: 'object.json', text }], { rules: ALL_RULES, policy: policyFor(s), version: KubeVersion.parse(s.version) }).findings;
    if (lintedAlone.size >= 4096) lintedAlone.clear();
    lintedAlone.set(key, findings);
  }
  return findings;
}

const exported = new Map<string, ExportResult>();
export function exportFor(s: Subject): ExportResult {
  const key = `${s.version} ${JSON.stringify(s.params ?? null)}`;
  let e = exported.get(key);
  if (!e) exported.set(key, (e = exportPolicies({ rules: ALL_RULES, policy: policyFor(s), version: KubeVersion.parse(s.version), mode: 'both' })));
  return e;
}

export function subjectsOf(text: string, origin: string, version: string, params?: Subject['params']): Subject[] {
  const parsed = parseText(origin, text);
  return parsed.objects
    .filter((o) => o.kind === 'PodDisruptionBudget' || workloadOf(o) !== undefined)
    .map((o) => ({ origin: `${origin} ${o.kind}/${o.name}`, raw: o.raw, version, params }));
}

export function corpusSubjects(): Subject[] {
  const files = fs.readdirSync(CORPUS).filter((f) => /\.ya?ml$/.test(f)).sort();
  return files.flatMap((f) => subjectsOf(fs.readFileSync(path.join(CORPUS, f), 'utf8'), `corpus/${f}`, CORPUS_VERSION));
}

export function caseSubjects(cases: TableCase[]): Subject[] {
  return cases
    .filter((c) => KubeVersion.parse(c.kubeVersion ?? '1.33').atLeast(1, 30))
    .flatMap((c) => subjectsOf(c.yaml, `table ${c.ruleId}: ${c.name}`, c.kubeVersion ?? '1.33', c.params ? { ruleId: c.ruleId, params: c.params } : undefined));
}

export interface Divergence {
  object: string;
  rule: string;
  detail: string;
}

export function withServedHint(raw: JsonObject): JsonObject {
  // On the pod template (whose annotations win over the object's), or the Pod's own metadata.
  const copy = JSON.parse(JSON.stringify(raw)) as JsonObject;
  const spec = copy.spec as JsonObject | undefined;
  const tmpl = copy.kind === 'Pod' ? copy : copy.kind === 'CronJob' ? (((spec?.jobTemplate as JsonObject)?.spec as JsonObject)?.template as JsonObject) : (spec?.template as JsonObject);
  if (!tmpl || typeof tmpl !== 'object') return copy;
  const meta = ((tmpl.metadata as JsonObject | undefined) ?? (tmpl.metadata = {})) as JsonObject;
  meta.annotations = { ...((meta.annotations as JsonObject | undefined) ?? {}), 'kubegrace.dev/served': 'true' };
  return copy;
}

/**
 * Each object as written, and once more marked served by the hint (`kubegrace.dev/served: "true"`,
 * the one way an admitted object can say a Service routes to it), so rules the linter judges only on
 * served workloads are compared too.
 */
export function withTwins(subjects: Subject[]): Subject[] {
  return subjects.flatMap((s) => (s.raw.kind === 'PodDisruptionBudget' ? [s] : [s, { ...s, origin: `${s.origin} [served hint]`, raw: withServedHint(s.raw) }]));
}

export function check(all: Subject[]): { divergences: Divergence[]; stats: Record<string, number>; perPolicy: Map<string, { fired: number; silent: number }> } {
  const subjects = withTwins(all);
  const divergences: Divergence[] = [];
  const stats: Record<string, number> = { objects: subjects.length, verdicts: 0, fired: 0, repaired: 0 };
  const perPolicy = new Map<string, { fired: number; silent: number }>();
  for (const s of subjects) {
    const e = exportFor(s);
    const findings = lintAlone(s.raw, s).filter((f) => !f.suppressed);
    for (const v of e.validations) {
      stats.verdicts++;
      let policy: string[] | undefined;
      try {
        policy = v.kinds.includes(String(s.raw.kind)) ? validate(v.policy, s.raw) : undefined;
      } catch (err) {
        divergences.push({ object: s.origin, rule: `${v.ruleId} (${v.conditionSeverity})`, detail: `policy evaluation error: ${(err as Error).message}` });
        continue;
      }
      const linter = findings.filter((f) => f.ruleId === v.ruleId && f.severity === v.conditionSeverity);
      if (policy) stats.fired++;
      const key = `${v.ruleId} (${v.conditionSeverity})`;
      const pp = perPolicy.get(key) ?? { fired: 0, silent: 0 };
      if (policy) pp.fired++;
      else pp.silent++;
      perPolicy.set(key, pp);
      if (!!policy !== linter.length > 0) {
        divergences.push({
          object: s.origin,
          rule: `${v.ruleId} (${v.conditionSeverity})`,
          detail: policy ? `policy fires (${policy[0]}), linter does not` : `linter fires (${linter[0].message}), policy does not`,
        });
      }
    }
    for (const m of e.mutations) {
      if (!m.kinds.includes(String(s.raw.kind))) continue;
      const where = { object: s.origin, rule: `${m.ruleId} (repair)` };
      try {
        const patches = mutate(m.policy, s.raw);
        const safe = findings.filter((f) => f.ruleId === m.ruleId && f.fix?.safety === 'safe');
        if (!patches.length) {
          const ps = perPolicy.get(`${m.ruleId} (repair)`) ?? { fired: 0, silent: 0 };
          ps.silent++;
          perPolicy.set(`${m.ruleId} (repair)`, ps);
          if (safe.length) divergences.push({ ...where, detail: `linter offers a safe fix (${safe[0].fix!.description}), policy does not repair` });
          continue;
        }
        stats.repaired++;
        const pm = perPolicy.get(`${m.ruleId} (repair)`) ?? { fired: 0, silent: 0 };
        pm.fired++;
        perPolicy.set(`${m.ruleId} (repair)`, pm);
        // The result must be the linter's: its own safe fix, or (for a repair the linter gives only
        // served workloads) the fix it gives the same object marked served, applied to the object.
        const offer = safe.length ? safe : lintAlone(withServedHint(s.raw), s).filter((f) => f.ruleId === m.ruleId && !f.suppressed && f.fix?.safety === 'safe');
        const fixes = [...new Map(offer.map((f) => [JSON.stringify(f.fix!.edits), f.fix!.edits])).values()];
        const byLinter = fixes.reduce((o, edits) => applyEdits(o, edits), s.raw);
        const byPolicy = applyPatches(s.raw, patches);
        if (!fixes.length || JSON.stringify(byLinter) !== JSON.stringify(byPolicy)) {
          divergences.push({ ...where, detail: `policy patches ${JSON.stringify(patches)}; the linter's safe fixes: ${JSON.stringify(fixes)}` });
        }
        const repaired = applyPatches(s.raw, patches);
        const after = lintAlone(repaired, s).filter((f) => f.ruleId === m.ruleId && !f.suppressed && f.fix?.safety === 'safe');
        if (after.length) divergences.push({ ...where, detail: `re-linted after the repair, still: ${after[0].message}` });
        const again = mutate(m.policy, repaired);
        if (again.length) divergences.push({ ...where, detail: `not idempotent: re-admission patches ${JSON.stringify(again)}` });
      } catch (err) {
        divergences.push({ ...where, detail: `policy evaluation error: ${(err as Error).message}` });
      }
    }
  }
  return { divergences, stats, perPolicy };
}

export function report(d: Divergence[]): string[] {
  return d.map((x) => `${x.object} | ${x.rule} | ${x.detail}`);
}

