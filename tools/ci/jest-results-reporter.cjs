// Writes each jest run's totals to tmp/test-results/<project>.json so that
// tools/ci/summarize-tests.cjs can print one "N passed, N failed" line for the whole of `npm test`,
// and the names of what failed (CI shows only the tail of a run's output).
const fs = require('node:fs');
const path = require('node:path');
const { stripVTControlCharacters } = require('node:util');

const FIRST_LINE_LIMIT = 300;

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
    if (suite.testExecError) failures.push({ file, test: '(the file could not run)', error: firstLine(suite.testExecError.message) });
    for (const test of suite.testResults) {
      if (test.status === 'failed') failures.push({ file, test: test.fullName, error: firstLine(test.failureMessages[0]) });
    }
  }
  return failures;
}

function firstLine(text) {
  const line =
    stripVTControlCharacters(String(text ?? ''))
      .split('\n')
      .find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, FIRST_LINE_LIMIT);
}

module.exports = JestResultsReporter;
