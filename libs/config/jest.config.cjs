module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'config',
  rootDir: __dirname,
};
