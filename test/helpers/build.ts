/** build/ (the compiled package) for the tests that run it: rebuilt only when its sources changed after the last build. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
/** Rewritten by every `tsc -b tsconfig.json` that compiles anything (tsconfig.json: incremental). */
const BUILD_INFO = path.join(ROOT, 'build/.tsbuildinfo');

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...fs.readdirSync(p).map((e) => newestMtime(path.join(p, e))));
}

/**
 * Runs `tsc -b tsconfig.json` (what `npm run build` runs) when one of `outputs` is missing or a file
 * under `sources` (paths relative to the repository) is newer than the last build. The last build is
 * the build info tsc rewrites whenever it compiles; an output file's own time is not, since tsc
 * leaves the outputs of unchanged sources alone (after an edit of lib/x.ts, build/lib/index.js is
 * older than lib/x.ts and yet current).
 */
export function ensureBuilt(sources: string[], outputs: string[]): void {
  const built = outputs.map((f) => path.join(ROOT, f));
  const fresh = built.every((f) => fs.existsSync(f)) && fs.existsSync(BUILD_INFO) && fs.statSync(BUILD_INFO).mtimeMs >= Math.max(...sources.map((s) => newestMtime(path.join(ROOT, s))));
  if (fresh) return;
  const r = spawnSync(process.execPath, [TSC, '-b', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
  if (!built.every((f) => fs.existsSync(f))) throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
}
