/**
 * Reads the table cases of test/rules/*.test.ts without running them: each file is loaded with
 * ruleTester (and fixTester) replaced by recorders and jest's test registration switched off.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { InvalidCase, ValidCase } from '../helpers/rule-tester';
import type { Rule } from '../../lib/engine/types';

export interface TableCase extends ValidCase {
  ruleId: string;
}

export function collectTableCases(): TableCase[] {
  const dir = path.resolve(__dirname, '../rules');
  const out: TableCase[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  const saved = ['describe', 'test', 'it', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'].map((k) => [k, g[k]] as const);
  const noop = Object.assign(() => undefined, { each: () => () => undefined, skip: () => undefined, only: () => undefined });
  g.describe = Object.assign((_n: string, fn: () => void) => fn(), { each: () => () => undefined, skip: () => undefined, only: (_n: string, fn: () => void) => fn() });
  for (const k of ['test', 'it', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach']) g[k] = noop;
  try {
    // One isolated module registry for all the files: the library they import is loaded once, not
    // once per file (the recorders only read the cases; nothing a file does changes another's).
    jest.isolateModules(() => {
      jest.doMock('../helpers/rule-tester', () => ({
        ...jest.requireActual('../helpers/rule-tester'),
        ruleTester: (rule: Rule, cases: { valid: ValidCase[]; invalid: InvalidCase[] }) => {
          for (const c of [...cases.valid, ...cases.invalid]) out.push({ ruleId: rule.meta.id, name: c.name, yaml: c.yaml, kubeVersion: c.kubeVersion, params: c.params });
        },
      }));
      jest.doMock('../helpers/fix-tester', () => ({ ...jest.requireActual('../helpers/fix-tester'), fixTester: () => undefined }));
      for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.test.ts')).sort()) require(path.join(dir, f));
    });
  } finally {
    for (const [k, v] of saved) g[k] = v;
  }
  return out;
}
