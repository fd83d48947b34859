/**
 * Issue 11 acceptance: the teleport-cluster 2022 HA render (real corpus file, no hint) gets
 * min-ready-seconds on the proxy Deployment with the reconnect-model numbers, from the catalog.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const CORPUS = path.resolve(ROOT, '../shared/corpus/rendered');

interface F {
  ruleId: string;
  severity: string;
  message: string;
  object: { kind: string; name: string };
  pointer: string;
  line: number;
}
function lint(file: string, extra: string[] = []): F[] {
  // (--quiet: the 2022 chart's Role and RoleBinding name no namespace, and the note says where they are taken to be.)
  const r = runCli(['lint', file, '--format', 'json', '--kube-version', '1.31', '--quiet', ...extra], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout).findings as F[]).filter((f) => f.ruleId === 'min-ready-seconds');
}

test('the corpus files carry no connection-pattern hint (the catalog alone recognises Teleport)', () => {
  for (const f of fs.readdirSync(CORPUS).filter((x) => x.startsWith('teleport-'))) expect(fs.readFileSync(path.join(CORPUS, f), 'utf8')).not.toContain('kubegrace.dev/');
});

test('teleport-cluster-2022-ha-pdb: the 3-replica auth+proxy Deployment gets min-ready-seconds 20 (3 replicas, P=0.7, linear:2-4)', () => {
  const fs_ = lint(path.join(CORPUS, 'teleport-cluster-2022-ha-pdb.yaml'));
  expect(fs_.map((f) => [f.object.kind, f.object.name, f.severity, f.pointer])).toEqual([['Deployment', 'teleport', 'warning', '/spec']]);
  expect(fs_[0].message).toBe(
    'minReadySeconds 0s is below the 20s fan-in clients (Teleport proxy (also the single-binary auth+proxy of the 2022 chart): catalog entry teleport-proxy) need to reconnect to a new replica before the next one is replaced (3 replicas, P=0.7, linear:2-4: 1.97 retries, up to 19.5s); set minReadySeconds: 20',
  );
});

test('--fix-proposals writes minReadySeconds: 20 and the finding goes away', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-teleport-'));
  const file = path.join(dir, 'teleport.yaml');
  fs.writeFileSync(file, fs.readFileSync(path.join(CORPUS, 'teleport-cluster-2022-ha-pdb.yaml')));
  const r = runCli(['lint', file, '--kube-version', '1.31', '--fix', '--fix-proposals', '--fail-on', 'never'], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(fs.readFileSync(file, 'utf8')).toMatch(/\n {2}minReadySeconds: 20\n/);
  expect(lint(file)).toEqual([]);
});

test.each(['teleport-cluster-2022.yaml', 'teleport-cluster.yaml', 'teleport-cluster-ha-pdb.yaml', 'teleport-kube-agent.yaml', 'teleport-kube-agent-ha-pdb.yaml'])(
  '%s: no min-ready-seconds (one proxy replica, or agents only)',
  (f) => expect(lint(path.join(CORPUS, f))).toEqual([]),
);
