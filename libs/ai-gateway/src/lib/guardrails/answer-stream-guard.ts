import { type ContentBlocked, type ContentFilter, type StreamPiece, WindowedFilter } from '@arbor/guardrails';
import type { AnswerText } from '../endpoints/answer-text';

/** An event on its way: its text as it came, its data as far as it is decided, and its deltas' pieces. */
interface HeldEvent {
  readonly text: string;
  /** The data line's document (its whole texts already guarded), or undefined: nothing in it is text. */
  readonly data?: Record<string, unknown>;
  readonly original?: Record<string, unknown>;
  readonly pieces: { readonly channel: string; readonly piece: StreamPiece }[];
}

const EVENT_END = /\r?\n\r?\n/;

/**
 * The guardrails of a streamed answer, as its events pass: each text the model streams (a choice,
 * a content block, an output part: a channel of the family's AnswerText) goes through a
 * WindowedFilter, so that a match split over chunks is masked once; an event goes on when every
 * delta in it is decided (in order, the events without text with them), the texts events repeat
 * whole (a part or the answer done) are guarded at once. A BLOCK match throws `refuse`'s error.
 */
export class AnswerStreamGuard {
  private readonly windows = new Map<string, WindowedFilter>();
  private readonly held: HeldEvent[] = [];

  constructor(
    private readonly answerText: AnswerText,
    private readonly filters: readonly ContentFilter[],
    /** A whole text as the guardrails leave it (it throws when one blocks it). */
    private readonly guardWhole: (text: string) => string,
    private readonly refuse: (blocked: ContentBlocked, by: number) => Error,
  ) {}

  /** The events that may go on now, of those that came (`text`: whole events) and those held before. */
  events(text: string, final: boolean): string {
    for (const event of splitEvents(text)) this.held.push(this.hold(event));
    const decided = new Map<string, number>();
    for (const [channel, window] of this.windows) {
      const verdict = window.release(final);
      if ('blocked' in verdict) throw this.refuse(verdict.blocked, verdict.by);
      decided.set(channel, verdict.until);
    }
    let out = '';
    while (this.held.length > 0) {
      const next = this.held[0] as HeldEvent;
      if (!next.pieces.every(({ channel, piece }) => piece.end <= (decided.get(channel) ?? 0))) break;
      this.held.shift();
      out += this.written(next);
    }
    return out;
  }

  private hold(text: string): HeldEvent {
    const line = dataLine(text);
    if (!line) return { text, pieces: [] };
    let original: Record<string, unknown>;
    try {
      const parsed = JSON.parse(line.json) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { text, pieces: [] };
      original = parsed as Record<string, unknown>;
    } catch {
      return { text, pieces: [] };
    }
    const pieces: HeldEvent['pieces'] = [];
    const data = this.answerText.event(
      original,
      (channel, delta) => {
        pieces.push({ channel, piece: this.window(channel).push(delta) });
        return delta;
      },
      this.guardWhole,
    );
    return { text, data, original, pieces };
  }

  private written(event: HeldEvent): string {
    if (!event.data || !event.original) return event.text;
    let index = 0;
    const data = this.answerText.event(
      event.data,
      (channel) => this.window(channel).take((event.pieces[index++] as HeldEvent['pieces'][number]).piece),
      (text) => text,
    );
    if (data === event.original) return event.text;
    const line = dataLine(event.text) as { start: number; end: number };
    return `${event.text.slice(0, line.start)}data: ${JSON.stringify(data)}${event.text.slice(line.end)}`;
  }

  /** The filters (by index) that masked any text of the stream so far. */
  maskedBy(): Set<number> {
    const by = new Set<number>();
    for (const window of this.windows.values()) for (const index of window.maskedBy) by.add(index);
    return by;
  }

  private window(channel: string): WindowedFilter {
    let window = this.windows.get(channel);
    if (!window) this.windows.set(channel, (window = new WindowedFilter(this.filters)));
    return window;
  }
}

/** An event's data line as a JSON object, or undefined (none, or not an object: `[DONE]`). */
export function dataOf(event: string): Record<string, unknown> | undefined {
  const line = dataLine(event);
  if (!line) return undefined;
  try {
    const parsed = JSON.parse(line.json) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whole events, each with its terminator (what follows the last terminator is an event too). */
export function splitEvents(text: string): string[] {
  const events: string[] = [];
  let rest = text;
  for (let match = EVENT_END.exec(rest); match; match = EVENT_END.exec(rest)) {
    const end = match.index + match[0].length;
    events.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest !== '') events.push(rest);
  return events;
}

/** The event's one data line holding a JSON object: where its value begins and ends. */
function dataLine(event: string): { json: string; start: number; end: number } | undefined {
  const match = /^data: ?(\{.*)$/m.exec(event);
  if (!match || event.indexOf('\ndata:', match.index + 1) >= 0) return undefined;
  const start = match.index;
  const json = (match[1] as string).replace(/\r$/, '');
  return { json, start, end: start + match[0].length - (match[0].endsWith('\r') ? 1 : 0) };
}
