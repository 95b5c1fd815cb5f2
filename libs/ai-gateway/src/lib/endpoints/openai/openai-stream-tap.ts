import { StringDecoder } from 'node:string_decoder';
import { ProviderError } from '@arbor/provider-adapters';
import { CallUsage, usageFrom } from '../../calls/usage';
import type { StreamTap } from '../endpoint-codec';

/**
 * Watches an OpenAI-format event stream on its way to the client: learns the usage the upstream reports
 * (the gateway always asks for it, so that spend is right) and, when the client did not ask for
 * usage, removes it again — the usage-only last chunk and the `"usage":null` of every other one —
 * so the client sees what the upstream would have sent it. It also notices an error event the
 * upstream sent in the stream (passed on as it is), so the call counts as failed. Events pass
 * whole and in order; a partial event waits only for the rest of itself.
 */
export class StreamUsageTap implements StreamTap {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private learned: CallUsage | undefined;
  private upstreamError: ProviderError | undefined;
  /** The usage chunk held for its cost (parsed), how it ended, and what came after it. */
  private held: { chunk: Record<string, unknown>; terminator: string; after: string } | undefined;

  constructor(private readonly keepUsage: boolean) {}

  /** The usage the stream reported, if it did. */
  get usage(): CallUsage | undefined {
    return this.learned;
  }

  /** The error event the upstream ended its stream with, if it did (for metrics: the client got it as it was). */
  get error(): ProviderError | undefined {
    return this.upstreamError;
  }

  /** What to send on for this piece of the upstream stream ('' while an event is incomplete). */
  push(chunk: Buffer | string): string {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const end = lastEventEnd(text);
    if (end < 0) {
      this.pending = text;
      return '';
    }
    this.pending = text.slice(end);
    return this.filter(text.slice(0, end));
  }

  /** The rest, when the upstream ended (an unterminated last event goes on as it is). */
  end(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return rest === '' ? '' : this.filter(rest);
  }

  /** The usage chunk the client asked for, with the call's cost in `usage.cost`, and the events after it. */
  release(cost: number): string {
    const held = this.held;
    if (!held) return '';
    this.held = undefined;
    const usage = held.chunk['usage'] as Record<string, unknown>;
    return `data: ${JSON.stringify({ ...held.chunk, usage: { ...usage, cost } })}${held.terminator}${held.after}`;
  }

  private filter(events: string): string {
    // Nearly every chunk carries neither usage nor an error: it passes untouched, unparsed.
    // (Inside content, quotes are escaped, so these keys cannot match text.)
    if (events.includes('"error"')) this.noticeError(events);
    if (this.held) {
      this.held.after += events;
      return '';
    }
    if (!events.includes('"usage"')) return events;
    if (this.keepUsage) return this.holdingUsage(events);
    // Asked for usage, every chunk says "usage":null until the one that carries it, at the end:
    // those pass with a plain string replacement, and only the events from the first one with
    // a usage on are taken apart.
    const nullsRemoved = withoutNullUsage(events);
    const at = nullsRemoved.indexOf('"usage"');
    if (at < 0) return this.keepUsage ? events : nullsRemoved;
    const start = eventStartBefore(nullsRemoved, at);
    let out = nullsRemoved.slice(0, start);
    for (const event of splitEvents(nullsRemoved.slice(start))) out += this.withUsageLearned(event);
    return this.keepUsage ? events : out;
  }

  /**
   * Events as the client that asked for usage gets them: unchanged up to the usage chunk, which
   * is held back with everything after it until the call's cost is known (release).
   */
  private holdingUsage(events: string): string {
    if (!withoutNullUsage(events).includes('"usage"')) return events;
    let out = '';
    for (const event of splitEvents(events)) {
      if (this.held) this.held.after += event;
      else if (!withoutNullUsage(event).includes('"usage"')) out += event;
      else {
        const chunk = usageChunk(event);
        const usage = chunk ? usageFrom(chunk['usage']) : undefined;
        if (!chunk || !usage) out += event;
        else {
          this.learned = usage;
          const end = event.search(/\r?\n\r?\n$/);
          this.held = { chunk, terminator: end < 0 ? '\n\n' : event.slice(end), after: '' };
        }
      }
    }
    return out;
  }

  /** An event (without "usage":null) as the client gets it when it did not ask for usage; its usage learned. */
  private withUsageLearned(event: string): string {
    if (!event.includes('"usage"')) return event;
    const data = /^data: ?(.*)$/m.exec(event)?.[1];
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data ?? '') as Record<string, unknown>;
    } catch {
      return event;
    }
    const usage = usageFrom(chunk['usage']);
    if (usage) this.learned = usage;
    if (this.keepUsage || !usage) return event;
    // The usage-only chunk the client did not ask for goes; usage on a content chunk is cut out.
    if (Array.isArray(chunk['choices']) && chunk['choices'].length === 0) return '';
    delete chunk['usage'];
    return `data: ${JSON.stringify(chunk)}${event.slice(event.search(/\r?\n\r?\n$/))}`;
  }

  private noticeError(events: string): void {
    for (const match of events.matchAll(/^data: ?(\{"error".*)$/gm)) {
      try {
        const parsed = JSON.parse(match[1] ?? '') as { error?: unknown };
        if (typeof parsed.error === 'object' && parsed.error !== null) this.upstreamError = upstreamErrorEvent(parsed.error);
      } catch {
        // Not an error event after all.
      }
    }
  }
}

/** The JSON of an event's data line, when it is an object. */
function usageChunk(event: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(/^data: ?(.*)$/m.exec(event)?.[1] ?? '') as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Events without their `"usage":null` members (compact JSON, as OpenAI and compatible servers send it). */
function withoutNullUsage(events: string): string {
  // OpenAI puts it last in each chunk (`,"usage":null}`); the other forms only if some remain.
  const out = events.replaceAll(',"usage":null', '');
  return out.includes('"usage":null') ? out.replaceAll('"usage":null,', '').replaceAll('"usage":null', '') : out;
}

/** Index just after the last complete event (`\n\n` or `\r\n\r\n`), or -1. */
function lastEventEnd(text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
}

/** Where the event holding `index` begins: just after the blank line before it, or 0. */
function eventStartBefore(text: string, index: number): number {
  const lf = text.lastIndexOf('\n\n', index);
  const crlf = text.lastIndexOf('\r\n\r\n', index);
  return Math.max(0, lf < 0 ? 0 : lf + 2, crlf < 0 ? 0 : crlf + 4);
}

/** Complete events, each with its terminator. */
function splitEvents(text: string): string[] {
  return text.match(/[\s\S]*?\r?\n\r?\n|[\s\S]+$/g) ?? [];
}

/** An error event an upstream sent in its stream, as the failure metrics record. */
function upstreamErrorEvent(error: { type?: unknown; code?: unknown; message?: unknown }): ProviderError {
  const code = typeof error.code === 'string' ? error.code : typeof error.type === 'string' ? error.type : 'stream_error';
  return new ProviderError(502, typeof error.type === 'string' ? error.type : 'api_error', String(error.message ?? 'stream error'), code);
}
