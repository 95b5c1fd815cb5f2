module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'ci',
  rootDir: __dirname,
  testTimeout: 120000,
};
