// Pure specs of the shell's logic (money and instants as every product UI shows them); the shell
// itself is exercised in Chromium by the product UIs' browser tests (apps/*-web/e2e).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'ui-shell',
  rootDir: __dirname,
};
