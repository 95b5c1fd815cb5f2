// Pure specs of the app's logic (src/**/*.spec.ts), and browser tests (e2e/) that drive a real
// Chromium from the control plane's UI to the BUILT mcp-gateway serving this UI, on PostgreSQL,
// with a dev identity provider of their own (startUiTestStack in @arbor/testing).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'mcp-gateway-web',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, browser: true } },
  testTimeout: 60_000,
};
