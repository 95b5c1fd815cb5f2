// Starts what a project's tests asked for in its jest config `globals.arbor`:
//   postgres: a PostgreSQL server (TEST_DATABASE_URL, else one answering on 127.0.0.1:5432,
//             else an embedded one), published to the tests as TEST_DATABASE_URL;
//   oidc:     the dev identity provider on a free port, published as TEST_OIDC_ISSUER_URL;
//   browser:  a Chromium executable (TEST_CHROMIUM_PATH, else @sparticuz/chromium's), published
//             as TEST_CHROMIUM_PATH for launchTestBrowser();
//   redis:    a Redis server (TEST_REDIS_URL, else one answering on 127.0.0.1:6379, else an
//             in-process stand-in), published as TEST_REDIS_URL.
// Workers inherit process.env, so each test file finds them there.
const { startTestPostgres } = require('./test-postgres.cjs');
const { startTestIdp } = require('./test-idp.cjs');
const { startTestRedis } = require('./test-redis.cjs');
const { resolveTestBrowser } = require('./test-browser.cjs');

module.exports = async function globalSetup(_globalConfig, projectConfig) {
  const wants = (projectConfig.globals && projectConfig.globals.arbor) || {};
  const running = [];
  if (wants.postgres) {
    const postgres = await startTestPostgres();
    process.env.TEST_DATABASE_URL = postgres.url;
    running.push(postgres);
  }
  if (wants.oidc) {
    const idp = await startTestIdp();
    process.env.TEST_OIDC_ISSUER_URL = idp.issuer;
    running.push(idp);
  }
  if (wants.redis) {
    const redis = await startTestRedis();
    process.env.TEST_REDIS_URL = redis.url;
    running.push(redis);
  }
  if (wants.browser) process.env.TEST_CHROMIUM_PATH = await resolveTestBrowser();
  globalThis.__ARBOR_TEST_SERVICES__ = running;
};
