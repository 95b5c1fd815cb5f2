import { itemId } from './chat-to-responses.answer';

// A compaction item the gateway wrote: its summary, readable only by the gateway's bridge (OpenAI's
// own compaction items are encrypted by OpenAI and reach only OpenAI).
const PREFIX = 'arbor.compaction.v1.';

/** A compaction item carrying `summary`, as the gateway's bridge writes it. */
export function compactionItem(summary: string): Record<string, unknown> {
  return { id: itemId('cmp'), type: 'compaction', encrypted_content: PREFIX + Buffer.from(summary, 'utf8').toString('base64url') };
}

/** The summary of a compaction item the gateway wrote; undefined for any other (an upstream's own). */
export function summaryOf(encryptedContent: unknown): string | undefined {
  if (typeof encryptedContent !== 'string' || !encryptedContent.startsWith(PREFIX)) return undefined;
  return Buffer.from(encryptedContent.slice(PREFIX.length), 'base64url').toString('utf8');
}
