import type { ServerResponse } from 'node:http';
import { type UpstreamResponse } from '@arbor/provider-adapters';
import { withHopByHop } from '@arbor/platform';
import { badRequest } from '../gateway-errors';
import { checkedId } from '../stored-responses/responses-store';

// The upstream's hop, its length (the reply is framed anew) and who and when answered.
const HOP_HEADERS = withHopByHop('content-length', 'date', 'server');

export function sendJson(response: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** An upstream answer passed on as it arrives (a file's content, a run's events), its provider headers prefixed. */
export async function relay(response: ServerResponse, answer: UpstreamResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    if (name === 'content-type' || name === 'content-disposition' || name === 'cache-control') headers[name] = value;
    else headers[`llm_provider-${name}`] = value;
  }
  response.writeHead(answer.statusCode, headers);
  for await (const chunk of answer.body) {
    if (!response.write(chunk as Buffer)) await new Promise((resolve) => response.once('drain', resolve));
  }
  response.end();
}

/** A path segment naming an id, decoded and checked. */
export function pathId(raw: string, field: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest(`The ${field} in the path is not valid percent-encoded UTF-8.`, field);
  }
  return checkedId(decoded, field);
}

export function queryOf(url: string | undefined): URLSearchParams {
  return new URL(url ?? '/', 'http://gateway').searchParams;
}

/** Aborted when the client goes away before its answer is complete, so that the upstream transfer stops too. */
export function abortOnClose(response: ServerResponse): AbortSignal {
  const abort = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) abort.abort(new Error('client disconnected'));
  });
  return abort.signal;
}
