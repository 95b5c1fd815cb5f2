// `npm run bench:ui`: the first visit of each product UI (the control plane's, the AI gateway's,
// the MCP gateway's) on `npm start`'s stack, against the issue's targets: first contentful paint
// at most 500 ms, at most 300 kB of gzipped JavaScript.
//
// It starts `npm start` (tools/dev/src/main.mts: it builds what changed, an embedded PostgreSQL
// in a temporary data folder, the dev identity provider, the four services, the demo data), signs
// alice in once at the control plane in headless Chromium (the browser tests' own), then for each
// UI --samples (5) times: a new browser context holding only the identity provider's session,
// the UI's first page opened (the sign-in round trip through the issuer, no form), the browser's
// cache emptied and the page loaded again — a first visit of a person already signed in — and
// read from the Performance API: first-contentful-paint, when the page's heading showed, and the
// JavaScript the load transferred (its content-encoding as served). Everything stops at the end.
//
// npm start's ports are fixed (the realm's redirect URIs name them): on a shared machine, run it
// in a network namespace of your own (see docs/benchmarks.md, "Web UI").
//
// Options: --samples.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { root, runBenchmark } from './support.mjs';

const { values: options } = parseArgs({ options: { samples: { type: 'string', default: '5' } } });
const SAMPLES = Number(options.samples);
const TARGET_FCP_MS = 500;
const TARGET_JS_KB = 300;
const log = (line) => process.stderr.write(`${line}\n`);
const cleanups = [];

runBenchmark(main, cleanups, log);

async function main() {
  const { SUITE_UIS, launchSuiteBrowser, openSignedIn, signedInState, startSuite } = await import(pathToFileURL(path.join(root, 'tools/dev/src/suite-in-browser.mts')).href);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-ui-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  log('starting npm start (it builds what changed first)…');
  const suite = await startSuite(dataDir);
  cleanups.push(() => suite.stop());
  const browser = await launchSuiteBrowser();
  cleanups.push(() => browser.close());
  const storageState = await signedInState(browser, 'alice');

  const results = [];
  for (const [name, ui] of Object.entries(SUITE_UIS)) {
    const samples = [];
    for (let sample = 0; sample < SAMPLES; sample++) samples.push(await firstVisit(browser, storageState, ui, openSignedIn));
    results.push({ name, samples });
    log(`${name}: ${samples.map((s) => `${Math.round(s.fcp)} ms`).join(', ')}`);
  }

  console.log(`\nFirst visit of each product UI on npm start's stack, signed in as alice, ${SAMPLES} cold-cache loads each (${await browser.version()})\n`);
  console.log('| UI | first page | FCP ms median (min–max) | heading shown ms median | JavaScript transferred | encoding |');
  console.log('|---|---|---|---|---|---|');
  for (const { name, samples } of results) {
    const fcps = samples.map((s) => s.fcp);
    const js = samples[0].jsBytes;
    console.log(
      `| ${name} | ${samples[0].page} | ${fixed(median(fcps))} (${fixed(Math.min(...fcps))}–${fixed(Math.max(...fcps))}) | ${fixed(median(samples.map((s) => s.heading)))} | ${(js / 1000).toFixed(1)} kB in ${samples[0].scripts} files | ${samples[0].encodings} |`,
    );
  }
  const worstFcp = Math.max(...results.map(({ samples }) => median(samples.map((s) => s.fcp))));
  const worstJs = Math.max(...results.map(({ samples }) => samples[0].jsBytes / 1000));
  console.log(
    `\ntargets: FCP ≤ ${TARGET_FCP_MS} ms — ${worstFcp <= TARGET_FCP_MS ? 'met' : 'NOT met'} (worst median ${fixed(worstFcp)} ms); JavaScript ≤ ${TARGET_JS_KB} kB gzipped — ${worstJs <= TARGET_JS_KB ? 'met' : 'NOT met'} (largest ${worstJs.toFixed(1)} kB)`,
  );
}

/** One first visit of `ui`'s first page by a person signed in at the issuer, its cache empty. */
async function firstVisit(browser, storageState, ui, openSignedIn) {
  const context = await browser.newContext({ storageState, viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const heading = page.getByRole('heading', { name: ui.heading }).first();
    await openSignedIn(page, `${ui.url}${ui.firstPage}`, ui.heading, 'alice');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    const scripts = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push(response);
    });
    await page.reload({ waitUntil: 'load' });
    await heading.waitFor();
    const headingAt = await page.evaluate(() => performance.now());
    const fcp = await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime).then((handle) => handle.jsonValue());
    let jsBytes = 0;
    const encodings = new Set();
    for (const response of scripts) {
      jsBytes += (await response.request().sizes()).responseBodySize;
      encodings.add(response.headers()['content-encoding'] ?? 'identity');
    }
    return { page: new URL(page.url()).pathname, fcp, heading: headingAt, jsBytes, scripts: scripts.length, encodings: [...encodings].join(', ') };
  } finally {
    await context.close();
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function fixed(value) {
  return value.toFixed(0);
}
