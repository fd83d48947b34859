import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const tmpSetup = require('../helpers/tmp-setup.js') as () => Promise<void>;
const tmpTeardown = require('../helpers/tmp-teardown.js') as () => Promise<void>;

describe("the test run's temporary directory (jest globalSetup / globalTeardown)", () => {
  test('this run writes its temporary files into its own directory, and so do the processes it spawns', () => {
    const dir = process.env.KUBEGRACE_TEST_TMPDIR!;
    expect(dir).toBeDefined();
    expect(path.basename(dir)).toMatch(/^kubegrace-jest-/);
    expect(path.dirname(dir)).toBe(process.env.KUBEGRACE_OUTER_TMPDIR);
    expect(os.tmpdir()).toBe(dir);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("os").tmpdir())'], { encoding: 'utf8' });
    expect(child.stdout).toBe(dir);
  });

  test('setup makes a directory under the outer one and points TMPDIR at it; teardown removes it with its contents', async () => {
    const saved = { ...process.env };
    const outer = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-tmpsetup-'));
    try {
      process.env.KUBEGRACE_OUTER_TMPDIR = outer;
      // (The run itself may be one that keeps its directory.)
      delete process.env.KUBEGRACE_TEST_KEEP_TMP;
      await tmpSetup();
      const dir = process.env.KUBEGRACE_TEST_TMPDIR!;
      expect(path.dirname(dir)).toBe(outer);
      // (Jest gives a test file its own copy of process.env, so os.tmpdir() here does not follow;
      // the test above shows that the workers' and their children's do.)
      expect(process.env.TMPDIR).toBe(dir);
      fs.mkdirSync(path.join(dir, 'cdk8s.outdir.x', 'deep'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'cdk8s.outdir.x', 'deep', 'f.yaml'), 'a: 1\n');
      await tmpTeardown();
      expect(fs.existsSync(dir)).toBe(false);
      expect(fs.readdirSync(outer)).toEqual([]);

      // KUBEGRACE_TEST_KEEP_TMP=1 keeps it.
      await tmpSetup();
      const kept = process.env.KUBEGRACE_TEST_TMPDIR!;
      process.env.KUBEGRACE_TEST_KEEP_TMP = '1';
      const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      await tmpTeardown();
      expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain(kept);
      write.mockRestore();
      expect(fs.existsSync(kept)).toBe(true);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      fs.rmSync(outer, { recursive: true, force: true });
    }
  });
});
