module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'ai-gateway',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, oidc: true, redis: true } },
};
