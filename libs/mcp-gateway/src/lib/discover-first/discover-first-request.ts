import type { IncomingHttpHeaders } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { excerpt, MAX_EXCERPT_LENGTH } from '@arbor/platform';
import type { ClientCapabilities, Implementation, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { Refusal, unsupportedVersion } from '../transports/mcp-edge';
import { isDiscoverFirstVersion, DISCOVER_FIRST_PROTOCOL_VERSIONS } from '../protocol/protocol-versions';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, HEADER_MISMATCH, NAME_SOURCE, PROTOCOL_VERSION_KEY } from '../protocol/envelope';
import { decodeHeaderValue } from '../protocol/param-headers';

/** A request of the discover-first era: its version, capabilities and client come with it, not from a session. */
export interface DiscoverFirstRequest {
  kind: 'request';
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  version: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** Its `Mcp-Param-*` headers by lower-cased name, checked against the tool's declarations when it is a call. */
  header(lowerCaseName: string): string | undefined;
}

export interface DiscoverFirstNotification {
  kind: 'notification';
  method: string;
}

export type EraOfRequest = { era: 'handshake' } | { era: 'discover-first'; message: DiscoverFirstRequest | DiscoverFirstNotification } | { refusal: Refusal };

/**
 * Which era one HTTP request belongs to, as the revision's versioning page has a dual-era server
 * tell: a request carrying the per-request `_meta` envelope is of the discover-first era, `initialize`
 * and anything without the envelope of the handshake era. The body decides (the SDK's classifier, which also checks the
 * `MCP-Protocol-Version` and `Mcp-Method` headers against it); then the discover-first request's version
 * must be one the gateway speaks, and its standard headers must all be there and agree.
 */
export function eraOfRequest(httpMethod: string, headers: IncomingHttpHeaders, body: unknown): EraOfRequest {
  const versionHeader = single(headers['mcp-protocol-version']);
  if (httpMethod !== 'POST') {
    // GET streams and DELETE of sessions are gone in the discover-first era: it is POST-only.
    if (versionHeader !== undefined && isDiscoverFirstVersion(versionHeader.trim())) {
      return { refusal: { ...bare(405, -32000, 'Method not allowed: protocol version 2026-07-28 and later take POST only', null), headers: { allow: 'POST' } } };
    }
    return { era: 'handshake' };
  }
  // Most traffic is one request of the older versions: told apart without the classifier.
  const envelope = Array.isArray(body) ? body.some(carriesEnvelope) : carriesEnvelope(body);
  if (!envelope && (versionHeader === undefined || !isDiscoverFirstVersion(versionHeader.trim()))) return { era: 'handshake' };
  const methodHeader = single(headers['mcp-method']);
  const nameHeader = single(headers['mcp-name']);
  const outcome = classifyInboundRequest({
    httpMethod,
    body,
    ...(versionHeader !== undefined ? { protocolVersionHeader: versionHeader } : {}),
    ...(methodHeader !== undefined ? { mcpMethodHeader: methodHeader } : {}),
    ...(nameHeader !== undefined ? { mcpNameHeader: nameHeader } : {}),
  });
  // The SDK calls the handshake era `legacy`.
  if (outcome.kind === 'legacy') return { era: 'handshake' };
  if (outcome.kind === 'reject') {
    const sent = sentValues(body, [versionHeader, methodHeader, nameHeader]);
    return { refusal: bare(outcome.httpStatus, outcome.code, quotedBounded(outcome.message, sent), idOf(body), quotedBounded(outcome.data, sent)) };
  }
  if (outcome.messageKind === 'notification') return { era: 'discover-first', message: { kind: 'notification', method: outcome.message.method } };

  const message = outcome.message;
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = params['_meta'] as Record<string, unknown>;
  const version = outcome.classification.revision ?? versionHeader?.trim() ?? '';
  if (!(DISCOVER_FIRST_PROTOCOL_VERSIONS as readonly string[]).includes(version)) return { refusal: unsupportedVersion(version, message.id) };
  const mismatch = standardHeaderMismatch(message.method, params, versionHeader, methodHeader, nameHeader);
  if (mismatch) return { refusal: bare(400, HEADER_MISMATCH, `Bad Request: header mismatch: ${mismatch}`, message.id) };
  return {
    era: 'discover-first',
    message: {
      kind: 'request',
      id: message.id,
      method: message.method,
      params,
      version,
      clientCapabilities: (meta[CLIENT_CAPABILITIES_KEY] ?? {}) as ClientCapabilities,
      ...(meta[CLIENT_INFO_KEY] ? { clientInfo: meta[CLIENT_INFO_KEY] as Implementation } : {}),
      header: (name) => single(headers[name]),
    },
  };
}

/** What is wrong with a discover-first request's `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, if anything. */
function standardHeaderMismatch(
  method: string,
  params: Record<string, unknown>,
  versionHeader: string | undefined,
  methodHeader: string | undefined,
  nameHeader: string | undefined,
): string | undefined {
  if (versionHeader === undefined) return 'the required MCP-Protocol-Version header is missing';
  if (methodHeader === undefined) return `the required Mcp-Method header is missing (the body names method ${excerpt(method)})`;
  const field = NAME_SOURCE[method];
  const bodyValue = field ? params[field] : undefined;
  if (typeof bodyValue !== 'string') return undefined;
  if (nameHeader === undefined) return `the required Mcp-Name header is missing (the body names ${excerpt(bodyValue)})`;
  const decoded = decodeHeaderValue(nameHeader.trim());
  if (decoded === undefined) return 'the Mcp-Name header carries an invalid Base64 value';
  if (decoded !== bodyValue) return `the Mcp-Name header names ${excerpt(decoded)} but the body names ${excerpt(bodyValue)}`;
  return undefined;
}

/**
 * What the SDK's classifier may quote in a refusal: the body's method, name, URI and envelope,
 * and the standard headers. Only the long ones matter.
 */
function sentValues(body: unknown, headers: readonly (string | undefined)[]): string[] {
  const message = (typeof body === 'object' && body !== null ? body : {}) as { method?: unknown; params?: { name?: unknown; uri?: unknown; _meta?: unknown } };
  const meta = typeof message.params?._meta === 'object' && message.params._meta !== null ? (message.params._meta as Record<string, unknown>) : {};
  const values = [message.method, message.params?.name, message.params?.uri, ...Object.keys(meta), ...Object.values(meta), ...headers];
  return values.filter((value): value is string => typeof value === 'string' && value.length > MAX_EXCERPT_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * `value` (a message, or the data beside it) with every long value the client sent, as the SDK
 * wrote it in (plain or JSON-quoted), replaced by its excerpt: the SDK words its refusals, the
 * gateway keeps the README's promise that errors quote at most an excerpt.
 */
function quotedBounded<T>(value: T, sent: readonly string[]): T {
  if (sent.length === 0) return value;
  if (typeof value === 'string') {
    let text: string = value;
    for (const original of sent) {
      for (const form of new Set([original, JSON.stringify(original).slice(1, -1)])) text = text.split(form).join(excerpt(original));
    }
    return text as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => quotedBounded(item, sent)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [quotedBounded(key, sent), quotedBounded(item, sent)])) as T;
  }
  return value;
}

function carriesEnvelope(body: unknown): boolean {
  const meta = (body as { params?: { _meta?: unknown } } | null)?.params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_KEY in meta;
}

function bare(status: number, code: number, message: string, id: RequestId | null, data?: unknown): Refusal {
  return { status, body: { jsonrpc: '2.0', error: { code, message, ...(data !== undefined ? { data } : {}) }, id } };
}

function idOf(body: unknown): RequestId | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
