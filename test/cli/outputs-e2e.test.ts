/** Several outputs from one run, through the built bin (issue: CI integrations). */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SaxesParser } from 'saxes';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const FIX = path.join(ROOT, 'test/fixtures');

function kg(args: string[], cwd = FIX) {
  const r = runCli(args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function wellFormed(xml: string): void {
  const p = new SaxesParser();
  p.on('error', (e) => {
    throw e;
  });
  p.write(xml).close();
}

describe('several outputs in one run', () => {
  test('text on stdout, SARIF and JUnit to files, same findings everywhere, one exit code', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-out-'));
    const sarif = path.join(dir, 'kubegrace.sarif');
    const junit = path.join(dir, 'junit.xml');
    const r = kg(['lint', 'bad-grace.yaml', 'good.yaml', '--format', 'text', '--format', 'sarif', '--output', sarif, '--format', `junit=${junit}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^bad-grace\.yaml\n.*\n {4}20:11 +error +.* grace-period-budget$/m);
    const log = JSON.parse(fs.readFileSync(sarif, 'utf8'));
    expect(log.version).toBe('2.1.0');
    const json = JSON.parse(kg(['lint', 'bad-grace.yaml', 'good.yaml', '--format', 'json']).stdout);
    expect(log.runs[0].results).toHaveLength(json.findings.length);
    const xml = fs.readFileSync(junit, 'utf8');
    wellFormed(xml);
    expect(xml).toContain('grace-period-budget');
  });
  test('JSON on stdout with GitHub annotations to a file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-out-'));
    const gh = path.join(dir, 'annotations.txt');
    const r = kg(['lint', 'bad-grace.yaml', '--format', 'json', '--format', 'github', '--output', gh]);
    expect(JSON.parse(r.stdout).version).toBe(1);
    const lines = fs.readFileSync(gh, 'utf8').trim().split('\n');
    expect(lines.some((l) => /^::error file=bad-grace\.yaml,line=20,col=11,title=grace-period-budget::/.test(l))).toBe(true);
  });
  test('all formats to files: nothing on stdout', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-out-'));
    const r = kg(['lint', 'good.yaml', '--format', `json=${dir}/a.json`, '--format', `sarif=${dir}/a.sarif`]);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(['a.json', 'a.sarif']);
  });
  test('-f and -o are --format and --output, as in ESLint, for every command that writes a report', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-out-'));
    const long = kg(['lint', 'bad-grace.yaml', '--format', 'json', '--output', `${dir}/long.json`]);
    const short = kg(['lint', 'bad-grace.yaml', '-f', 'json', '-o', `${dir}/short.json`, '-f', 'text']);
    expect(short.code).toBe(long.code);
    expect(fs.readFileSync(`${dir}/short.json`, 'utf8')).toBe(fs.readFileSync(`${dir}/long.json`, 'utf8'));
    expect(short.stdout).toMatch(/grace-period-budget$/m);
    expect(kg(['lint', 'good.yaml', '-f', 'json', '-o', 'a', '-o', 'b']).code).toBe(2);
    expect(kg(['explain', 'bad-grace.yaml', '-f', 'svg', '-o', `${dir}/t.svg`]).code).toBe(0);
    expect(fs.readFileSync(`${dir}/t.svg`, 'utf8')).toMatch(/^<\?xml[^\n]*\n<svg /);
    expect(JSON.parse(kg(['simulate', 'rollout', '--replicas', '3', '-f', 'json']).stdout).version).toBe(1);
    expect(JSON.parse(kg(['rules', '-f', 'json']).stdout).rules.length).toBeGreaterThan(30);
  });
  test('ambiguous combinations are usage errors', () => {
    expect(kg(['lint', 'good.yaml', '--format', 'json', '--format', 'sarif']).code).toBe(2);
    expect(kg(['lint', 'good.yaml', '--format', 'json', '--output', 'a', '--output', 'b']).code).toBe(2);
  });
});
