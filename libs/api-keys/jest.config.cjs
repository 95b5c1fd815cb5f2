module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'api-keys',
  rootDir: __dirname,
  globals: { arbor: { postgres: false, oidc: false } },
};
