/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // tsconfig.test.json has isolatedModules: ts-jest transpiles each file without type-checking it
  // (`npm run build` has already type-checked the sources with tsc). test/helpers/ts-transform.js takes
  // a package source from build/ instead when the build compiled exactly its text (sha256 in
  // build/.tsbuildinfo): a cold run (CI: no jest cache) does not compile lib/ again in every worker.
  transform: { '^.+\\.ts$': ['<rootDir>/test/helpers/ts-transform.js', { tsconfig: 'tsconfig.test.json' }] },
  testTimeout: 60000,
  // Jest's default is one worker less than the cores: on a 2-core machine that is 1, i.e. the whole
  // suite in band on one core while the other idles. Much of the suite waits on child processes
  // (helm, tsc, npm, cdk8s) or is pure computation, so one worker per core is the fastest here
  // (issue 16: `npm test` <= 3 min on 2 cores). Jest runs the slowest files (from its cache of
  // the last run) first, so the long ones overlap the rest.
  maxWorkers: '100%',
  // Jest's order without its cache (CI) is by file size; this one puts the known slow files first
  // (test/helpers/test-durations.json) so that none starts late and runs alone at the end.
  testSequencer: '<rootDir>/test/helpers/test-sequencer.js',
  // One temporary directory per run (TMPDIR for the workers and what they spawn), removed at the
  // end: the tests' own temporary files and cdk8s's Testing.app() directories do not pile up in /tmp.
  globalSetup: '<rootDir>/test/helpers/tmp-setup.js',
  globalTeardown: '<rootDir>/test/helpers/tmp-teardown.js',
  // Measuring aid: KUBEGRACE_TEST_CPU_LOG=FILE logs each test file's CPU seconds (with its child
  // processes) to FILE (test/helpers/cpu-log.ts).
  ...(process.env.KUBEGRACE_TEST_CPU_LOG ? { setupFilesAfterEnv: ['<rootDir>/test/helpers/cpu-log.ts'] } : {}),
};
