import { hash, randomBytes } from 'node:crypto';

export const MCP_KEY_PREFIX = 'sk-arbor-mcp-';

/** A fresh key: the prefix and 32 random bytes in base64url. */
export function newMcpKey(): string {
  return MCP_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** What the database stores and looks keys up by (once per call: the one-shot hash, not a Hash object). */
export function hashMcpKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function mcpKeyHint(key: string): string {
  return `${MCP_KEY_PREFIX}…${key.slice(-4)}`;
}
