import http, { IncomingMessage } from 'node:http';
import https from 'node:https';
import { guardedLookup } from '../registry/upstream-url-guard';

// What the HTTP upstream transports (Streamable HTTP, discover-first) share on node:http.

/**
 * Keep-alive pools shared by every upstream session (a call reuses a warm socket), one pair per
 * address rule: each new socket's address passes the upstream guard when it is opened.
 */
const AGENTS = new Map<boolean, { 'http:': http.Agent; 'https:': https.Agent }>();

export function agentsFor(allowLinkLocal: boolean): { 'http:': http.Agent; 'https:': https.Agent } {
  let agents = AGENTS.get(allowLinkLocal);
  if (!agents) {
    const lookup = guardedLookup(allowLinkLocal);
    agents = { 'http:': new http.Agent({ keepAlive: true, lookup }), 'https:': new https.Agent({ keepAlive: true, lookup }) };
    AGENTS.set(allowLinkLocal, agents);
  }
  return agents;
}

/** The upstream could not be reached or dropped the connection (no HTTP answer to go by). */
export class UpstreamConnectionError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'UpstreamConnectionError';
  }
}

/** A response's whole body as UTF-8 text. */
export function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.once('error', reject);
  });
}

/** `text/event-stream` of `text/event-stream; charset=utf-8`, lower-cased. */
export function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase();
}
