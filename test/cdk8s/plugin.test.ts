/**
 * The validation plugin against the cdk8s-cli contract, in process: the real ValidationContext and
 * ValidationReport classes of cdk8s-cli, fed with manifests on disk.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Validation, ValidationContext as CliContextType } from 'cdk8s-cli/lib/plugins/validation';
import { KubegraceValidation, KubegraceValidationProps } from '../../lib/cdk8s';
import { ruleFixText } from '../../lib/cdk8s/plugin';
import { ALL_RULES } from '../../lib/rules';

// cdk8s-cli's own context and report classes (its package exports only './plugins', which the
// type checker's node10 resolution cannot see: the types come from the file, the class from its path).
const { ValidationContext: CliContext } = require(path.resolve(__dirname, '../../node_modules/cdk8s-cli/lib/plugins/validation.js')) as {
  ValidationContext: new (...args: ConstructorParameters<typeof CliContextType>) => CliContextType;
};

const GOOD = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: web:1
`;

/** preStop 20 s >= grace 10 s on a served Deployment: a grace-period-budget error. */
const BAD = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: app
        image: api:1
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {path: /readyz, port: 8080}}
        lifecycle: {preStop: {exec: {command: [sleep, "20"]}}}
---
apiVersion: v1
kind: Service
metadata: {name: api-svc, namespace: shop}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 8080}]
`;

let dir: string;
let cwd: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-plugin-'));
  cwd = process.cwd();
  process.chdir(dir);
});
afterEach(() => {
  process.chdir(cwd);
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
  return f;
}

async function run(files: string[], props: KubegraceValidationProps = {}, metadata: Record<string, { path: string }> = {}) {
  const ctx = new CliContext(files, 'kubegrace', '0.1.0', metadata, false);
  const logs: string[] = [];
  (ctx.logger as { log: (m: string) => void }).log = (m: string) => logs.push(m);
  await new KubegraceValidation(props).validate(ctx);
  return { json: ctx.report.toJson(), text: ctx.report.toString(), success: ctx.report.success, logs };
}

describe('KubegraceValidation', () => {
  test('implements cdk8s-cli\'s Validation interface', () => {
    const v: Validation = new KubegraceValidation();
    expect(typeof v.validate).toBe('function');
  });

  test('a clean manifest: success, no violations, a summary', async () => {
    const r = await run([write('dist/good.yaml', GOOD)]);
    expect(r.success).toBe(true);
    expect(r.json.violations).toEqual([]);
    expect(r.json.summary.metadata).toMatchObject({ policy: 'strict', kubernetesVersion: '1.37', failOn: 'error', errors: '0', warnings: '0' });
    // Singular and plural as counted.
    expect(r.logs[0]).toMatch(/^kubegrace: 1 object in 1 manifest: 0 errors, 0 warnings, 0 info, 0 suppressed/);
    expect(r.logs).toHaveLength(1);
  });

  test('an error finding fails: rule ID, severity, message, object, pointer, file:line:col, construct path', async () => {
    const file = write('dist/bad.yaml', BAD);
    const r = await run([file], {}, { api: { path: 'app/api/Resource' } });
    expect(r.success).toBe(false);
    const v = r.json.violations.find((x) => x.ruleName === 'grace-period-budget')!;
    expect(v.recommendation).toMatch(/^error: container "app": preStop delay 20s >= terminationGracePeriodSeconds \(10s\)/);
    // How to fix: the finding's own repair, then where the rule's doc is (inside the installed package).
    expect(v.fix.split('\n')[0]).toBe('raise terminationGracePeriodSeconds to 35 (preStop + drain + addend + margin)');
    expect(v.fix).toMatch(/\n  Rule doc: \S+docs\/rules\/grace-period-budget\.md$/);
    expect(v.fix).not.toContain(v.recommendation);
    const docFile = v.fix.split('Rule doc: ')[1];
    expect(fs.existsSync(path.resolve(dir, docFile))).toBe(true);
    // A rule without a finding-specific repair shows the Fix section of its doc, not its one-line description.
    expect(r.logs[1].split('\n')[0]).toMatch(/^  error +grace-period-budget  Deployment\/shop\/api  dist\/bad.yaml:\d+:\d+$/);
    expect(v.violatingConstructs).toEqual([
      {
        resourceName: 'api',
        constructPath: 'app/api/Resource',
        manifestPath: 'dist/bad.yaml',
        locations: [expect.stringMatching(/^Deployment\/shop\/api \/spec\/template\/spec\/containers\/0\/lifecycle\/preStop \(dist\/bad.yaml:\d+:\d+\)$/)],
      },
    ]);
    expect(r.text).toContain('grace-period-budget');
    expect(r.text).toContain('Construct Path: app/api/Resource');
    expect(r.text).toContain('Manifest Path: dist/bad.yaml');
  });

  test('a Deployment and a Service of the same name: the resource is named Kind/name, not mapped to the wrong construct', async () => {
    // cdk8s's construct metadata is keyed by metadata.name only: here it holds the Service's path.
    const file = write('dist/same.yaml', BAD.replace('metadata: {name: api-svc, namespace: shop}', 'metadata: {name: api, namespace: shop}'));
    const r = await run([file], {}, { api: { path: 'app/api/Service/Resource' } });
    const v = r.json.violations.find((x) => x.ruleName === 'grace-period-budget')!;
    expect(v.violatingConstructs[0]).toMatchObject({ resourceName: 'Deployment/api', constructPath: undefined });
    expect(r.text).not.toContain('app/api/Service/Resource');
  });

  test('warnings are reported but fail only with failOn: warning', async () => {
    const file = write('w.yaml', BAD.replace('terminationGracePeriodSeconds: 10', 'terminationGracePeriodSeconds: 25'));
    const lenient = await run([file]);
    expect(lenient.json.violations.map((v) => v.ruleName)).toContain('grace-period-budget');
    expect(lenient.json.violations.every((v) => v.recommendation.startsWith('warning: '))).toBe(true);
    // Severities are told apart: a warning below failOn says it does not fail the synth, in the report and the log.
    expect(lenient.json.violations.every((v) => v.recommendation.endsWith('(does not fail the synth: failOn is error)'))).toBe(true);
    expect(lenient.logs[0]).toMatch(/^kubegrace: 2 objects in 1 manifest: 0 errors, 2 warnings, /);
    expect(lenient.logs[1]).toMatch(/^  warning grace-period-budget .*\(does not fail the synth\)$/m);
    expect(lenient.success).toBe(true);
    expect((await run([file], { failOn: 'warning' })).success).toBe(false);
    expect((await run([write('e.yaml', BAD)], { failOn: 'never' })).success).toBe(true);
  });

  test('policy recommended keeps info as info; suppressed findings are not violations', async () => {
    const file = write('w.yaml', BAD.replace('terminationGracePeriodSeconds: 10', 'terminationGracePeriodSeconds: 40'));
    const strict = await run([file]);
    const recommended = await run([file], { policy: 'recommended' });
    expect(strict.json.summary.metadata?.info).toBe('0');
    expect(Number(recommended.json.summary.metadata?.info)).toBeGreaterThan(0);
    const sup = write('s.yaml', BAD.replace('metadata: {name: api, namespace: shop}', 'metadata: {name: api, namespace: shop, annotations: {kubegrace.dev/ignore: all, kubegrace.dev/ignore-reason: test}}'));
    const r = await run([sup]);
    expect(r.json.violations.filter((v) => v.violatingConstructs.some((c) => c.resourceName === 'api'))).toEqual([]);
    expect(r.success).toBe(true);
  });

  test('How to fix comes from the Fix section of the rule doc when the finding carries no repair', async () => {
    // A served container without a readiness probe: readiness-probe-missing has no automatic repair.
    const r = await run([write('p.yaml', BAD.replace('        readinessProbe: {httpGet: {path: /readyz, port: 8080}}\n', ''))]);
    const v = r.json.violations.find((x) => x.ruleName === 'readiness-probe-missing')!;
    expect(v.recommendation).toMatch(/^warning: /);
    expect(v.fix).toMatch(/^\n {4}readinessProbe:\n {6}httpGet: \{path: \/ready, port: http\} +# the app.s own readiness endpoint; without one, tcpSocket/);
    expect(v.fix).not.toContain('served container without readinessProbe');
  });

  test('ruleFixText reads every rule doc: a paragraph or an example, never the CLI --fix notes', () => {
    for (const r of ALL_RULES) {
      const t = ruleFixText(r.meta);
      expect([r.meta.id, typeof t === 'string' && t.trim().length > 10]).toEqual([r.meta.id, true]);
      expect([r.meta.id, t!.includes('--fix`:') || t!.includes('**')]).toEqual([r.meta.id, false]);
    }
  });

  test('colours only on a terminal or with FORCE_COLOR, never with NO_COLOR: errors red, warnings yellow', async () => {
    const env = { ...process.env };
    try {
      delete process.env.NO_COLOR;
      process.env.FORCE_COLOR = '1';
      const r = await run([write('w.yaml', BAD.replace('terminationGracePeriodSeconds: 10', 'terminationGracePeriodSeconds: 25'))]);
      expect(r.logs[1]).toContain('\x1b[33mwarning');
      const e = await run([write('e.yaml', BAD)]);
      expect(e.logs[1]).toContain('\x1b[31merror');
      process.env.NO_COLOR = '1';
      expect((await run([write('e.yaml', BAD)])).logs[1]).not.toContain('\x1b[');
    } finally {
      process.env = env;
    }
  });

  test('kubernetesVersion picks the gates', async () => {
    const sleep = write('s.yaml', BAD.replace('terminationGracePeriodSeconds: 10', 'terminationGracePeriodSeconds: 40').replace('{exec: {command: [sleep, "20"]}}', '{sleep: {seconds: 20}}'));
    expect((await run([sleep], { kubernetesVersion: '1.30' })).success).toBe(true);
    const old = await run([sleep], { kubernetesVersion: '1.29' });
    expect(old.success).toBe(false);
    expect(old.json.violations.map((v) => v.ruleName)).toContain('prestop-sleep-action');
  });

  test('settings come from .kubegrace.yaml when the properties do not name them', async () => {
    write('.kubegrace.yaml', 'policy: recommended\nkubernetesVersion: "1.29"\nfailOn: warning\nrules:\n  grace-period-budget: "off"\n');
    const r = await run([write('bad.yaml', BAD)]);
    expect(r.json.summary.metadata).toMatchObject({ policy: 'recommended', kubernetesVersion: '1.29', failOn: 'warning' });
    expect(r.json.violations.map((v) => v.ruleName)).not.toContain('grace-period-budget');
    const explicit = await run([write('bad.yaml', BAD)], { config: 'none.yaml' }).catch((e: Error) => e);
    expect(String(explicit)).toMatch(/none.yaml/);
  });

  test('unreadable input is a violation and fails', async () => {
    const r = await run([write('broken.yaml', 'kind: [\n')]);
    expect(r.success).toBe(false);
    expect(r.json.violations[0].ruleName).toBe('kubegrace/input-error');
  });

  test('bad properties are refused with what to write', () => {
    expect(() => new KubegraceValidation({ failOn: 'fatal' as never })).toThrow(/failOn must be error, warning, info or never/);
    expect(() => new KubegraceValidation({ polcy: 'strict' } as never)).toThrow(/unknown property "polcy"/);
    expect(() => new KubegraceValidation({ kubernetesVersion: 'x' })).toThrow(/invalid Kubernetes version/);
  });
});
