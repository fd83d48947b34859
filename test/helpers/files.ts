import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** The .yaml/.yml files under `dir`, depth first, each directory's entries in name order. */
export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

/**
 * A scratch directory for one test file (made in beforeAll, removed in afterAll), and `stamped`,
 * which writes a file in it and returns the stamp the chunked readers take (path, size, mtime).
 */
export function stampedFiles(prefix: string): { stamped: (name: string, text: string) => { path: string; size: number; mtimeMs: number } } {
  let dir = '';
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    stamped(name, text) {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      const st = fs.statSync(p);
      return { path: p, size: st.size, mtimeMs: st.mtimeMs };
    },
  };
}
