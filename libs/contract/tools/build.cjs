// Builds the publishable package: CommonJS .js + .d.ts from tsconfig.lib.json into
// dist/libs/contract, with this package's package.json and README beside them.
const { execFileSync } = require('node:child_process');
const { copyFileSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');
const out = path.join(root, 'dist/libs/contract');
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), '-p', path.join(root, 'libs/contract/tsconfig.lib.json')], {
  cwd: root,
  stdio: 'inherit',
});
for (const file of ['package.json', 'README.md']) copyFileSync(path.join(root, 'libs/contract', file), path.join(out, file));
