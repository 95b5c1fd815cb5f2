module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'outbox',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, oidc: false } },
};
