/**
 * jest globalSetup: one temporary directory per test run, removed by tmp-teardown.js when the run
 * ends. TMPDIR points at it before jest starts its workers (they inherit the environment), so every
 * os.tmpdir() of a test, of cdk8s's Testing.app() (one `cdk8s.outdir.*` per app, never removed by
 * cdk8s) and of the child processes the tests spawn (the CLI, helm, npm) lands in it. Without it
 * every whole run left 375 directories and files (5 MB) in /tmp: 260 cdk8s.outdir.*, the rest the
 * tests' own kg-* directories (counted with KUBEGRACE_TEST_KEEP_TMP=1).
 *
 * KUBEGRACE_TEST_KEEP_TMP=1 keeps the directory (its path is printed) to look at what a run wrote.
 * KUBEGRACE_OUTER_TMPDIR is the system's temporary directory, for what is meant to outlive a run
 * (examples/app-repo.test.ts's copy of an app's installed node_modules).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async function tmpSetup() {
  const outer = process.env.KUBEGRACE_OUTER_TMPDIR || os.tmpdir();
  const dir = fs.mkdtempSync(path.join(outer, 'kubegrace-jest-'));
  process.env.KUBEGRACE_OUTER_TMPDIR = outer;
  process.env.KUBEGRACE_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir;
};
