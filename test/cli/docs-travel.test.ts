/**
 * Docs that travel (issue 13): rule doc links resolve in an app repository (the copy inside the
 * installed package, or the published URL from one pattern), and `--help` cites only documents
 * the package ships.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DOCS_BASE_URL, ruleDocsFile, ruleDocsLink, ruleDocsUrl } from '../../lib/rules/docs-url';
import { ALL_RULES } from '../../lib/rules';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[]; license: string };

function kg(args: string[], cwd: string) {
  const r = runCli(args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Whether a repository path is in the package (package.json `files`, plus what npm always includes). */
function shipped(rel: string): boolean {
  if (['package.json', 'README.md', 'LICENSE'].includes(rel)) return true;
  return PKG.files.some((f) => !f.startsWith('!') && (rel === f || rel.startsWith(`${f}/`)));
}

describe('rule doc links', () => {
  test('one URL pattern for the published docs', () => {
    expect(ruleDocsUrl('grace-period-budget')).toBe(`${DOCS_BASE_URL}docs/rules/grace-period-budget.md`);
    expect(ruleDocsUrl('x', 'https://example.com/kg')).toBe('https://example.com/kg/docs/rules/x.md');
  });

  test('every rule has its doc inside the package, and docs/ is shipped', () => {
    for (const r of ALL_RULES) {
      const f = ruleDocsFile(r.meta.id);
      expect([r.meta.id, f !== undefined && fs.existsSync(f)]).toEqual([r.meta.id, true]);
      expect(shipped(path.relative(ROOT, f!).split(path.sep).join('/'))).toBe(true);
    }
    expect(ruleDocsFile('no-such-rule')).toBeUndefined();
    expect(ruleDocsFile('../../package')).toBeUndefined();
  });

  test('the link is the installed doc, relative below the working directory, else absolute; a custom rule gets the URL', () => {
    expect(ruleDocsLink('pdb-missing', ROOT)).toBe('docs/rules/pdb-missing.md');
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-docs-'));
    try {
      const link = ruleDocsLink('pdb-missing', elsewhere);
      expect(path.isAbsolute(link)).toBe(true);
      expect(fs.existsSync(link)).toBe(true);
      // What the text report prints from another directory resolves there too.
      const r = kg(['lint', path.join(ROOT, 'test/fixtures/bad-grace.yaml')], elsewhere);
      const line = r.stdout.split('\n').find((l) => l.startsWith('Rule docs: '))!;
      const links = line.slice('Rule docs: '.length).split(', ');
      expect(links.length).toBeGreaterThan(0);
      for (const l of links) expect(fs.existsSync(path.resolve(elsewhere, l))).toBe(true);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    expect(ruleDocsLink('acme-custom-rule', ROOT)).toBe(ruleDocsUrl('acme-custom-rule'));
  });
});

describe('--help cites only shipped documents', () => {
  const HELPS = [['--help'], ['lint', '--help'], ['rules', '--help'], ['explain', '--help'], ['simulate', '--help'], ['chart', '--help']];

  test.each(HELPS.map((h) => [h.join(' '), h] as const))('kubegrace %s', (_name, args) => {
    const r = kg(args, ROOT);
    expect(r.code).toBe(0);
    // The design documents of the project are not in the package.
    expect(r.stdout).not.toMatch(/graceful-termination\.md|DESIGN\.md|RULES\.md|STYLE\.md/);
    for (const m of r.stdout.matchAll(/(?:^|[\s(])(docs\/[\w./-]+\.md)\b/g)) {
      expect([m[1], shipped(m[1]) && fs.existsSync(path.join(ROOT, m[1]))]).toEqual([m[1], true]);
    }
  });

  test('the LICENSE the package declares is shipped', () => {
    expect(PKG.license).toBe('Apache-2.0');
    const text = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toContain('Apache License');
    expect(text).toContain('Version 2.0, January 2004');
    expect(text).toContain('END OF TERMS AND CONDITIONS');
  });
});
