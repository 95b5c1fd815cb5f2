// Writes each jest run's totals to tmp/test-results/<project>.json so that
// tools/ci/summarize-tests.cjs can print one "N passed, N failed" line for the whole of `npm test`.
const fs = require('node:fs');
const path = require('node:path');

class JestResultsReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '../../tmp/test-results');
    fs.mkdirSync(dir, { recursive: true });
    const name = path.basename(this.globalConfig.rootDir) + '-' + process.pid;
    const failedSuites = results.numFailedTestSuites + results.numRuntimeErrorTestSuites;
    fs.writeFileSync(
      path.join(dir, `${name}.json`),
      JSON.stringify({
        rootDir: this.globalConfig.rootDir,
        passed: results.numPassedTests,
        failed: results.numFailedTests + (results.numFailedTests === 0 && failedSuites > 0 ? failedSuites : 0),
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
}

module.exports = JestResultsReporter;
