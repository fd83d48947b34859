import { CliIO, progress, PROGRESS_DELAY_MS } from '../../lib/cli/io';
import { lintSources } from '../../lib/engine/run';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { collectSources } from '../../lib/model/sources';
import { ALL_RULES } from '../../lib/rules';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

function io(tty: boolean): CliIO & { err: string } {
  const o = { cwd: '/', err: '', stdout: () => undefined, readStdin: () => '', stdoutIsTTY: false, stderrIsTTY: tty, stderr: (s: string) => (o.err += s) };
  return o;
}

describe('progress indicator', () => {
  test('only on a terminal', () => {
    expect(progress(io(false), 500)).toBeUndefined();
    expect(progress(io(true), 1)).toBeDefined();
  });
  test('a short run never shows it, and done() then writes nothing', () => {
    const o = io(true);
    let t = 1000;
    const bar = progress(o, 40, () => t)!;
    t += PROGRESS_DELAY_MS - 1;
    bar.update(40, 40, 900);
    bar.rules(900);
    bar.done();
    expect(o.err).toBe('');
  });
  test('draws on stderr and erases itself', () => {
    const o = io(true);
    let t = 1000;
    const bar = progress(o, 40, () => t)!;
    t += PROGRESS_DELAY_MS;
    bar.update(1, 40);
    bar.update(40, 40);
    bar.done();
    expect(o.err).toContain('40/40 files');
    expect(o.err.endsWith('\r\u001b[2K')).toBe(true);
  });
  test('shows files and objects done and the rate, then the rules phase', () => {
    const o = io(true);
    let t = 1000;
    const bar = progress(o, 40, () => t)!;
    t = 3000;
    bar.update(20, 40, 5000);
    expect(o.err).toBe('\r\u001b[2Klinting [############............] 20/40 files, 5000 objects, 2500 objects/s');
    t = 3050;
    bar.update(21, 40, 5100);
    expect(o.err.split('\r').length).toBe(2); // not redrawn within 100 ms
    t = 3200;
    bar.update(20.5, 40, 5200);
    expect(o.err.endsWith('] 20/40 files, 5200 objects, 2364 objects/s')).toBe(true);
    expect(o.err).toContain('linting [############............] 20/40');
    bar.rules(10000);
    expect(o.err.endsWith('\r\u001b[2Klinting [########################] 40/40 files, 10000 objects read; running the rules')).toBe(true);
    bar.done();
    expect(o.err.endsWith('\r\u001b[2K')).toBe(true);
  });
  test.each(['json', 'yaml'])('one large %s file read in chunks reports its objects as they are read', (format) => {
    // A file of >= 32 MiB is read in chunks by the plain lint; the callback counts within it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-progress-'));
    const cm = (i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, namespace: 'default' }, data: { blob: 'x'.repeat(4000) } });
    const n = 9000;
    const items = Array.from({ length: n }, (_, i) => cm(i));
    const file = path.join(dir, `big.${format}`);
    if (format === 'json') fs.writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4));
    else fs.writeFileSync(file, items.map((o) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${o.metadata.name}\n  namespace: default\ndata:\n  blob: ${o.data.blob}\n`).join('---\n'));
    expect(fs.statSync(file).size).toBeGreaterThan(32 * 1024 * 1024);
    const { sources } = collectSources([file], { stream: true, maxFileSize: Number.MAX_SAFE_INTEGER });
    const calls: Array<[number, number, number]> = [];
    let rulesAt: number | undefined;
    const r = lintSources(sources, {
      rules: ALL_RULES,
      policy: loadPolicy('recommended', ALL_RULES),
      version: KubeVersion.parse('1.33'),
      releaseBytes: true,
      onProgress: (done, total, objects) => calls.push([done, total, objects]),
      onRules: (objects) => (rulesAt = objects),
    });
    expect(r.objects).toBe(n);
    const within = calls.filter(([done]) => done < 1);
    // The bar moves with the part of the file read.
    expect(within.map((c) => c[0])).toEqual([...within.map((c) => c[0])].sort((a, b) => a - b));
    expect(within[within.length - 1][0]).toBeGreaterThan(0.5);
    expect(within.length).toBeGreaterThan(2);
    const counts = within.map((c) => c[2]);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts[counts.length - 1]).toBeLessThanOrEqual(n);
    expect(calls[calls.length - 1]).toEqual([1, 1, n]);
    expect(rulesAt).toBe(n);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
