/**
 * The real-world corpus (../shared/corpus/rendered: famous charts and manifests). Linting it never
 * crashes or exits 2, and the findings per file and rule are pinned in expected-counts.json after
 * review (see the closing notes of the rule issues). Regenerate deliberately with
 *   UPDATE_CORPUS=1 npx jest test/corpus
 * and review the diff: every change must be a finding an expert agrees with.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

const ROOT = path.resolve(__dirname, '../..');
const CORPUS = path.resolve(ROOT, '../shared/corpus/rendered');
const EXPECTED = path.join(__dirname, 'expected-counts.json');
/** The corpus was rendered with --kube-version 1.31.0 (INDEX.md). */
const VERSION = '1.31';

type Counts = Record<string, Record<string, Record<string, number>>>;

function countCorpus(): Counts {
  const policy = loadPolicy('recommended', ALL_RULES);
  const out: Counts = {};
  for (const f of fs.readdirSync(CORPUS).filter((x) => x.endsWith('.yaml')).sort()) {
    const r = lintSources([{ file: f, text: fs.readFileSync(path.join(CORPUS, f), 'utf8') }], { rules: ALL_RULES, policy, version: KubeVersion.parse(VERSION) });
    expect(r.errors).toEqual([]);
    const byRule: Record<string, Record<string, number>> = {};
    for (const x of r.findings) {
      byRule[x.ruleId] ??= {};
      byRule[x.ruleId][x.severity] = (byRule[x.ruleId][x.severity] ?? 0) + 1;
    }
    out[f] = Object.fromEntries(Object.entries(byRule).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
  return out;
}

describe('corpus', () => {
  beforeAll(() => {
    if (!fs.existsSync(CORPUS)) throw new Error(`corpus not found at ${CORPUS}: the repository expects ../shared beside it`);
  });

  test('the CLI never exits 2 or crashes on any corpus file', () => {
    const r = runCli(['lint', '.', '--format', 'json', '--kube-version', VERSION], { cwd: CORPUS, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    // Only the notes of namespace-less objects taken to be in their file's one namespace (the
    // teleport-2022 chart's Role and RoleBinding, which helm install -n puts with the rest).
    expect(r.stderr.split('\n').filter((l) => l && !/^kubegrace: note: teleport-cluster-2022(-ha-pdb)?\.yaml: 2 namespaced objects without metadata\.namespace taken to be in namespace teleport,/.test(l))).toEqual([]);
    expect(r.stderr).toContain('teleport-cluster-2022.yaml: 2 namespaced objects');
    expect([0, 1]).toContain(r.status);
    const j = JSON.parse(r.stdout);
    expect(j.errors).toEqual([]);
    expect(j.summary.files).toBe(39);
    expect(j.summary.objects).toBe(911);
  });

  test('findings per file and rule match the reviewed counts', () => {
    const counts = countCorpus();
    if (process.env.UPDATE_CORPUS) fs.writeFileSync(EXPECTED, JSON.stringify(counts, null, 2) + '\n');
    const expected = JSON.parse(fs.readFileSync(EXPECTED, 'utf8'));
    expect(counts).toEqual(expected);
  });
});
