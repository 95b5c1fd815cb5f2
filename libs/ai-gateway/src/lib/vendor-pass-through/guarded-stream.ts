import { StringDecoder } from 'node:string_decoder';
import { ProviderError } from '@arbor/provider-adapters';
import type { GuardedPassThrough } from '../guardrails/guardrails';

/** Where the whole events of `text` end (after the last blank line), or -1. */
function wholeEventsEnd(text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
}

/**
 * A pass-through's streamed answer under the guardrails: the vendor's bytes cut into whole events,
 * each batch through `guarded.events` (masked, or held a while), the rest at the end after
 * `guarded.ended`; a refusal ends the stream with the family's error event (`errorEvent`), and
 * the upstream is stopped there.
 */
export async function* guardedStream(
  body: AsyncIterable<Buffer>,
  guarded: Required<Pick<GuardedPassThrough, 'events'>> & GuardedPassThrough,
  errorEvent: (error: ProviderError) => string,
): AsyncIterable<Buffer> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  try {
    for await (const chunk of body) {
      pending += decoder.write(chunk);
      const end = wholeEventsEnd(pending);
      if (end < 0) continue;
      const out = guarded.events(pending.slice(0, end), false);
      pending = pending.slice(end);
      if (out !== '') yield Buffer.from(out, 'utf8');
    }
    const out = guarded.events(pending + decoder.end(), true);
    await guarded.ended?.();
    if (out !== '') yield Buffer.from(out, 'utf8');
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    yield Buffer.from(errorEvent(error), 'utf8');
  }
}
