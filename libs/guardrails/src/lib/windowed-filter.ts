import { type ContentBlocked, type ContentFilter, type MaskedSpan, scanAll } from './content-filter';

/**
 * How many characters of text a piece waits for after it before it goes on: longer than any match
 * of a prebuilt pattern, so that a match split over pieces is always found whole (a custom regular
 * expression matching more than this at once may be cut).
 */
export const STREAM_WINDOW = 128;
// Text kept before the undecided part, for the rules' look-behinds (a keyword as a whole word).
const CONTEXT = 32;

/** A piece of the stream's text, as `push` numbered it. */
export interface StreamPiece {
  readonly start: number;
  readonly end: number;
}

/**
 * A content filter over text that arrives in pieces (a streamed answer's deltas). Pieces are
 * numbered by where they lie in the whole text; `release` says up to where the text is decided —
 * at least STREAM_WINDOW characters before the end so far (everything, once `final`), never
 * inside a match — and `take(piece)` what a decided piece reads as it goes on: its text with every
 * MASK match replaced by the tag, a match split over pieces written once, by the piece it begins in.
 * A BLOCK match anywhere in the undecided text is answered as soon as it is whole (with the index
 * of the filter that blocked it, when there are several: each looks at the text as it came).
 */
export class WindowedFilter {
  private text = '';
  /** Where `text` begins in the whole stream (what lies before it has gone on). */
  private base = 0;
  private length = 0;
  /** Pieces up to here have gone on. */
  private taken = 0;
  /** The text up to here was written as a mask already (a match that began in a piece taken before). */
  private skipUntil = 0;
  private spans: readonly MaskedSpan[] = [];
  /** The filters (by index) whose rules masked a piece taken so far. */
  readonly maskedBy = new Set<number>();

  constructor(private readonly filters: readonly ContentFilter[]) {}

  push(text: string): StreamPiece {
    const start = this.length;
    this.text += text;
    this.length += text.length;
    return { start, end: this.length };
  }

  /** Up to where the pieces are decided, or what blocks the text; `final` once no more text comes. */
  release(final: boolean): { until: number } | { blocked: ContentBlocked; by: number } {
    const from = Math.max(this.base, this.taken - CONTEXT);
    const verdict = scanAll(this.filters, this.text.slice(from - this.base));
    if ('blocked' in verdict) return verdict;
    const spans = verdict.spans.map((span) => ({ ...span, start: span.start + from, end: span.end + from })).filter((span) => span.start >= this.taken);
    let until = final ? this.length : Math.max(this.taken, this.length - STREAM_WINDOW);
    for (const span of spans) if (span.start < until && until < span.end) until = span.start;
    this.spans = spans;
    return { until };
  }

  /** What a piece (decided by the last `release`) reads as it goes on; pieces are taken in order. */
  take(piece: StreamPiece): string {
    let out = '';
    let at = Math.max(piece.start, this.skipUntil);
    for (const span of this.spans) {
      if (span.start >= piece.end) break;
      if (span.start < at) continue;
      out += this.slice(at, span.start) + span.mask;
      this.maskedBy.add(span.by ?? 0);
      at = span.end;
      this.skipUntil = Math.max(this.skipUntil, span.end);
    }
    if (at < piece.end) out += this.slice(at, piece.end);
    this.taken = piece.end;
    // Keep only what the next release looks at.
    const keep = Math.max(this.base, this.taken - CONTEXT);
    if (keep - this.base > 4 * STREAM_WINDOW) {
      this.text = this.text.slice(keep - this.base);
      this.base = keep;
    }
    return out;
  }

  private slice(from: number, to: number): string {
    return this.text.slice(from - this.base, to - this.base);
  }
}
