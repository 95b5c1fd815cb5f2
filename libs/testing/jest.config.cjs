module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'testing',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, oidc: true } },
};
