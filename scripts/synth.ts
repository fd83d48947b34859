/**
 * `npm run synth`: synthesize the charts-src apps with the real `cdk8s synth` (whose kubegrace
 * validation plugin, configured in cdk8s.yaml, fails the synth on error findings), check that every
 * app was written to dist/manifests/<app>.yaml, then lint what was written with the strict policy
 * and --fail-on warning. Exits non-zero if any step fails.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { APPS } from '../charts-src/apps';
import { main } from '../lib/cli/main';

const root = path.resolve(__dirname, '../..');
const out = path.join(root, 'dist', 'manifests');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const cdk8s = path.join(root, 'node_modules', '.bin', 'cdk8s');
const r = spawnSync(cdk8s, ['synth', '--no-check-upgrade', '--output', out], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`cdk8s synth failed (exit ${r.status ?? r.signal})`);
  process.exit(r.status ?? 1);
}
fs.mkdirSync(out, { recursive: true });
// Written for the validation report only (construct paths by resource name); not a manifest.
fs.rmSync(path.join(out, 'construct-metadata.json'), { force: true });
const missing = Object.keys(APPS).filter((name) => !fs.existsSync(path.join(out, `${name}.yaml`)));
if (missing.length) {
  console.error(`cdk8s synth wrote no manifest for: ${missing.join(', ')}`);
  process.exit(1);
}
const files = fs.readdirSync(out).filter((f) => f.endsWith('.yaml'));
console.log(`synthesized ${files.length} app(s) into ${path.relative(root, out)}`);
const code = main(['lint', out, '--policy', 'strict', '--fail-on', 'warning']) as number;
process.exit(code);
