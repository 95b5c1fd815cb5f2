module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'dev',
  rootDir: __dirname,
  testTimeout: 150000,
};
