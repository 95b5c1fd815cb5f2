import { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The versions opened with an `initialize` handshake (the handshake era), newest first (not the SDK's 2024-10-07). */
export const HANDSHAKE_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/**
 * The versions whose every request carries its version in `_meta` (the discover-first era: a
 * client learns the server from `server/discover`, with no `initialize` and no session).
 */
export const DISCOVER_FIRST_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
/** Every version the gateway speaks, newest first: what a refusal lists and `server/discover` answers. */
export const SUPPORTED_PROTOCOL_VERSIONS = [...DISCOVER_FIRST_PROTOCOL_VERSIONS, ...HANDSHAKE_PROTOCOL_VERSIONS] as const;
/** What an `initialize` asking for a version the gateway does not speak gets. */
export const DEFAULT_PROTOCOL_VERSION = HANDSHAKE_PROTOCOL_VERSIONS[0];

export function isSupportedVersion(version: string): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

export function isHandshakeVersion(version: string): boolean {
  return (HANDSHAKE_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

/** A version of the discover-first era or later, as the revision orders them (its identifiers are dates). */
export function isDiscoverFirstVersion(version: string): boolean {
  return version >= DISCOVER_FIRST_PROTOCOL_VERSIONS[0];
}

/**
 * An initialize asking for a version the gateway does not speak is answered with the default
 * version, as the specification asks. The SDK server would echo 2024-10-07, so it is replaced here.
 */
export function negotiateInitialize<T>(message: T): T {
  if (Array.isArray(message)) return message.map((m: unknown) => negotiateInitialize(m)) as T;
  const request = message as Partial<JSONRPCMessage> & { method?: unknown; params?: { protocolVersion?: unknown } };
  if (request?.method !== 'initialize' || typeof request.params?.protocolVersion !== 'string') return message;
  if (isHandshakeVersion(request.params.protocolVersion)) return message;
  return { ...request, params: { ...request.params, protocolVersion: DEFAULT_PROTOCOL_VERSION } } as T;
}
