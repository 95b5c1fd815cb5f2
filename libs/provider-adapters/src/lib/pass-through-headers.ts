import type { IncomingHttpHeaders } from 'node:http';
import { withHopByHop } from '@arbor/platform';

// What describes the body and the answer wanted, the vendors' own documented request headers,
// the SDKs' telemetry and trace context: nothing that identifies or authorises the caller.
const ALLOWED = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'accept',
  'user-agent',
  'idempotency-key',
  'openai-beta',
  'x-client-request-id',
  'anthropic-version',
  'anthropic-beta',
  'traceparent',
  'tracestate',
]);
const ALLOWED_PREFIXES = ['x-stainless-'];
// The caller's credentials in every vendor's SDK (the gateway's virtual key), and cookies: never sent on.
const CREDENTIALS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie', 'cookie2']);

// A request's hop-by-hop headers, and those that name or pace this hop (undici sets host and frames a streamed body itself).
const NOT_SENT_ON = withHopByHop('host', 'expect');

/**
 * The caller's request headers a pass-through sends to the provider, beside the provider's own
 * key: by default only those of the allow-list above; with `allHeaders` (LiteLLM's
 * `forward_headers: true` on a pass_through_endpoint) every header but hop-by-hop ones. Either
 * way never the caller's credentials or cookies.
 */
export function passThroughHeaders(incoming: IncomingHttpHeaders, options: { allHeaders?: boolean } = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || CREDENTIALS.has(name) || NOT_SENT_ON.has(name)) continue;
    if (!options.allHeaders && !ALLOWED.has(name) && !ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
