import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** One page of a list toward the client; the cursor is the opaque position of the next page. */
export function page<T>(all: readonly T[], cursor: string | undefined, size: number): { items: readonly T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : positionOf(cursor);
  const end = start + size;
  return { items: all.slice(start, end), ...(end < all.length ? { nextCursor: Buffer.from(`p:${end}`).toString('base64url') } : {}) };
}

function positionOf(cursor: string): number {
  const match = /^p:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
  return Number(match[1]);
}
