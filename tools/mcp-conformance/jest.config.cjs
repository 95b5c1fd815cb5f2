module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'mcp-conformance',
  rootDir: __dirname,
  // The gateway run uses the built gateway and control plane on real PostgreSQL with dev-idp tokens.
  globals: { arbor: { postgres: true, oidc: true } },
  testTimeout: 120000,
};
