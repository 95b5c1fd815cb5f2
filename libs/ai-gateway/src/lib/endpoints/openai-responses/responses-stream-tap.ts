import { StringDecoder } from 'node:string_decoder';
import { ProviderError } from '@arbor/provider-adapters';
import type { CallUsage } from '../../calls/usage';
import type { StreamTap } from '../endpoint-codec';
import { usageOfResponses } from './responses-usage';

// The events that end a response and carry its usage.
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Watches a Responses API event stream on its way to the client, unchanged: the usage of the
 * event that ends the response (response.completed, .incomplete or .failed), and an `error` event
 * or a failed response, so the call counts as failed. Only events that can carry those are
 * parsed; a partial event waits only for the rest of itself.
 */
export class ResponsesStreamTap implements StreamTap {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private learned: CallUsage | undefined;
  private upstreamError: ProviderError | undefined;

  get usage(): CallUsage | undefined {
    return this.learned;
  }

  get error(): ProviderError | undefined {
    return this.upstreamError;
  }

  push(chunk: Buffer | string): string {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const lf = text.lastIndexOf('\n\n');
    const crlf = text.lastIndexOf('\r\n\r\n');
    const end = Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
    if (end < 0) {
      this.pending = text;
      return '';
    }
    this.pending = text.slice(end);
    const events = text.slice(0, end);
    this.watch(events);
    return events;
  }

  end(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    this.watch(rest);
    return rest;
  }

  private watch(events: string): void {
    // Inside content, quotes are escaped, so these cannot match text.
    if (!events.includes('"type":"response.') && !events.includes('"type":"error"')) return;
    for (const match of events.matchAll(/^data: ?(\{.*)$/gm)) {
      const data = match[1] ?? '';
      if (!data.startsWith('{"type":"response.completed"') && !data.startsWith('{"type":"response.incomplete"') && !data.startsWith('{"type":"response.failed"') && !data.startsWith('{"type":"error"')) continue;
      let event: { type?: unknown; response?: { usage?: unknown; error?: { code?: unknown; message?: unknown } | null }; code?: unknown; message?: unknown };
      try {
        event = JSON.parse(data) as typeof event;
      } catch {
        continue;
      }
      if (typeof event.type === 'string' && FINAL_EVENTS.has(event.type)) this.learned = usageOfResponses(event.response?.usage) ?? this.learned;
      if (event.type === 'response.failed') this.upstreamError = streamFailure(event.response?.error?.code, event.response?.error?.message);
      else if (event.type === 'error') this.upstreamError = streamFailure(event.code, event.message);
    }
  }
}

function streamFailure(code: unknown, message: unknown): ProviderError {
  return new ProviderError(502, 'server_error', typeof message === 'string' ? message : 'the response failed upstream', typeof code === 'string' ? code : null);
}
