module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'mcp-everything-server',
  rootDir: __dirname,
};
