module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'fuzz',
  rootDir: __dirname,
  // The built control plane and gateways on real PostgreSQL, with dev-idp tokens.
  globals: { arbor: { postgres: true, oidc: true } },
  testTimeout: 300000,
};
