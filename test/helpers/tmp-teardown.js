/** jest globalTeardown: removes the run's temporary directory (see tmp-setup.js). */
'use strict';
const fs = require('fs');

module.exports = async function tmpTeardown() {
  const dir = process.env.KUBEGRACE_TEST_TMPDIR;
  if (!dir) return;
  if (process.env.KUBEGRACE_TEST_KEEP_TMP === '1') {
    process.stderr.write(`kubegrace tests: kept the run's temporary files in ${dir}\n`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
};
