module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'platform',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, browser: true } },
};
