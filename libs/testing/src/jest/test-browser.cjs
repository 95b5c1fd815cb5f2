// A Chromium for browser tests, from the project's own dependencies: TEST_CHROMIUM_PATH when
// set (e.g. /usr/bin/chromium from Debian's package), else the one the npm package
// @sparticuz/chromium ships (unpacked into the temporary folder on first use, a few seconds).
// Never a silent skip: without a browser the run fails saying how to get one.
const { existsSync } = require('node:fs');

async function resolveTestBrowser() {
  const given = process.env.TEST_CHROMIUM_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`TEST_CHROMIUM_PATH=${given}: no such file. Unset it to use the Chromium of @sparticuz/chromium.`);
    return given;
  }
  try {
    const { default: chromium } = await import('@sparticuz/chromium');
    return await chromium.executablePath();
  } catch (error) {
    throw new Error(
      `No Chromium for the browser tests: @sparticuz/chromium could not provide one (${error instanceof Error ? error.message : error}). ` +
        "Run `npm ci` (it installs @sparticuz/chromium), or install Debian's chromium and set TEST_CHROMIUM_PATH=/usr/bin/chromium.",
    );
  }
}

module.exports = { resolveTestBrowser };
