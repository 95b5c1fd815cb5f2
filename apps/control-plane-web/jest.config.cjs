// Pure specs of the app's logic (src/**/*.spec.ts), and browser tests (e2e/) that drive a real
// Chromium against the built control-plane-api serving the built UI, on PostgreSQL, with a
// dev identity provider of their own (see startUiTestStack in @arbor/testing).
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'control-plane-web',
  rootDir: __dirname,
  globals: { arbor: { postgres: true, browser: true } },
  testTimeout: 60_000,
};
