import { StringDecoder } from 'node:string_decoder';
import type { ProviderError } from '@arbor/provider-adapters';
import type { CallUsage } from '../calls/usage';
import type { StreamTap } from './endpoint-codec';

/**
 * A tap over a stream of typed Server-Sent Events that passes them on unchanged, whole events at a
 * time (a partial event waits only for the rest of itself); a family's tap says what it learns
 * from them in `watch`.
 */
export abstract class SseEventTap implements StreamTap {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  protected learned: CallUsage | undefined;
  protected upstreamError: ProviderError | undefined;

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

  /** Learns usage and errors from whole events, as the upstream sent them. */
  protected abstract watch(events: string): void;
}
