module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'mcp-gateway',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, oidc: true, redis: true, browser: true } },
};
