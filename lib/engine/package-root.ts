import * as fs from 'fs';
import * as path from 'path';

/**
 * The package root: the nearest ancestor holding policies/policy.schema.json. Kept apart from
 * policy.ts so that commands that need only the root (the version, `--help`) load no ajv or yaml.
 */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'policies', 'policy.schema.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('kubegrace: cannot find the policies/ directory of the package');
    dir = up;
  }
}

/** The package version from package.json. */
export function packageVersion(): string {
  return JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;
}

/** One problem in a policy or config file: where, which field, what is wrong and what to do. */
export interface PolicyProblem {
  file: string;
  line: number;
  column: number;
  /** JSON pointer of the field ('' for the whole file). */
  pointer: string;
  message: string;
}

/**
 * A policy or config that cannot be used; the message names the file, position and field of
 * every problem found (not only the first), and `problems` lists them.
 */
export class PolicyError extends Error {
  constructor(
    message: string,
    readonly problems: PolicyProblem[] = [],
  ) {
    super(message);
  }
}
