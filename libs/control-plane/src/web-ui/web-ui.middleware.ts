import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import compression from 'compression';
import type { NextFunction, Request, Response } from 'express';
import serveStatic from 'serve-static';
import { contentSecurityPolicy } from '@arbor/platform';

/** Paths that keep their own meaning: the API, health and metrics are never the UI. */
const NOT_UI = /^\/(api(\/|$)|healthz$|readyz$|metrics$)/;
/** Vite writes content-hashed file names under /assets/: they never change, so caches keep them. */
const HASHED_ASSETS = /^\/assets\//;
/** The placeholder in index.html that each answer replaces with its own nonce. */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';

export interface WebUiOptions {
  /** The folder of the built single-page app (index.html, assets/). */
  root: string;
  /** Origins the page may call besides its own (the OIDC issuer, the products). */
  connectOrigins: readonly string[];
}

/**
 * Serves the built web UI: files as they are, every other GET (a history-API route such as
 * /projects/alpha) gets index.html, so a reload or a shared link opens the right page.
 * index.html is never cached and carries a fresh CSP nonce; hashed assets are cached for a year;
 * all of it compressed as the browser accepts.
 */
export function webUiMiddleware(options: WebUiOptions): (req: Request, res: Response, next: NextFunction) => void {
  const indexHtml = readFileSync(join(options.root, 'index.html'), 'utf8');
  if (!indexHtml.includes(NONCE_PLACEHOLDER)) throw new Error(`${options.root}/index.html has no ${NONCE_PLACEHOLDER} placeholder`);
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
    res.end(indexHtml.replaceAll(NONCE_PLACEHOLDER, nonce));
  };
  // Brotli or gzip as the browser accepts (Vary: Accept-Encoding), above 1 KiB: the bundles shrink to a fraction.
  const compress = compression();
  return (req, res, next) => {
    const path = req.path;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_UI.test(path)) return next();
    compress(req, res, () => {
      if (path === '/' || path === '/index.html') return sendIndex(res);
      files(req, res, () => {
        // A missing hashed asset is an old or wrong link, not a page: 404 in the API's envelope.
        if (HASHED_ASSETS.test(path) || !req.accepts('html')) return next();
        sendIndex(res);
      });
    });
  };
}
