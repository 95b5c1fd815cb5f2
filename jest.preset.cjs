// Shared jest settings: TypeScript through SWC (decorator metadata on, as Nest needs),
// one Postgres server and one dev identity provider for the whole run (see @arbor/testing),
// and a results file per project so CI can print one "N passed, N failed" line.
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.[tj]s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2023',
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  // NestJS 12, jose, openid-client (and its oauth4webapi), eventsource-parser and the AI SDK (ai, @ai-sdk/*) ship only ES modules; Node runs them through require(esm), but jest's
  // module system cannot, so SWC compiles them to CommonJS for tests.
  transformIgnorePatterns: ['/node_modules/(?!(jose|openid-client|oauth4webapi|@nestjs|eventsource-parser|ai|@ai-sdk|@workflow|zod)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper: {
    '^@arbor/(.*)$': path.join(__dirname, 'libs/$1/src/index.ts'),
  },
  testMatch: ['**/?(*.)+(spec|integration-spec).ts'],
  globalSetup: path.join(__dirname, 'libs/testing/src/jest/global-setup.cjs'),
  globalTeardown: path.join(__dirname, 'libs/testing/src/jest/global-teardown.cjs'),
  reporters: ['default', path.join(__dirname, 'tools/ci/jest-results-reporter.cjs')],
  testTimeout: 30000,
};
