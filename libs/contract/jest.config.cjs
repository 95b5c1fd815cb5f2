module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'contract',
  rootDir: __dirname,
  // Some tests run the built control plane and build this package (the test target builds control-plane-api first).
  testTimeout: 60000,
  globals: { arbor: { postgres: true, oidc: true } },
};
