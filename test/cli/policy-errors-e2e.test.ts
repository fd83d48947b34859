/** Policy and config errors through the built CLI: all problems, once, on stderr, exit 2. */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const GOOD = path.join(ROOT, 'test/fixtures/good.yaml');

function kg(args: string[], cwd: string) {
  const r = runCli(args, { cwd, input: '', encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--policy stricter: exit 2, did you mean "strict"', () => {
  const r = kg(['lint', GOOD, '--policy', 'stricter'], os.tmpdir());
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^kubegrace: policy "stricter" not found: .*; did you mean "strict"\?\n$/);
});

test('a config with several problems: every one is printed once, located, then exit 2', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-cfgerr-'));
  fs.writeFileSync(path.join(dir, '.kubegrace.yaml'), 'kubernetesVersion: 1.30\npolicy: recomended\nrules:\n  prestop-mising: warning\n');
  const r = kg(['lint', GOOD], dir);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const f = path.join(dir, '.kubegrace.yaml');
  expect(r.stderr).toBe(
    [
      `kubegrace: 3 problems in config file ${f} (config rejected; see policies/config.schema.json):`,
      `  ${f}:1:1: /kubernetesVersion: must be a string, but YAML reads the unquoted 1.30 as the number 1.3; quote it: kubernetesVersion: "1.30"`,
      `  ${f}:2:1: /policy: policy "recomended" not found: it is neither a built-in policy (recommended, strict) nor a file (${path.join(dir, 'recomended')}); did you mean "recommended"?`,
      `  ${f}:4:3: /rules/prestop-mising: unknown rule "prestop-mising"; did you mean "prestop-missing"?; run \`kubegrace rules\` for the list`,
      '',
    ].join('\n'),
  );
});
