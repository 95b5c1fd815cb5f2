// Sums every jest run of `npm test` (tmp/test-results/*.json) into the closing line CI reads.
// A project whose jest run wrote no results (it could not start at all) counts as one failure.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '../..');
const dir = path.join(root, 'tmp/test-results');
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
const total = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const reported = new Set();
for (const file of files) {
  const result = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  reported.add(path.resolve(result.rootDir));
  total.passed += result.passed;
  total.failed += result.failed;
  total.skipped += result.skipped;
  failures.push(...(result.failures ?? []));
}

const silent = [];
for (const group of ['apps', 'libs', 'tools']) {
  const groupDir = path.join(root, group);
  if (!fs.existsSync(groupDir)) continue;
  for (const name of fs.readdirSync(groupDir)) {
    const projectDir = path.join(groupDir, name);
    if (fs.existsSync(path.join(projectDir, 'jest.config.cjs')) && !reported.has(projectDir)) silent.push(`${group}/${name}`);
  }
}
if (silent.length > 0 && files.length > 0) {
  console.log(`no test results from: ${silent.join(', ')}`);
  total.failed += silent.length;
}
for (const failure of failures) console.log(`failed: ${failure.file} › ${failure.test}\n  ${failure.error}`);
const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : '';
console.log(`${total.passed} passed, ${total.failed} failed${skipped}`);
