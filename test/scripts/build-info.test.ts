/**
 * `npm run typecheck:tests` (tsc -p tsconfig.test.json --noEmit) keeps its incremental record apart
 * from the build's. tsconfig.test.json extends tsconfig.json, whose build/.tsbuildinfo is the record
 * `npm run build` (tsc -b) reads and test/helpers/ts-transform.js trusts: sharing it, a type-check of
 * the tests replaced it with a no-emit record (other options, every file pending emit), so the next
 * `npm run build` compiled everything again (34 s instead of 0.7 s, measured) and a jest run before
 * that transpiled all of lib/ with ts-jest.
 */
import * as path from 'path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

function options(config: string): ts.CompilerOptions {
  const read = ts.readConfigFile(path.join(ROOT, config), ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, path.join(ROOT, config)).options;
}

test('the tests type-check with their own build info, not the build\'s', () => {
  const build = options('tsconfig.json');
  const tests = options('tsconfig.test.json');
  expect(build.incremental).toBe(true);
  expect(path.resolve(ROOT, build.tsBuildInfoFile!)).toBe(path.join(ROOT, 'build/.tsbuildinfo'));
  expect(tests.tsBuildInfoFile).toBeDefined();
  expect(path.resolve(ROOT, tests.tsBuildInfoFile!)).not.toBe(path.resolve(ROOT, build.tsBuildInfoFile!));
  // scripts/synth.ts leaves *.tsbuildinfo out of its fingerprint of build/: a type-check of the tests
  // must not make `npm run synth` redo its work.
  expect(tests.tsBuildInfoFile).toMatch(/\.tsbuildinfo$/);
});
