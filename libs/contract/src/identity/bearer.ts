import type { IncomingMessage } from 'node:http';

type WithHeaders = Pick<IncomingMessage, 'headers'>;

/** `Authorization: Bearer <token>` with a token of RFC 6750's token68 characters (scheme case-insensitive), or null. */
export function bearerToken(request: WithHeaders): string | null {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1] : null;
}

/** `Bearer` followed by something that is no token: a malformed token (RFC 6750 §3.1), not a missing one. */
export function hasMalformedBearer(request: WithHeaders): boolean {
  return bearerToken(request) === null && /^\s*Bearer\s+\S/i.test(request.headers.authorization ?? '');
}

export interface PresentedCredentialOptions {
  /** A header that may carry an API key instead (`x-api-key`, as OpenAI's and Anthropic's clients send). */
  apiKeyHeader?: string;
  /** A query parameter that may carry it on a WebSocket upgrade (browsers cannot set headers there). */
  webSocketQueryParameter?: string;
}

/**
 * Whatever credential a request presents — a token or an API key: `Authorization: Bearer <value>`
 * (any characters but surrounding spaces, for API keys), else the API-key header, else, on a
 * WebSocket upgrade, the query parameter. Undefined when none.
 */
export function presentedCredential(request: Pick<IncomingMessage, 'headers' | 'url'>, options: PresentedCredentialOptions = {}): string | undefined {
  const match = /^Bearer[ ]+(.*)$/i.exec(request.headers.authorization ?? '');
  if (match) return match[1].trim() || undefined;
  if (options.apiKeyHeader) {
    const value = request.headers[options.apiKeyHeader.toLowerCase()];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  if (options.webSocketQueryParameter && request.headers.upgrade?.toLowerCase() === 'websocket') {
    return new URL(request.url ?? '/', 'http://localhost').searchParams.get(options.webSocketQueryParameter) || undefined;
  }
  return undefined;
}
