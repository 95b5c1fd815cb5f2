// Sums every jest run of `npm test` (tmp/test-results/*.json) into the closing line CI reads.
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, '../../tmp/test-results');
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
const total = { passed: 0, failed: 0, skipped: 0 };
for (const file of files) {
  const result = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  total.passed += result.passed;
  total.failed += result.failed;
  total.skipped += result.skipped;
}
const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : '';
console.log(`${total.passed} passed, ${total.failed} failed${skipped}`);
