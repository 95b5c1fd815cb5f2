import { ProviderError } from '@arbor/provider-adapters';
import { type AnswerIds, withGatewayIds } from '../answer-ids';
import { SseEventTap } from '../sse-event-tap';
import { usageOfResponses } from './responses-usage';

// The events that end a response and carry its usage.
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Watches a Responses API event stream on its way to the client, unchanged: the usage of the
 * event that ends the response (response.completed, .incomplete or .failed), and an `error` event
 * or a failed response, so the call counts as failed. Only events that can carry those are
 * parsed; a partial event waits only for the rest of itself. When the response is to be kept
 * (`keepsFinal`), the event that ends it is held back until end(), so that the gateway stores the
 * response before the client can ask for it. Given `ids`, the events carry the gateway's ids of
 * the response and of earlier ones in place of the upstream's.
 */
export class ResponsesStreamTap extends SseEventTap {
  private held = '';
  final: Record<string, unknown> | undefined;
  /** The response as response.created announced it, for the response.failed of a stream broken off. */
  started: Record<string, unknown> | undefined;
  /** Events seen so far: the next sequence number of a stream numbered from 0. */
  events = 0;
  /** The upstream's id of the response, once response.created said it. */
  private upstreamId: string | undefined;

  constructor(
    private readonly keepsFinal = false,
    private readonly ids?: AnswerIds,
  ) {
    super();
  }

  override push(chunk: Buffer | string): string {
    const events = this.renamed(super.push(chunk));
    if (this.held !== '') {
      this.held += events;
      return '';
    }
    if (!this.keepsFinal || this.final === undefined || events === '') return events;
    // The ending event is the last of the stream: it and what follows wait for end().
    const at = finalEventStart(events);
    this.held = events.slice(at);
    return events.slice(0, at);
  }

  override end(): string {
    const rest = this.renamed(super.end());
    const held = this.held + rest;
    this.held = '';
    return held;
  }

  /** Events with the upstream's ids replaced by the gateway's, when it has its own. */
  private renamed(events: string): string {
    return this.ids === undefined || events === '' ? events : withGatewayIds(events, this.upstreamId, this.ids);
  }

  protected watch(events: string): void {
    this.events += countEvents(events);
    if (this.started === undefined && events.includes('"type":"response.created"')) {
      this.started = createdResponse(events);
      const upstream = this.started?.['id'];
      if (this.ids && this.started && typeof upstream === 'string') {
        this.upstreamId = upstream;
        this.started = JSON.parse(withGatewayIds(JSON.stringify(this.started), upstream, this.ids)) as Record<string, unknown>;
      }
    }
    // Inside content, quotes are escaped, so these cannot match text.
    if (!events.includes('"type":"response.') && !events.includes('"type":"error"')) return;
    for (const match of events.matchAll(/^data: ?(\{.*)$/gm)) {
      const data = match[1] ?? '';
      if (
        !data.startsWith('{"type":"response.completed"') &&
        !data.startsWith('{"type":"response.incomplete"') &&
        !data.startsWith('{"type":"response.failed"') &&
        !data.startsWith('{"type":"error"')
      )
        continue;
      let event: { type?: unknown; response?: { usage?: unknown; error?: { code?: unknown; message?: unknown } | null }; code?: unknown; message?: unknown };
      try {
        event = JSON.parse(data) as typeof event;
      } catch {
        continue;
      }
      if (typeof event.type === 'string' && FINAL_EVENTS.has(event.type)) {
        this.learned = usageOfResponses(event.response?.usage) ?? this.learned;
        if (event.type !== 'response.failed' && typeof event.response === 'object' && event.response !== null) this.final = event.response as Record<string, unknown>;
      }
      if (event.type === 'response.failed') this.upstreamError = streamFailure(event.response?.error?.code, event.response?.error?.message);
      else if (event.type === 'error') this.upstreamError = streamFailure(event.code, event.message);
    }
  }
}

/** The number of events in whole events' text (one `data:` line each). */
function countEvents(events: string): number {
  let count = 0;
  for (let at = events.indexOf('data:'); at >= 0; at = events.indexOf('data:', at + 5)) if (at === 0 || events[at - 1] === '\n') count++;
  return count;
}

function createdResponse(events: string): Record<string, unknown> | undefined {
  const data = /^data: ?(\{"type":"response\.created".*)$/m.exec(events)?.[1];
  if (!data) return undefined;
  try {
    const response = (JSON.parse(data) as { response?: unknown }).response;
    return typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Where the event ending the response begins in `events` (whole events, the ending one among them). */
function finalEventStart(events: string): number {
  const data = /^data: ?\{"type":"response\.(?:completed|incomplete)"/m.exec(events);
  if (!data) return events.length;
  const before = events.lastIndexOf('\n\n', data.index);
  return before < 0 ? 0 : before + 2;
}

function streamFailure(code: unknown, message: unknown): ProviderError {
  return new ProviderError(502, 'server_error', typeof message === 'string' ? message : 'the response failed upstream', typeof code === 'string' ? code : null);
}
