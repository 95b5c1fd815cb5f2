module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'fake-providers',
  rootDir: __dirname,
};
