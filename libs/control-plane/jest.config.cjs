module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'control-plane',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, oidc: true } },
};
