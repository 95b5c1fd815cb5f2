import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import compression from 'compression';
import type { NextFunction, Request, Response } from 'express';
import serveStatic from 'serve-static';
import { contentSecurityPolicy } from '../security/content-security-policy';

/** Vite writes content-hashed file names under /assets/: they never change, so caches keep them. */
const HASHED_ASSETS = /^\/assets\//;
/** The precompressed siblings the build writes (tools/build/vite-product-ui.mts), best first. */
const PRECOMPRESSED = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;
const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
/** The placeholder in index.html that each answer replaces with its own nonce. */
export const CSP_NONCE_PLACEHOLDER = '__CSP_NONCE__';

export interface WebUiOptions {
  /** The folder of the built single-page app (index.html, assets/). */
  root: string;
  /** Origins the page may call besides its own (the OIDC issuer, the control plane, the products). */
  connectOrigins: readonly string[];
  /**
   * Whether a path is one of the app's pages (`/`, a deep link such as `/projects/alpha`, the
   * sign-in callback): those get index.html when a browser asks for HTML. Every other path, and
   * every request that does not name text/html, goes on to the service's API untouched.
   */
  isPage(path: string): boolean;
}

/** A browser navigating names text/html; API clients (SDKs, curl's `*∕*`) do not. */
function asksForHtml(req: Request): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

/**
 * Serves a service's built web UI, the one way the suite does: the build's files as they are
 * (hashed assets cached for a year, the rest revalidated), index.html for the app's pages when a
 * browser asks for HTML (so a reload or a shared link opens the right page), never cached and
 * with a fresh CSP nonce; all of it compressed as the browser accepts. Anything else is not
 * looked at, so the API's paths and error envelopes stay as they are.
 */
export function webUiMiddleware(options: WebUiOptions): (req: Request, res: Response, next: NextFunction) => void {
  const indexHtml = readFileSync(join(options.root, 'index.html'), 'utf8');
  if (!indexHtml.includes(CSP_NONCE_PLACEHOLDER)) throw new Error(`${options.root}/index.html has no ${CSP_NONCE_PLACEHOLDER} placeholder`);
  // The build's other top-level files (favicon.svg): known at start, so no other path costs a look at the disk.
  const topLevelFiles = new Set(
    readdirSync(options.root, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name !== 'index.html')
      .map((entry) => `/${entry.name}`),
  );
  const precompressed = precompressedAssets(options.root);
  const files = serveStatic(options.root, {
    index: false,
    fallthrough: true,
    setHeaders: (res, path) => {
      const hashed = path.startsWith(join(options.root, 'assets'));
      res.setHeader('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
  const sendIndex = (res: Response): void => {
    const nonce = randomBytes(16).toString('base64');
    res.status(200);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('content-security-policy', contentSecurityPolicy({ nonce, connectOrigins: options.connectOrigins }));
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.end(indexHtml.replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  };
  // Brotli or gzip as the browser accepts (Vary: Accept-Encoding), above 1 KiB: the bundles shrink to a fraction.
  const compress = compression();
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    // A missing hashed asset is an old or wrong link, not a page: the service's 404.
    if (HASHED_ASSETS.test(path) && precompressed.has(path))
      return sendPrecompressed(req, res, precompressed.get(path) ?? {}, () => compress(req, res, () => files(req, res, next)));
    if (HASHED_ASSETS.test(path) || topLevelFiles.has(path)) return compress(req, res, () => files(req, res, next));
    if ((path === '/index.html' || options.isPage(path)) && asksForHtml(req)) return compress(req, res, () => sendIndex(res));
    next();
  };
}

type Variants = Partial<Record<(typeof PRECOMPRESSED)[number]['encoding'], Buffer>>;

/** The build's `.br`/`.gz` files of its hashed scripts and styles, read once at start (they never change). */
function precompressedAssets(root: string): Map<string, Variants & { type: string }> {
  const assets = new Map<string, Variants & { type: string }>();
  const folder = join(root, 'assets');
  if (!existsSync(folder)) return assets;
  for (const name of readdirSync(folder)) {
    const type = CONTENT_TYPES[extname(name)];
    if (!type) continue;
    const variants: Variants = {};
    for (const { encoding, suffix } of PRECOMPRESSED) {
      if (existsSync(join(folder, name + suffix))) variants[encoding] = readFileSync(join(folder, name + suffix));
    }
    if (Object.keys(variants).length > 0) assets.set(`/assets/${name}`, { ...variants, type });
  }
  return assets;
}

/** The best precompressed variant the browser accepts, as it is; none accepted: `otherwise` (compressed on the fly or not at all). */
function sendPrecompressed(req: Request, res: Response, variants: Variants & { type?: string }, otherwise: () => void): void {
  // Best first, not the browser's order (Chromium lists gzip before br at the same weight).
  const accepted = PRECOMPRESSED.find(({ encoding }) => variants[encoding] && req.acceptsEncodings(encoding) === encoding)?.encoding;
  const body = accepted ? variants[accepted] : undefined;
  if (!accepted || !body) return otherwise();
  res.status(200);
  res.setHeader('content-type', variants.type ?? 'application/octet-stream');
  res.setHeader('content-encoding', accepted);
  res.setHeader('content-length', body.length);
  res.setHeader('vary', 'Accept-Encoding');
  res.setHeader('cache-control', 'public, max-age=31536000, immutable');
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(req.method === 'HEAD' ? undefined : body);
}
