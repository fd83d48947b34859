import * as fs from 'fs';
import * as path from 'path';
import { packageRoot } from '../engine/package-root';

/**
 * Where a rule's documentation is, for every report that links to it (text, SARIF, the cdk8s
 * plugin, `kubegrace rules`). One URL pattern for the published docs, and the copy inside the
 * installed package (`docs/rules` is in package.json `files`), which always matches the version
 * that produced the finding.
 */

/** The published repository; `docs/rules/<id>.md` is appended. */
export const DOCS_BASE_URL = 'https://github.com/kubegrace/kubegrace/blob/main/';

/** The published doc of a rule: `<base>docs/rules/<id>.md`. */
export function ruleDocsUrl(id: string, base: string = DOCS_BASE_URL): string {
  return `${base.replace(/\/*$/, '/')}docs/rules/${encodeURIComponent(id)}.md`;
}

/** The rule's doc inside the installed package (absolute), or undefined when it is not there (a custom rule). */
export function ruleDocsFile(id: string): string | undefined {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) return undefined;
  let root: string;
  try {
    root = packageRoot();
  } catch {
    return undefined;
  }
  const file = path.join(root, 'docs', 'rules', `${id}.md`);
  return fs.existsSync(file) ? file : undefined;
}

/**
 * The link a terminal report prints: the installed doc's path, relative to `cwd` when it lies below
 * it (`node_modules/kubegrace/docs/rules/<id>.md` in an app repository), else absolute; the
 * published URL when the package has no doc for the ID.
 */
export function ruleDocsLink(id: string, cwd: string = process.cwd()): string {
  const file = ruleDocsFile(id);
  if (!file) return ruleDocsUrl(id);
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}
