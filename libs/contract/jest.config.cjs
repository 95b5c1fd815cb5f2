module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'contract',
  rootDir: __dirname,
  globals: { arbor: { oidc: true } },
};
