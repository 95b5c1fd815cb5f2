module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'guardrails',
  rootDir: __dirname,
  globals: { arbor: { postgres: false, oidc: false } },
};
