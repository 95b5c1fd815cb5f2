module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'sync-dispatcher',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, oidc: false } },
};
