/** The integration files we ship are well-formed and call the real command. */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../..');

describe('integration files', () => {
  test('.pre-commit-hooks.yaml: valid hooks that run kubegrace lint on manifests', () => {
    const hooks = parse(fs.readFileSync(path.join(ROOT, '.pre-commit-hooks.yaml'), 'utf8'));
    expect(Array.isArray(hooks)).toBe(true);
    for (const h of hooks) {
      expect(Object.keys(h)).toEqual(expect.arrayContaining(['id', 'name', 'entry', 'language', 'files']));
      expect(h.entry).toMatch(/^kubegrace lint\b/);
      expect(h.language).toBe('node');
      const re = new RegExp(h.files);
      expect(re.test('deploy/web.yaml') && re.test('k8s/app.yml') && re.test('dump.json')).toBe(true);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.bin.kubegrace).toBe('build/lib/cli/main.js');
  });
  test('the GitHub Actions example lints once with text, annotations and SARIF, then uploads SARIF', () => {
    const wf = parse(fs.readFileSync(path.join(ROOT, 'examples/ci/github-actions.yml'), 'utf8'));
    const steps = wf.jobs.lint.steps as Array<{ run?: string; uses?: string; with?: Record<string, string> }>;
    const lint = steps.find((s) => s.run?.includes('kubegrace lint'))!;
    expect(lint.run).toMatch(/--format text/);
    expect(lint.run).toMatch(/--format github --output kubegrace\.annotations/);
    expect(lint.run).toMatch(/--format sarif --output kubegrace\.sarif/);
    expect(steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif'))?.with?.sarif_file).toBe('kubegrace.sarif');
    expect(wf.permissions['security-events']).toBe('write');
  });
});
