/**
 * Every warning and error kubegrace reports on the real-world corpus (../shared/corpus/rendered, at
 * Kubernetes 1.31, the version it was rendered for) is reviewed in reviewed.yaml as an SRE would:
 * right, debatable (with why), or wrong. A finding that is not reviewed, a review of a finding that
 * is no longer reported, and any finding reviewed as wrong fail this test: precision is the product.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/rendered');
const REVIEWED = path.join(__dirname, 'reviewed.yaml');

interface Review {
  file: string;
  object: string;
  rule: string;
  pointer: string;
  severity: 'warning' | 'error';
  verdict: 'right' | 'debatable' | 'wrong';
  reason: string;
}

const key = (x: { file: string; object: string; rule: string; pointer: string; severity: string }) => `${x.file} ${x.object} ${x.rule} ${x.pointer} ${x.severity}`;

function reported(): Map<string, string> {
  const policy = loadPolicy('recommended', ALL_RULES);
  const out = new Map<string, string>();
  for (const f of fs.readdirSync(CORPUS).filter((x) => x.endsWith('.yaml')).sort()) {
    const r = lintSources([{ file: f, text: fs.readFileSync(path.join(CORPUS, f), 'utf8') }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.31') });
    for (const x of r.findings) {
      if (x.suppressed || (x.severity !== 'warning' && x.severity !== 'error')) continue;
      out.set(key({ file: f, object: `${x.object.kind}/${x.object.name}`, rule: x.ruleId, pointer: x.pointer, severity: x.severity }), x.message);
    }
  }
  return out;
}

describe('corpus findings are reviewed', () => {
  const reviews = parse(fs.readFileSync(REVIEWED, 'utf8')) as Review[];
  const found = reported();

  test('the review file is well formed: one entry per finding, a verdict and a reason each', () => {
    const keys = reviews.map(key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of reviews) {
      expect(['right', 'debatable', 'wrong']).toContain(r.verdict);
      expect(r.reason.length).toBeGreaterThan(20);
    }
  });

  test('every warning and error on the corpus is reviewed', () => {
    const reviewed = new Set(reviews.map(key));
    const missing = [...found].filter(([k]) => !reviewed.has(k)).map(([k, m]) => `${k}\n    ${m}`);
    expect(missing).toEqual([]);
  });

  test('no review is stale (each reviewed finding is still reported)', () => {
    expect(reviews.filter((r) => !found.has(key(r))).map(key)).toEqual([]);
  });

  test('no finding reviewed as wrong remains', () => {
    expect(reviews.filter((r) => r.verdict === 'wrong').map((r) => `${key(r)}: ${r.reason}`)).toEqual([]);
  });

  test('the debatable ones are few and each says why', () => {
    const debatable = reviews.filter((r) => r.verdict === 'debatable');
    // The count is stated in the closing note; raise it only with a reason in the entry.
    expect(debatable.length).toBeLessThanOrEqual(Math.ceil(reviews.length * 0.05));
  });
});
