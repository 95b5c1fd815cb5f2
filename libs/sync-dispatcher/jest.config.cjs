module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'sync-dispatcher-lib',
  rootDir: __dirname,
  // Some tests run the built dispatcher and control plane (the test target builds them first).
  testTimeout: 60000,
  globals: { arbor: { postgres: true, oidc: true } },
};
