/**
 * Variants (engine/worlds.ts): files that define one object identity twice are alternatives, and
 * the rules judge each in its own world. Before, `kubegrace lint manifests/` over `dev/` and
 * `prod/` copies (no namespace: both `default`) joined the copies: "matches the pods of 2 workloads
 * (Deployment/api, Deployment/api)", budgets counting both copies' replicas, and a single-replica
 * webhook backend hidden behind the other copy's replicas.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { clusterIdentity, variantWorlds } from '../../lib/engine/worlds';
import { explainSources } from '../../lib/explain';
import { fixSources } from '../../lib/fix';
import { parseText } from '../../lib/model/parse';
import { KObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { yamlFiles } from '../helpers/files';

const opts = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };
const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');

function objectsOf(files: Record<string, string>): KObject[] {
  return Object.entries(files).flatMap(([file, text]) => parseText(file, text).objects);
}
const names = (ws: KObject[][]) => ws.map((w) => w.map((o) => `${o.file}:${o.kind}/${o.name}`));

const cm = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data: {}\n`;

function app(replicas: number, opts: { svc?: string; pdb?: string } = {}): string {
  return [
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      terminationGracePeriodSeconds: 40
      containers:
        - name: api
          image: example.com/api:1.0
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /ready, port: http}}
          lifecycle: {preStop: {sleep: {seconds: 10}}}
`,
    `apiVersion: v1
kind: Service
metadata:
  name: ${opts.svc ?? 'api'}
spec:
  selector: {app: api}
  ports: [{name: http, port: 80, targetPort: http}]
`,
    ...(opts.pdb ? [opts.pdb] : []),
  ].join('---\n');
}

describe('variantWorlds', () => {
  test('no identity in two files: one world, the very array', () => {
    const objects = objectsOf({ 'a.yaml': cm('a'), 'b.yaml': cm('b') });
    const worlds = variantWorlds(objects);
    expect(worlds).toHaveLength(1);
    expect(worlds[0]).toBe(objects);
  });

  test('copies of one identity inside one file are not variants', () => {
    const objects = objectsOf({ 'a.yaml': `${cm('a')}---\n${cm('a')}`, 'b.yaml': cm('b') });
    expect(variantWorlds(objects)[0]).toBe(objects);
  });

  test('identity: API group, kind, namespace (default when unset) and name; not the version; generateName is none', () => {
    const id = (t: string) => clusterIdentity(parseText('x.yaml', t).objects[0]);
    const dep = (v: string, ns = '') => `apiVersion: ${v}\nkind: Deployment\nmetadata:\n  name: api\n${ns}spec: {}\n`;
    expect(id(dep('apps/v1'))).toBe(id(dep('apps/v1beta2')));
    expect(id(dep('apps/v1'))).toBe(id(dep('apps/v1', '  namespace: default\n')));
    expect(id(dep('apps/v1'))).not.toBe(id(dep('extensions/v1beta1')));
    expect(id(dep('apps/v1'))).not.toBe(id(dep('apps/v1', '  namespace: prod\n')));
    expect(id(`apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: job-\nspec: {}\n`)).toBeUndefined();
    // Cluster-scoped kinds have no namespace: a name alone.
    expect(id(`apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n`)).toBe(id(`apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n  namespace: ignored\n`));
  });

  test('files that share only a Namespace are two apps using it, not variants', () => {
    const ns = `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n`;
    const objects = objectsOf({ 'apps/a/ns.yaml': ns, 'apps/a/cm.yaml': cm('a'), 'apps/b/ns.yaml': ns, 'apps/b/cm.yaml': cm('b') });
    expect(variantWorlds(objects)[0]).toBe(objects);
  });

  test('files sharing generateName objects only are not variants', () => {
    const job = `apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: migrate-\nspec: {}\n`;
    const objects = objectsOf({ 'a.yaml': job, 'b.yaml': job });
    expect(variantWorlds(objects)).toHaveLength(1);
  });

  test('dev/ and prod/ copies: each copy with the files of its directory; a file without variants elsewhere in every world', () => {
    const objects = objectsOf({
      'shared/quota.yaml': cm('quota'),
      'dev/app.yaml': cm('api'),
      'dev/extra-dev.yaml': cm('only-dev'),
      'prod/app.yaml': cm('api'),
      'prod/extra-prod.yaml': cm('only-prod'),
    });
    expect(names(variantWorlds(objects))).toEqual([
      ['shared/quota.yaml:ConfigMap/quota', 'dev/app.yaml:ConfigMap/api', 'dev/extra-dev.yaml:ConfigMap/only-dev'],
      ['shared/quota.yaml:ConfigMap/quota', 'prod/app.yaml:ConfigMap/api', 'prod/extra-prod.yaml:ConfigMap/only-prod'],
    ]);
  });

  test('a file joins the world holding most files of its directory, and no world with a file it conflicts with', () => {
    // Input order puts prod's database before dev's: the directory decides, not the order.
    const objects = objectsOf({
      'dev/app.yaml': cm('api'),
      'prod/app.yaml': cm('api'),
      'prod/db.yaml': cm('db'),
      'dev/db.yaml': cm('db'),
      'staging/app.yaml': cm('api'),
    });
    expect(names(variantWorlds(objects))).toEqual([
      ['dev/app.yaml:ConfigMap/api', 'dev/db.yaml:ConfigMap/db'],
      ['prod/app.yaml:ConfigMap/api', 'prod/db.yaml:ConfigMap/db'],
      ['staging/app.yaml:ConfigMap/api'],
    ]);
  });

  test('a file that conflicts with files of two worlds gets a world of its own', () => {
    const objects = objectsOf({ 'a.yaml': `${cm('x')}---\n${cm('y')}`, 'b.yaml': cm('x'), 'c.yaml': `${cm('x')}---\n${cm('y')}` });
    const ws = names(variantWorlds(objects));
    expect(ws).toHaveLength(3);
    for (const w of ws) expect(new Set(w.map((n) => n.split(':')[0])).size).toBe(1);
  });
});

describe('the lint judges each variant in its own world', () => {
  test('dev/ and prod/ copies of one app (no namespace): no Service "mixing" the two copies, and each copy keeps its own findings', () => {
    const pdb = (min: number) => `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: api
spec:
  minAvailable: ${min}
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels: {app: api}
`;
    const sources = [
      { file: 'dev/app.yaml', text: app(1, { pdb: pdb(1) }) },
      { file: 'prod/app.yaml', text: app(3, { pdb: pdb(1) }) },
    ];
    const r = lintSources(sources, opts);
    const seen = r.findings.map((f) => `${f.file} ${f.ruleId}: ${f.message}`);
    // Joined, the Service would select "2 workloads (Deployment/api, Deployment/api)" and the
    // budget would count 4 pods.
    expect(seen.filter((s) => /matches the pods of 2 workloads|Deployment\/api, Deployment\/api/.test(s))).toEqual([]);
    // dev's budget: minAvailable 1 of 1 replica allows no disruption; prod's (1 of 3) does.
    expect(seen.filter((s) => s.includes('pdb-blocks-eviction'))).toEqual([expect.stringMatching(/^dev\/app\.yaml pdb-blocks-eviction: minAvailable 1 with 1 pod/)]);
    // The same findings as each file linted alone.
    const alone = sources.flatMap((s) => lintSources([s], opts).findings);
    expect(r.findings).toEqual(alone);
  });

  test('the corpus directory linted at once gives exactly the findings of each file linted alone', () => {
    const files = yamlFiles(CORPUS);
    expect(files.length).toBeGreaterThan(30);
    const sources = files.map((f) => ({ file: f, text: fs.readFileSync(f, 'utf8') }));
    const key = (f: { file: string; line: number; column: number; ruleId: string; severity: string; message: string; suppressed: boolean }) =>
      `${f.file}:${f.line}:${f.column} ${f.ruleId} ${f.severity} ${f.suppressed} ${f.message}`;
    const together = lintSources(sources, opts).findings.map(key);
    const alone = sources.flatMap((s) => lintSources([s], opts).findings.map(key));
    expect(together).toEqual(alone);
  });

  test('a finding of an object in every world (a file without variants) is reported once', () => {
    const pdb = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: api
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: api}
`;
    const sources = [
      { file: 'base/pdb.yaml', text: pdb },
      { file: 'dev/app.yaml', text: app(2) },
      { file: 'prod/app.yaml', text: app(3) },
    ];
    const r = lintSources(sources, opts);
    expect(r.findings.filter((f) => f.file === 'base/pdb.yaml' && f.ruleId === 'pdb-unhealthy-eviction-policy')).toHaveLength(1);
  });

  test('--fix repairs each variant and a file shared by the worlds once', () => {
    const pdb = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: api
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: api}
`;
    const noPreStop = (replicas: number) => app(replicas).replace('          lifecycle: {preStop: {sleep: {seconds: 10}}}\n', '');
    const sources = [
      { file: 'base/pdb.yaml', text: pdb },
      { file: 'dev/app.yaml', text: noPreStop(2) },
      { file: 'prod/app.yaml', text: noPreStop(3) },
    ];
    const r = fixSources(sources, { ...opts, proposals: true });
    expect(r.converged).toBe(true);
    const applied = (file: string) => r.files.find((f) => f.file === file)!.applied.map((a) => a.ruleId);
    expect(applied('dev/app.yaml')).toContain('prestop-missing');
    expect(applied('prod/app.yaml')).toContain('prestop-missing');
    expect(applied('base/pdb.yaml')).toEqual(['pdb-unhealthy-eviction-policy']);
    expect(r.files.find((f) => f.file === 'base/pdb.yaml')!.text.match(/unhealthyPodEvictionPolicy/g)).toHaveLength(1);
    // The report of what remains equals a lint of the fixed texts.
    const again = lintSources(r.files.map((f) => ({ file: f.file, text: f.text })), opts);
    expect(r.lint.findings.map((f) => `${f.file}:${f.line} ${f.ruleId} ${f.message}`)).toEqual(again.findings.map((f) => `${f.file}:${f.line} ${f.ruleId} ${f.message}`));
  });

  test('explain lists each copy once and explains it in its own world', () => {
    const sources = [
      // dev's copy has no Service: joined with prod's, prod's Service would serve it.
      { file: 'dev/app.yaml', text: app(1).split('---\n')[0] },
      { file: 'prod/app.yaml', text: app(3) },
    ];
    const run = explainSources(sources, { ...opts, object: 'deployment/api' });
    expect(run.workloads.map((w) => w.obj.file)).toEqual(['dev/app.yaml', 'prod/app.yaml']);
    expect(run.timelines.map((t) => [t.object.file, t.servedState])).toEqual([
      ['dev/app.yaml', 'unknown'],
      ['prod/app.yaml', 'served'],
    ]);
  });
});
