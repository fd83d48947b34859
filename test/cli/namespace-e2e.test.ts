/**
 * `lint --namespace NS` on plain files and stdin, through the built bin: their namespaced objects
 * that name no namespace are judged in NS, as `kubectl apply -n NS` creates them (before, the flag
 * applied to charts only and was silently ignored for files: a Deployment written without a
 * namespace was judged in default, away from the PodDisruptionBudget of its namespace). The
 * manifest stays as written: --fix writes no namespace into it.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
`;
const PDB = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector: {matchLabels: {app: web}}
`;
const OTHER = `apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: jobs}
spec:
  replicas: 2
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers: [{name: app, image: batch:1}]
`;

const SERVICE = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
`;

type Json = { findings: { ruleId: string; object: { kind: string; name: string; namespace?: string } }[] };

describe('lint --namespace on files', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-ns-'));
    fs.writeFileSync(path.join(dir, 'deployment.yaml'), DEPLOYMENT);
    fs.writeFileSync(path.join(dir, 'pdb.yaml'), PDB);
    fs.writeFileSync(path.join(dir, 'other.yaml'), OTHER);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const lint = (args: string[], input?: string) => {
    const r = runCli(['lint', ...args, '--format', 'json', '--kube-version', '1.33'], { cwd: dir, encoding: 'utf8', input });
    return { code: r.status, json: JSON.parse(r.stdout) as Json, stderr: r.stderr };
  };
  const pdbMissing = (j: Json) => j.findings.filter((f) => f.ruleId === 'pdb-missing').map((f) => `${f.object.namespace}/${f.object.name}`);

  test('objects that name no namespace are judged in it; those that name one keep theirs', () => {
    // Without the flag the Deployment is in default, where no budget selects it.
    expect(pdbMissing(lint(['deployment.yaml', 'pdb.yaml', 'other.yaml']).json)).toEqual(['default/web', 'jobs/batch']);
    const shop = lint(['deployment.yaml', 'pdb.yaml', 'other.yaml', '--namespace', 'shop']);
    expect(pdbMissing(shop.json)).toEqual(['jobs/batch']);
    expect(shop.json.findings.filter((f) => f.object.name === 'web').every((f) => f.object.namespace === 'shop')).toBe(true);
  });

  // (Review round 15: explain had no --namespace, so a render whose budget alone names the namespace could not be placed.)
  test('explain -n places the objects that name none as lint -n does', () => {
    const explain = (args: string[]) => runCli(['explain', 'pdb.yaml', 'deployment.yaml', ...args, '--kube-version', '1.33', '--no-color'], { cwd: dir, encoding: 'utf8' });
    const rollout = (out: string) => out.split('\n').filter((l) => /PodDisruptionBudget|no PodDisruptionBudget/.test(l)).join('\n');
    expect(rollout(explain([]).stdout)).toContain('no PodDisruptionBudget');
    const r = explain(['-n', 'shop']);
    expect(r.status).toBe(0);
    expect(rollout(r.stdout)).toContain('PodDisruptionBudget/web (maxUnavailable 1) allows 1 eviction at a time with 2 pods');
  });

  test('-n is --namespace, as in kubectl and helm', () => {
    expect(pdbMissing(lint(['deployment.yaml', 'pdb.yaml', '-n', 'shop']).json)).toEqual([]);
  });

  test('stdin too', () => {
    expect(pdbMissing(lint(['-', 'pdb.yaml', '--namespace', 'shop'], DEPLOYMENT).json)).toEqual([]);
    expect(pdbMissing(lint(['-', 'pdb.yaml'], DEPLOYMENT).json)).toEqual(['default/web']);
  });

  test('--fix judges in the namespace, writes none into the manifest, and a second run has nothing to do', () => {
    const file = path.join(dir, 'fix.yaml');
    fs.writeFileSync(file, DEPLOYMENT);
    const r = runCli(['lint', 'fix.yaml', '--namespace', 'shop', '--fix', '--fix-proposals', '--format', 'json', '--kube-version', '1.33'], { cwd: dir, encoding: 'utf8' });
    const fixed = fs.readFileSync(file, 'utf8');
    expect(fixed).not.toContain('namespace');
    // Its own budget was proposed (no other input holds one), in the file, without a namespace.
    expect(fixed).toContain('kind: PodDisruptionBudget');
    const after = JSON.parse(r.stdout) as Json;
    expect(after.findings.length).toBeGreaterThan(0);
    expect(after.findings.every((f) => f.object.namespace === 'shop')).toBe(true);
    const again = runCli(['lint', 'fix.yaml', '--namespace', 'shop', '--fix', '--fix-proposals', '--kube-version', '1.33'], { cwd: dir, encoding: 'utf8' });
    expect(again.stderr).toContain('nothing to fix');
    expect(fs.readFileSync(file, 'utf8')).toBe(fixed);
  });

  // A chart template that forgets `namespace: {{ .Release.Namespace }}` (pmint93/metabase's HPA,
  // yugabyte's PDBs and headless Services): helm install -n puts it with the rest.
  test('a file whose other objects all name one namespace: the objects that name none are taken to be in it, and the CLI says so', () => {
    fs.writeFileSync(path.join(dir, 'chart.yaml'), `${DEPLOYMENT.replace('metadata: {name: web}', 'metadata: {name: web, namespace: shop}')}---\n${SERVICE}---\n${PDB.replace(', namespace: shop', '')}`);
    const r = lint(['chart.yaml']);
    expect(pdbMissing(r.json)).toEqual([]);
    expect(r.stderr).toBe(
      'kubegrace: note: chart.yaml: 1 namespaced object without metadata.namespace taken to be in namespace shop, the only one the file\'s other objects name (helm install -n shop puts them there); pass --namespace to say otherwise\n',
    );
    expect(lint(['chart.yaml', '--quiet']).stderr).toBe('');
    // --namespace says otherwise: the PDB is then in that namespace, away from the Deployment.
    const other = lint(['chart.yaml', '--namespace', 'elsewhere']);
    expect(pdbMissing(other.json)).toEqual(['shop/web']);
    expect(other.stderr).toBe('');
  });

  test('no inference when the objects that name the namespace are not the most and nothing ties them to the others (a chart that puts only its ServiceMonitor in monitoring)', () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dashboards, namespace: monitoring}\ndata: {a: b}\n';
    fs.writeFileSync(path.join(dir, 'few.yaml'), `${DEPLOYMENT}---\n${cm}`);
    const few = lint(['few.yaml']);
    expect(pdbMissing(few.json)).toEqual(['default/web']);
    expect(few.stderr).toBe('');
  });

  // (Review round 15: the vernemq chart writes the namespace on its PodDisruptionBudget alone.)
  test('a PodDisruptionBudget that names the namespace and selects only the pods of workloads that name none: they are taken to be in it', () => {
    fs.writeFileSync(path.join(dir, 'pdb-only.yaml'), `${DEPLOYMENT}---\n${PDB}`);
    const r = lint(['pdb-only.yaml']);
    expect(r.stderr).toContain('1 namespaced object without metadata.namespace taken to be in namespace shop');
    expect(pdbMissing(r.json)).toEqual([]);
    // A budget selecting pods on both sides ties nothing.
    fs.writeFileSync(path.join(dir, 'pdb-both.yaml'), `${DEPLOYMENT}---\n${DEPLOYMENT.replace('metadata: {name: web}', 'metadata: {name: web2, namespace: shop}')}---\n${PDB}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: b}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {a: b}\n`);
    expect(lint(['pdb-both.yaml']).stderr).toBe('');
  });

  // (Review round 15: openmetadata's omjob-operator templates write the namespace, the server's do not.)
  test('a workload that names the namespace and one that names none of the same release (app.kubernetes.io/instance): the others are taken to be in it', () => {
    const release = (d: string) => d.replace('labels: {app: web}', 'labels: {app: web, app.kubernetes.io/instance: om}');
    const operator = release(DEPLOYMENT).replace('metadata: {name: web}', 'metadata: {name: operator, namespace: om}').replace(/app: web/g, 'app: op');
    const cm = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\ndata: {a: b}\n`;
    fs.writeFileSync(path.join(dir, 'release.yaml'), `${release(DEPLOYMENT)}---\n${operator}---\n${cm('a')}---\n${cm('b')}`);
    expect(lint(['release.yaml']).stderr).toContain('3 namespaced objects without metadata.namespace taken to be in namespace om');
    // Another release's workload: no inference.
    fs.writeFileSync(path.join(dir, 'release2.yaml'), `${release(DEPLOYMENT)}---\n${operator.replace('instance: om', 'instance: other')}---\n${cm('a')}---\n${cm('b')}`);
    expect(lint(['release2.yaml']).stderr).toBe('');
  });

  test('no inference when only objects beside the app name the namespace (a chart that puts its ServiceMonitor, rules and dashboards in monitoring)', () => {
    const cm = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}, namespace: monitoring}\ndata: {a: b}\n`;
    fs.writeFileSync(path.join(dir, 'mon.yaml'), `${cm('rules')}---\n${cm('dashboard')}---\n${cm('alerts')}---\n${DEPLOYMENT}---\n${PDB.replace(', namespace: shop', '')}`);
    const mon = lint(['mon.yaml']);
    expect(mon.stderr).toBe('');
    expect(mon.json.findings.filter((f) => f.object.name === 'web').every((f) => f.object.namespace === undefined || f.object.namespace === 'default')).toBe(true);
  });

  // (Review round 11: community-charts/outline, whose PVC and Secret templates write the namespace and whose Deployment does not.)
  test('a workload that names no namespace but uses a claim, ConfigMap or Secret the file has only in one namespace is taken to be in it', () => {
    const pvc = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: shop}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n';
    const cm = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\ndata: {a: b}\n`;
    const mounting = DEPLOYMENT.replace('replicas: 2', 'replicas: 1').replace('        ports: [{name: http, containerPort: 8080}]', '        ports: [{name: http, containerPort: 8080}]\n        volumeMounts: [{name: data, mountPath: /data}]\n      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]');
    // The named objects are fewer than the others and none is a workload or a Service: the claim decides.
    fs.writeFileSync(path.join(dir, 'claim.yaml'), `${pvc}---\n${cm('one')}---\n${cm('two')}---\n${mounting}`);
    const r = lint(['claim.yaml']);
    expect(r.stderr).toContain('3 namespaced objects without metadata.namespace taken to be in namespace shop');
    expect(r.json.findings.filter((f) => f.ruleId === 'surge-volume-deadlock').map((f) => `${f.object.namespace}/${f.object.name}`)).toEqual(['shop/web']);
    // A claim of that name without a namespace in the file too: no evidence, no inference.
    fs.writeFileSync(path.join(dir, 'claim2.yaml'), `${pvc}---\n${pvc.replace(', namespace: shop', '')}---\n${cm('one')}---\n${mounting}`);
    expect(lint(['claim2.yaml']).stderr).toBe('');
  });

  // (Review round 12: the supabase chart, whose Deployments name the namespace and whose Services, claims and Secrets do not.)
  test('workloads that name the namespace beside a Service that names none and selects only their pods, or claims they use that name none: the others are taken to be in it', () => {
    const svc = SERVICE.replace(', namespace: shop', '');
    const cm = (n: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\ndata: {a: b}\n`;
    const named = DEPLOYMENT.replace('metadata: {name: web}', 'metadata: {name: web, namespace: shop}');
    fs.writeFileSync(path.join(dir, 'svc-only.yaml'), `${named}---\n${svc}---\n${cm('a')}---\n${cm('b')}`);
    const r = lint(['svc-only.yaml']);
    expect(r.stderr).toContain('3 namespaced objects without metadata.namespace taken to be in namespace shop');
    expect(r.json.findings.filter((f) => f.ruleId === 'service-selector-ports')).toEqual([]);
    const claim = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n';
    const mounting = named.replace('        ports: [{name: http, containerPort: 8080}]', '        ports: [{name: http, containerPort: 8080}]\n        volumeMounts: [{name: data, mountPath: /data}]\n      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]');
    fs.writeFileSync(path.join(dir, 'claim-unnamed.yaml'), `${mounting}---\n${claim}---\n${cm('a')}---\n${cm('b')}`);
    expect(lint(['claim-unnamed.yaml']).stderr).toContain('3 namespaced objects without metadata.namespace taken to be in namespace shop');
  });

  test('a namespace that is no string (an input error of its own) is neither counted as none nor moved', () => {
    fs.writeFileSync(path.join(dir, 'bad-ns.yaml'), `${DEPLOYMENT.replace('metadata: {name: web}', 'metadata: {name: web, namespace: shop}')}---\n${SERVICE}---\n${PDB.replace('namespace: shop', 'namespace: 5')}`);
    const r = runCli(['lint', 'bad-ns.yaml', '--format', 'json', '--kube-version', '1.33'], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).not.toContain('taken to be in namespace');
    const j = JSON.parse(r.stdout) as Json & { errors: { message: string }[] };
    expect(j.errors.map((e) => e.message)).toEqual([expect.stringContaining('metadata.namespace is the number 5')]);
  });

  test('no inference across files, with two named namespaces in the file, or when no object names one', () => {
    fs.writeFileSync(path.join(dir, 'two.yaml'), `${OTHER}---\n${PDB}---\n${DEPLOYMENT}`);
    const two = lint(['two.yaml']);
    expect(pdbMissing(two.json)).toEqual(['jobs/batch', 'default/web']);
    expect(two.stderr).toBe('');
    expect(lint(['deployment.yaml', 'pdb.yaml']).stderr).toBe('');
    expect(lint(['deployment.yaml']).stderr).toBe('');
  });

  test('--fix with an inferred namespace writes none into the manifest', () => {
    const file = path.join(dir, 'chart-fix.yaml');
    const text = `${DEPLOYMENT.replace('metadata: {name: web}', 'metadata: {name: web, namespace: shop}')}---\n${SERVICE}---\n${PDB.replace(', namespace: shop', '').replace('  maxUnavailable: 1\n', '  minAvailable: 2\n')}`;
    fs.writeFileSync(file, text);
    runCli(['lint', 'chart-fix.yaml', '--fix', '--fix-proposals', '--kube-version', '1.33'], { cwd: dir, encoding: 'utf8' });
    const fixed = fs.readFileSync(file, 'utf8');
    expect(fixed.match(/namespace:/g)?.length).toBe(2);
  });
});
