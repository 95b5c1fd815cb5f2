module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'demo-agent',
  rootDir: __dirname,
};
