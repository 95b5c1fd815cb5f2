// What a browser and an API client get for a built UI's hashed assets from webUiMiddleware, over real HTTP.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import express from 'express';
import { webUiMiddleware } from './web-ui.middleware';

const script = `export const answer = ${JSON.stringify('x'.repeat(4096))};\n`;
let root: string;
let server: Server;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'web-ui-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<meta name="csp-nonce" content="__CSP_NONCE__">');
  writeFileSync(join(root, 'assets/app-abc123.js'), script);
  writeFileSync(join(root, 'assets/app-abc123.js.br'), brotliCompressSync(script));
  writeFileSync(join(root, 'assets/app-abc123.js.gz'), gzipSync(script));
  writeFileSync(join(root, 'assets/plain-def456.js'), script);
  const app = express();
  app.use(webUiMiddleware({ root, connectOrigins: [], isPage: (path) => path === '/' }));
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

function get(path: string, acceptEncoding?: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('webUiMiddleware, hashed assets', () => {
  it("sends the build's brotli file to a browser that lists gzip first, as Chromium does", async () => {
    const { headers, body } = await get('/assets/app-abc123.js', 'gzip, deflate, br, zstd');
    expect(headers['content-encoding']).toBe('br');
    expect(headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(headers['vary']).toBe('Accept-Encoding');
    expect(body).toEqual(brotliCompressSync(script));
  });

  it('sends the gzip file where brotli is not accepted, and the file itself where neither is', async () => {
    expect((await get('/assets/app-abc123.js', 'gzip')).headers['content-encoding']).toBe('gzip');
    const plain = await get('/assets/app-abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
  });

  it('compresses on the fly an asset the build left without siblings', async () => {
    const { headers } = await get('/assets/plain-def456.js', 'br');
    expect(headers['content-encoding']).toBe('br');
    expect(headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });
});
