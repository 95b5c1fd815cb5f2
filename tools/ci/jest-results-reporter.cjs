// Writes each jest run's totals to tmp/test-results/<project>.json so that
// tools/ci/summarize-tests.cjs can print one "N passed, N failed" line for the whole of `npm test`,
// and the names of what failed (CI shows only the tail of a run's output).
const fs = require('node:fs');
const path = require('node:path');
const { stripVTControlCharacters } = require('node:util');

// Six lines hold a matcher's Expected and Received; more would push earlier failures out of the tail CI shows.
const MESSAGE_LINES = 6;
const MESSAGE_LIMIT = 600;

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
        failures: failuresOf(results, this.globalConfig.rootDir),
      }),
    );
  }
}

function failuresOf(results, rootDir) {
  const failures = [];
  for (const suite of results.testResults) {
    const file = path.relative(path.join(rootDir, '../..'), suite.testFilePath);
    if (suite.testExecError) failures.push({ file, test: '(the file could not run)', error: messageOf(suite.testExecError.message) });
    for (const test of suite.testResults) {
      if (test.status === 'failed') failures.push({ file, test: test.fullName, error: messageOf(test.failureMessages[0]) });
    }
  }
  return failures;
}

/** The failure's message without its stack: enough to see what was expected and what came (Expected/Received). */
function messageOf(text) {
  const lines = stripVTControlCharacters(String(text ?? '')).split('\n');
  const stack = lines.findIndex((l) => /^\s+at /.test(l));
  const message = (stack === -1 ? lines : lines.slice(0, stack)).map((l) => l.trim()).filter((l) => l !== '');
  return message.slice(0, MESSAGE_LINES).join('\n  ').slice(0, MESSAGE_LIMIT);
}

module.exports = JestResultsReporter;
