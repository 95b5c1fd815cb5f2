import { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The MCP versions the gateway speaks, newest first (not the SDK's 2024-10-07). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const DEFAULT_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

export function isSupportedVersion(version: string): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

/**
 * An initialize asking for a version the gateway does not speak is answered with the default
 * version, as the specification asks. The SDK server would echo 2024-10-07, so it is replaced here.
 */
export function negotiateInitialize<T>(message: T): T {
  if (Array.isArray(message)) return message.map((m: unknown) => negotiateInitialize(m)) as T;
  const request = message as Partial<JSONRPCMessage> & { method?: unknown; params?: { protocolVersion?: unknown } };
  if (request?.method !== 'initialize' || typeof request.params?.protocolVersion !== 'string') return message;
  if (isSupportedVersion(request.params.protocolVersion)) return message;
  return { ...request, params: { ...request.params, protocolVersion: DEFAULT_PROTOCOL_VERSION } } as T;
}
