/**
 * Developer aid: lint every file of ../shared/corpus/rendered with the recommended policy and
 * print the findings (optionally only of the given rule IDs). Usage after `npm run build`:
 *   node build/scripts/corpus-report.js [rule-id ...]
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadPolicy } from '../lib/engine/policy';
import { lintSources } from '../lib/engine/run';
import { KubeVersion } from '../lib/engine/version';
import { ALL_RULES } from '../lib/rules';

const dir = path.resolve(__dirname, '../../../shared/corpus/rendered');
const only = new Set(process.argv.slice(2));
const policy = loadPolicy('recommended', ALL_RULES);
const counts = new Map<string, number>();
for (const f of fs.readdirSync(dir).sort()) {
  const text = fs.readFileSync(path.join(dir, f), 'utf8');
  const r = lintSources([{ file: f, text }], { rules: ALL_RULES, policy, version: KubeVersion.parse('1.31') });
  for (const e of r.errors) console.log(`${e.file}:${e.line}:${e.column} INPUT-ERROR ${e.message}`);
  for (const x of r.findings) {
    counts.set(x.ruleId, (counts.get(x.ruleId) ?? 0) + 1);
    if (only.size && !only.has(x.ruleId)) continue;
    console.log(`${x.file}:${x.line}:${x.column} ${x.severity} ${x.ruleId} ${x.object.kind}/${x.object.name} ${x.message}`);
  }
}
console.log('\ncounts:', JSON.stringify(Object.fromEntries([...counts].sort())));
