import type { CallUsage } from '../../calls/usage';
import { SseEventTap } from '../sse-event-tap';
import { messagesErrorOf } from './messages-errors';
import { usageOfMessages } from './messages-usage';

/**
 * Watches an Anthropic Messages event stream on its way to the client, unchanged: the usage of
 * `message_start` (input and cache tokens) completed by `message_delta` (output tokens, which
 * Anthropic reports cumulatively), and an `error` event the upstream sent. Only the events that
 * carry usage or an error are parsed; a partial event waits only for the rest of itself.
 */
export class MessagesStreamTap extends SseEventTap {
  private readonly reported: Record<string, unknown> = {};
  private complete = false;

  /** Known once message_delta arrived: a stream cut before it is estimated, not taken at its first count. */
  override get usage(): CallUsage | undefined {
    return this.complete ? usageOfMessages(this.reported) : undefined;
  }

  protected watch(events: string): void {
    // Inside content, quotes are escaped, so these cannot match text.
    if (!events.includes('"usage"') && !events.includes('"type":"error"')) return;
    for (const match of events.matchAll(/^data: ?(\{.*)$/gm)) {
      const data = match[1] ?? '';
      if (!data.includes('"usage"') && !data.includes('"type":"error"')) continue;
      let event: { type?: unknown; message?: { usage?: unknown }; usage?: unknown; error?: unknown };
      try {
        event = JSON.parse(data) as typeof event;
      } catch {
        continue;
      }
      if (event.type === 'message_start' && typeof event.message?.usage === 'object') Object.assign(this.reported, event.message.usage);
      else if (event.type === 'message_delta' && typeof event.usage === 'object' && event.usage !== null) {
        // Cumulative counts: what it names replaces what message_start said.
        for (const [name, value] of Object.entries(event.usage)) if (value !== null && value !== undefined) this.reported[name] = value;
        this.complete = true;
      } else if (event.type === 'error') this.upstreamError = messagesErrorOf(event);
    }
  }
}
