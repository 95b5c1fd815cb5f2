module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'observability',
  rootDir: __dirname,
};
