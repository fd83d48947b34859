/**
 * The exported objects are valid against the Kubernetes API schema of the target version.
 *
 * Schema source: cdk8s-plus-33's imports (lib/imports/k8s.ts), generated from the Kubernetes 1.33
 * OpenAPI document, hold ValidatingAdmissionPolicy[Binding] admissionregistration.k8s.io/v1 and
 * MutatingAdmissionPolicy[Binding] v1alpha1. Two checks per object: the generated TypeScript
 * interfaces type-check it as an object literal (unknown fields, wrong types, missing required
 * fields are compile errors), and the generated toJson round-trips it unchanged (unknown fields are
 * dropped). v1beta1 (1.34-1.35) and v1 (1.36+) MutatingAdmissionPolicy have the same fields as
 * v1alpha1 (k8s-openapi's v1_35 v1beta1 and v1_36 v1 MutatingAdmissionPolicySpec, generated from
 * the OpenAPI documents of those releases), so the 1.33 check covers their structure; their
 * apiVersions are checked against the version table. The v1 objects (VAP, and MAP from 1.36) are
 * also validated with kubernetes-models 5.1.0, generated from a >= 1.36 OpenAPI document
 * (schema-check.mjs: the package is ESM-only).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import * as ts from 'typescript';
import * as k8s from 'cdk8s-plus-33/lib/imports/k8s';
import { exportPolicies } from '../../lib/admission/policies';
import { KubeVersion } from '../../lib/engine/version';
import { JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';

const policy = { name: 'recommended', rules: new Map(), customRules: [] };

function objectsFor(v: string): JsonObject[] {
  const r = exportPolicies({ rules: ALL_RULES, policy, version: KubeVersion.parse(v), mode: 'both' });
  return [...r.validations.flatMap((x) => [x.policy, x.binding]), ...r.mutations.flatMap((x) => [x.policy, x.binding])];
}

const PROPS: Record<string, { type: string; manifest: (p: never) => unknown }> = {
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy': { type: 'KubeValidatingAdmissionPolicyProps', manifest: k8s.KubeValidatingAdmissionPolicy.manifest },
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding': { type: 'KubeValidatingAdmissionPolicyBindingProps', manifest: k8s.KubeValidatingAdmissionPolicyBinding.manifest },
  'admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicy': { type: 'KubeMutatingAdmissionPolicyV1Alpha1Props', manifest: k8s.KubeMutatingAdmissionPolicyV1Alpha1.manifest },
  'admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyBinding': { type: 'KubeMutatingAdmissionPolicyBindingV1Alpha1Props', manifest: k8s.KubeMutatingAdmissionPolicyBindingV1Alpha1.manifest },
};

function propsOf(o: JsonObject): JsonObject {
  const { apiVersion, kind, ...rest } = o;
  void apiVersion;
  void kind;
  return rest;
}

describe('exported objects against the Kubernetes 1.33 API schema', () => {
  const objs = objectsFor('1.33');

  test('both kinds are exported for 1.33 (v1 validating, v1alpha1 mutating)', () => {
    const kinds = new Set(objs.map((o) => `${String(o.apiVersion)} ${String(o.kind)}`));
    expect([...kinds].sort()).toEqual(Object.keys(PROPS).sort());
  });

  test('the generated toJson keeps every field (no field unknown to the schema)', () => {
    for (const o of objs) {
      const p = PROPS[`${String(o.apiVersion)} ${String(o.kind)}`];
      expect(JSON.parse(JSON.stringify(p.manifest(propsOf(o) as never)))).toEqual(o);
    }
  });

  test('the generated interfaces type-check every object (types, required fields, no extra fields)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-vap-schema-'));
    const k8sPath = require.resolve('cdk8s-plus-33/lib/imports/k8s').replace(/\.js$/, '');
    const lines = [`import * as k8s from ${JSON.stringify(k8sPath)};`];
    objs.forEach((o, i) => lines.push(`export const o${i}: k8s.${PROPS[`${String(o.apiVersion)} ${String(o.kind)}`].type} = ${JSON.stringify(propsOf(o))};`));
    const file = path.join(dir, 'objects.ts');
    fs.writeFileSync(file, lines.join('\n'));
    const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, esModuleInterop: true });
    const diags = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diags).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('API versions, names and enumerations per target version', () => {
  const cases: [string, string | undefined][] = [
    ['1.30', undefined],
    ['1.31', undefined],
    ['1.32', 'admissionregistration.k8s.io/v1alpha1'],
    ['1.33', 'admissionregistration.k8s.io/v1alpha1'],
    ['1.34', 'admissionregistration.k8s.io/v1beta1'],
    ['1.35', 'admissionregistration.k8s.io/v1beta1'],
    ['1.36', 'admissionregistration.k8s.io/v1'],
    ['1.37', 'admissionregistration.k8s.io/v1'],
  ];
  for (const [v, mutating] of cases) {
    test(`${v}: ValidatingAdmissionPolicy v1, MutatingAdmissionPolicy ${mutating ?? 'absent'}`, () => {
      const objs = objectsFor(v);
      for (const o of objs) {
        const kind = String(o.kind);
        expect(o.apiVersion).toBe(kind.startsWith('Validating') ? 'admissionregistration.k8s.io/v1' : mutating);
        const meta = o.metadata as JsonObject;
        // DNS subdomain names (the API validates metadata.name of cluster-scoped objects so).
        expect(String(meta.name)).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
        expect(String(meta.name).length).toBeLessThanOrEqual(253);
        const spec = o.spec as JsonObject;
        if (kind.endsWith('Binding')) {
          expect(spec.policyName).toBe(meta.name);
          if (kind.startsWith('Validating')) {
            const actions = spec.validationActions as string[];
            expect(actions.length).toBe(1);
            expect(['Deny', 'Warn', 'Audit']).toContain(actions[0]);
          }
          continue;
        }
        expect(['Ignore', 'Fail']).toContain(spec.failurePolicy);
        for (const c of (spec.matchConditions as JsonObject[]) ?? []) expect(String(c.name)).toMatch(/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/);
        for (const x of (spec.variables as JsonObject[]) ?? []) expect(String(x.name)).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
        expect(((spec.matchConstraints as JsonObject).resourceRules as JsonObject[]).length).toBeGreaterThan(0);
        if (kind === 'MutatingAdmissionPolicy') {
          expect(['Never', 'IfNeeded']).toContain(spec.reinvocationPolicy);
          for (const m of spec.mutations as JsonObject[]) expect(m.patchType).toBe('JSONPatch');
        }
      }
      expect(objs.some((o) => o.kind === 'MutatingAdmissionPolicy')).toBe(mutating !== undefined);
    });
  }

  test('below 1.30 there is no ValidatingAdmissionPolicy v1: export refuses', () => {
    expect(() => exportPolicies({ rules: ALL_RULES, policy, version: KubeVersion.parse('1.29'), mode: 'validate' })).toThrow(/needs Kubernetes >= 1.30/);
  });
});

describe('exported objects against a Kubernetes >= 1.36 OpenAPI schema (kubernetes-models 5.1.0 validators)', () => {
  // The validators are ajv code generated from the OpenAPI document (types, enums, required fields);
  // they do not reject unknown fields, which the 1.33 checks above do.
  const check = (objs: JsonObject[]): Array<{ kind: string; name: string; error: string }> => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-schema-'));
    try {
      const file = path.join(dir, 'objects.json');
      fs.writeFileSync(file, JSON.stringify(objs));
      const r = spawnSync(process.execPath, [path.join(__dirname, 'schema-check.mjs'), file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      return JSON.parse(r.stdout) as Array<{ kind: string; name: string; error: string }>;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  test.each(['1.30', '1.36', '1.37'])('every v1 object exported for %s is valid', (v) => {
    const objs = objectsFor(v).filter((o) => o.apiVersion === 'admissionregistration.k8s.io/v1');
    expect(objs.length).toBeGreaterThan(0);
    if (v !== '1.30') expect(objs.some((o) => o.kind === 'MutatingAdmissionPolicy')).toBe(true);
    expect(check(objs)).toEqual([]);
  });

  test('the validators reject a broken MutatingAdmissionPolicy (the check can fail)', () => {
    const map = objectsFor('1.36').find((o) => o.kind === 'MutatingAdmissionPolicy')!;
    const broken = JSON.parse(JSON.stringify(map)) as JsonObject & { spec: JsonObject & { mutations: JsonObject[] } };
    broken.spec.failurePolicy = 'Sometimes';
    broken.spec.mutations[0].patchType = 7;
    const bad = check([broken]);
    expect(bad).toHaveLength(1);
    expect(bad[0].error).toMatch(/failurePolicy|patchType/);
  });
});

describe('the 1.34-1.35 v1beta1 MutatingAdmissionPolicy objects', () => {
  // No package here has the v1beta1 schema; its fields are those of v1alpha1 and v1 (k8s-openapi's
  // v1_35 v1beta1 and v1_36 v1 MutatingAdmissionPolicySpec). What is exported for 1.34/1.35 is the
  // v1 export of the same policies under the v1beta1 apiVersion, so the v1 validation above covers
  // every field written.
  const mutating = (v: string) => objectsFor(v).filter((o) => /^Mutating/.test(String(o.kind)));
  test.each(['1.34', '1.35'])('%s: the same objects as for 1.36 but for the apiVersion', (v) => {
    const beta = mutating(v);
    expect(beta.length).toBeGreaterThan(0);
    expect(beta.every((o) => o.apiVersion === 'admissionregistration.k8s.io/v1beta1')).toBe(true);
    expect(beta.map((o) => ({ ...o, apiVersion: 'admissionregistration.k8s.io/v1' }))).toEqual(mutating('1.36'));
  });
});
