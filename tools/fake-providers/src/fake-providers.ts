// One HTTP server for every fake upstream. Each provider's wire format lives under its own path
// prefix (PROVIDER_FAKES); OpenAI's also at / (an api_base without a prefix);
// GET /_fake/requests lists what arrived (with `aborted` when the caller hung up first; a request
// to /_fake/* with a provider key is listed too: a gateway got there by leaving its base path),
// `?since=<n>` only what came after the first n;
// POST /_fake/release/<name> lets held streams (model hold-<name>) go on.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAnthropic } from './anthropic-fake.ts';
import { handleAzure, handleAzureAi } from './azure-fake.ts';
import { handleBedrock, handleSts } from './bedrock-fake.ts';
import { handleCohere as handleCohereChat } from './cohere-fake.ts';
import { handleGemini } from './gemini-fake.ts';
import { handleRealtimeUpgrade } from './realtime-fake.ts';
import { handleCohere as handleCohereRerank, handleJina, handleVllm, handleVoyage } from './rerank-fake.ts';
import { requestBytes } from './openai-resources-fake.ts';
import { handleVertex } from './vertex-fake.ts';
import { handleOllama, handleOpenAi, handleUsageAlwaysStreamed, releaseHold, sendOpenAiError, type FakeHandler, type SeenRequest } from './openai-fake.ts';

// Path prefix → the fake speaking that provider's wire format (the prefix is removed first).
// Adding a provider is one module and one line here.
const PROVIDER_FAKES: ReadonlyMap<string, FakeHandler> = new Map([
  ['/openai-compatible', handleUsageAlwaysStreamed],
  ['/openai', handleOpenAi],
  ['/ollama', handleOllama],
  ['/anthropic', handleAnthropic],
  ['/gemini', handleGemini],
  ['/azure', handleAzure],
  ['/azure_ai', handleAzureAi],
  ['/bedrock', handleBedrock],
  ['/sts', handleSts],
  ['/vertex', handleVertex],
  ['/cohere', (req, res, body, seen, path) => (/\/rerank$/.test(new URL(path, 'http://fake').pathname) ? handleCohereRerank : handleCohereChat)(req, res, body, seen, path)],
  ['/jina', handleJina],
  ['/voyage', handleVoyage],
  ['/vllm', handleVllm],
]);

function fakeFor(url: string): { handler: FakeHandler; path: string } {
  for (const [prefix, handler] of PROVIDER_FAKES) {
    if (url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`)) return { handler, path: url.slice(prefix.length) || '/' };
  }
  return { handler: handleOpenAi, path: url };
}

export interface FakeProviders {
  url: string;
  close(): Promise<void>;
}

export function startFakeProviders(options: { port?: number; host?: string } = {}): Promise<FakeProviders> {
  const seen: SeenRequest[] = [];
  // Requests dropped from `seen`, which keeps the newest 1000: with its length, all seen since start.
  let dropped = 0;
  const server: Server = createServer((req, res) => {
    // Multipart uploads (image edits, audio) are read by their handler as they arrive, never buffered.
    const streamed = /^multipart\//.test(req.headers['content-type'] ?? '');
    const chunks: Buffer[] = [];
    // A file upload is kept whole for the stored-resources fake, which parses it from its bytes.
    const buffered = !streamed || /\/(files|batches|vector_stores|assistants|threads|uploads|skills)(\/|\?|$)/.test(req.url ?? '');
    if (buffered) req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const serve = () => {
      const bytes = Buffer.concat(chunks);
      requestBytes.set(req, bytes);
      const body = bytes.toString('utf8');
      // The fakes' own routes carrying a provider key were reached by a gateway that left its
      // provider's base path: logged like any upstream request, so that tests see the escape.
      if (req.url?.startsWith('/_fake/') && (req.headers['authorization'] !== undefined || req.headers['x-api-key'] !== undefined)) {
        seen.push({ method: req.method ?? '', path: req.url, headers: req.headers, body, aborted: false });
        if (seen.length > 1000) dropped += seen.splice(0, 1).length;
      }
      const listed = req.method === 'GET' ? /^\/_fake\/requests(?:\?since=(\d+))?$/.exec(req.url ?? '') : null;
      if (listed) {
        // ?since=<n>: only what arrived after the first n requests (the total is in x-fake-total).
        const since = listed[1] === undefined ? 0 : Number(listed[1]);
        const total = dropped + seen.length;
        res.writeHead(200, { 'content-type': 'application/json', 'x-fake-total': String(total) });
        res.end(JSON.stringify(seen.slice(Math.max(0, seen.length - Math.max(0, total - since)))));
        return;
      }
      const release = /^\/_fake\/release\/([^/]+)$/.exec(req.url ?? '');
      if (req.method === 'POST' && release) {
        releaseHold(decodeURIComponent(release[1]));
        res.writeHead(204).end();
        return;
      }
      const record: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, aborted: false };
      seen.push(record);
      if (seen.length > 1000) dropped += seen.splice(0, 1).length;
      // The response closing before it finished means the caller went away.
      res.on('close', () => {
        if (!res.writableFinished) record.aborted = true;
      });
      const { handler, path } = fakeFor(req.url ?? '/');
      // A handler throws on a request it cannot read (a body or path of the wrong shape): a real
      // provider refuses those with a 400, and so does the fake (the fuzz suite sends them).
      handler(req, res, body, record, path).catch((error: unknown) => {
        sendOpenAiError(res, 400, 'invalid_request_error', null, `fake: ${error instanceof Error ? error.message : String(error)}`);
      });
    };
    if (buffered) req.on('end', serve);
    else serve();
  });
  server.on('upgrade', (req, socket, head: Buffer) => handleRealtimeUpgrade(req, socket, head, seen));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      const address = server.address() as AddressInfo;
      resolve({
        url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
