module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'ai-gateway-lib',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, redis: true } },
};
