module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'arbor-mcp',
  rootDir: __dirname,
};
