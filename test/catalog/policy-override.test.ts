/** A policy's spec.catalog: add entries, disable built-in ones; validated with the catalog schema. */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CATALOG_GENERATED, CATALOG_VALIDATORS_GENERATED, generateCatalogModule, generateCatalogValidatorsModule } from '../../lib/catalog/codegen';
import { builtinCatalog } from '../../lib/catalog';
import { CATALOG_DOC, catalogMarkdown } from '../../lib/catalog/docs';
import { loadPolicy, PolicyError } from '../../lib/engine/policy';
import { ALL_RULES } from '../../lib/rules';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const CORPUS = path.resolve(ROOT, '../shared/corpus/rendered');

function tmpDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-catalog-'));
  for (const [f, t] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), t);
  return dir;
}

const ACME_PROGRAM = `
      - id: acme-drain
        kind: prestop-program
        title: ACME drain
        match: {images: ["*/acme/api"]}
        preStop:
          command: '^/acme/drain$'
          delay: {seconds: 20}
        why: our drain program keeps serving 20 s, then drains
        source: [acme runbook RB-7]`;

const policy = (catalog: string) => `apiVersion: kubegrace.dev/v1
kind: Policy
metadata: {name: acme}
spec:
  extends: [recommended]
  catalog:${catalog}
`;

const api = (grace: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: ${grace}
      containers:
      - name: api
        image: registry.example.com/acme/api:3
        ports: [{containerPort: 8080}]
        lifecycle: {preStop: {exec: {command: [/acme/drain]}}}
---
apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 8080}]
`;

function lint(dir: string, file: string, policyFile?: string): { status: number | null; findings: { ruleId: string; severity: string; message: string }[]; stderr: string } {
  const r = runCli(['lint', file, '--format', 'json', '--kube-version', '1.31', ...(policyFile ? ['--policy', policyFile] : [])], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, findings: r.stdout ? JSON.parse(r.stdout).findings : [], stderr: r.stderr };
}

describe('policy spec.catalog', () => {
  test('an added preStop program gives its delay to the timeline (grace-period-budget judges it)', () => {
    const dir = tmpDir({ 'p.yaml': policy(`\n    add:${ACME_PROGRAM}`), 'api.yaml': api(15) });
    const without = lint(dir, 'api.yaml');
    expect(without.findings.filter((f) => f.ruleId === 'grace-period-budget')).toEqual([]);
    const withPolicy = lint(dir, 'api.yaml', 'p.yaml');
    expect(withPolicy.stderr).toBe('');
    expect(withPolicy.findings.filter((f) => f.ruleId === 'grace-period-budget').map((f) => f.severity)).toEqual(['error']);
  });

  test('disabling a built-in entry removes what it found (ingress-nginx /wait-shutdown on the corpus)', () => {
    const dir = tmpDir({ 'p.yaml': policy('\n    disable: [ingress-nginx-wait-shutdown]') });
    const file = path.join(CORPUS, 'ingress-nginx-static-cloud.yaml');
    expect(lint(dir, file).findings.filter((f) => f.ruleId === 'external-traffic-local')).toHaveLength(1);
    expect(lint(dir, file, 'p.yaml').findings.filter((f) => f.ruleId === 'external-traffic-local')).toHaveLength(0);
  });

  test('the policy catalog applies through extends', () => {
    const dir = tmpDir({ 'base.yaml': policy(`\n    add:${ACME_PROGRAM}`).replace('name: acme', 'name: base'), 'p.yaml': 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: child}\nspec:\n  extends: [base.yaml]\n', 'api.yaml': api(15) });
    expect(loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES).catalog?.get('acme-drain')).toBeDefined();
    expect(loadPolicy('recommended', ALL_RULES).catalog).toBeUndefined();
  });

  test.each([
    ['a bad kind', `\n    add:${ACME_PROGRAM.replace('kind: prestop-program', 'kind: prestop')}`, '/spec/catalog/add/0/kind', 9, /must be equal to one of the allowed values/],
    ['a missing source', `\n    add:${ACME_PROGRAM.replace('        source: [acme runbook RB-7]', '')}`, '/spec/catalog/add/0', 8, /must have required property 'source'/],
    ['a regex that does not compile', `\n    add:${ACME_PROGRAM.replace("'^/acme/drain$'", "'^(/acme/drain'")}`, '/spec/catalog/add/0/preStop/command', 13, /invalid regular expression/],
    ['an unknown ID to disable', '\n    disable: [ingress-nginx-wait-shutdwn]', '/spec/catalog/disable/0', 7, /unknown catalog entry "ingress-nginx-wait-shutdwn"/],
    ['an unknown field', '\n    remove: [istiod]', '/spec/catalog', 6, /unknown field "remove"/],
  ])('%s is rejected with the path (and line) of the field', (_n, catalog, pointer, line, message) => {
    const dir = tmpDir({ 'p.yaml': policy(catalog) });
    let err: unknown;
    try {
      loadPolicy(path.join(dir, 'p.yaml'), ALL_RULES);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyError);
    const p = (err as PolicyError).problems;
    expect(p.map((x) => [x.pointer, x.line])).toEqual([[pointer, line]]);
    expect(p[0].message).toMatch(message);
    // The CLI refuses it with exit 2 and the located message.
    fs.writeFileSync(path.join(dir, 'api.yaml'), api(60));
    const r = lint(dir, 'api.yaml', 'p.yaml');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`p.yaml:${line}:`);
    expect(r.stderr).toContain(pointer);
  });
});

describe('generated modules', () => {
  test(`${CATALOG_GENERATED} and ${CATALOG_VALIDATORS_GENERATED} are current (regenerate: npm run build && node build/scripts/gen-catalog.js)`, () => {
    expect(fs.readFileSync(path.join(ROOT, CATALOG_GENERATED), 'utf8') === generateCatalogModule(ROOT)).toBe(true);
    expect(fs.readFileSync(path.join(ROOT, CATALOG_VALIDATORS_GENERATED), 'utf8') === generateCatalogValidatorsModule(ROOT)).toBe(true);
  });
});

describe('docs/catalog.md', () => {
  test('is generated from the data (regenerate: npm run build && node build/scripts/gen-catalog.js)', () => {
    expect(fs.readFileSync(path.join(ROOT, CATALOG_DOC), 'utf8') === catalogMarkdown(builtinCatalog().entries)).toBe(true);
  });
  test('documents every entry', () => {
    const doc = fs.readFileSync(path.join(ROOT, CATALOG_DOC), 'utf8');
    for (const e of builtinCatalog().entries) {
      expect(doc).toContain(`### ${e.id}\n`);
      for (const s of e.source) expect(doc).toContain(s);
    }
  });
  test('its policy example is a valid policy that applies', () => {
    const doc = fs.readFileSync(path.join(ROOT, CATALOG_DOC), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1];
    const dir = tmpDir({ 'acme.yaml': example });
    const p = loadPolicy(path.join(dir, 'acme.yaml'), ALL_RULES);
    expect(p.catalog?.get('acme-gateway')?.connectionPattern).toBe('fan-in');
    expect(p.catalog?.get('nginx-quit')).toBeUndefined();
  });
});
