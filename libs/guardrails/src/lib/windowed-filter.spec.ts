import { ContentFilter } from './content-filter';
import type { ContentFilterSettings } from './guardrail-config';
import { STREAM_WINDOW, type StreamPiece, WindowedFilter } from './windowed-filter';

const SETTINGS: ContentFilterSettings = {
  patterns: [
    { type: 'prebuilt', name: 'email', action: 'MASK' },
    { type: 'prebuilt', name: 'us_ssn', action: 'BLOCK' },
  ],
  blockedWords: [{ keyword: 'project falcon', action: 'BLOCK' }],
  categories: [],
  patternRedactionFormat: '[{pattern_name}_REDACTED]',
  keywordRedactionTag: '[KEYWORD_REDACTED]',
};

/** The text of `pieces` as a client gets it: each piece taken once decided, the rest at the end. */
function streamed(pieces: string[]): { out: string[]; blocked?: string } {
  const filter = new WindowedFilter([new ContentFilter(SETTINGS)]);
  const held: StreamPiece[] = [];
  const out: string[] = [];
  const release = (final: boolean) => {
    const verdict = filter.release(final);
    if ('blocked' in verdict) return verdict.blocked.rule;
    while (held.length > 0 && (held[0] as StreamPiece).end <= verdict.until) out.push(filter.take(held.shift() as StreamPiece));
    return undefined;
  };
  for (const piece of pieces) {
    held.push(filter.push(piece));
    const blocked = release(false);
    if (blocked) return { out, blocked };
  }
  const blocked = release(true);
  return blocked ? { out, blocked } : { out };
}

describe('the content filter over a stream (WindowedFilter)', () => {
  it('masks a match split over pieces once, in the piece it begins in, and leaves the pieces otherwise as they came', () => {
    const { out } = streamed(['Write to john.', 'doe@exam', 'ple.com today', ' please.']);
    expect(out.join('')).toBe('Write to [EMAIL_REDACTED] today please.');
    expect(out).toEqual(['Write to [EMAIL_REDACTED]', '', ' today', ' please.']);
  });

  it(`holds a piece until ${STREAM_WINDOW} characters have come after it, then lets it go`, () => {
    const filter = new WindowedFilter([new ContentFilter(SETTINGS)]);
    const first = filter.push('Hello ');
    expect(filter.release(false)).toEqual({ until: 0 });
    filter.push('x'.repeat(STREAM_WINDOW));
    const verdict = filter.release(false);
    expect('until' in verdict && verdict.until >= first.end).toBe(true);
    expect(filter.take(first)).toBe('Hello ');
  });

  it('blocks on a BLOCK match split over pieces, even one that came after text that went on', () => {
    const long = 'a'.repeat(3 * STREAM_WINDOW);
    expect(streamed([long, ' the code name is project ', 'falcon, do not share']).blocked).toBe('project falcon');
    expect(streamed([long, ' SSN 123-4', '5-6789']).blocked).toBe('us_ssn');
  });

  it('masks across a long stream, keeping only a window of its text', () => {
    const words = Array.from({ length: 400 }, (_, index) => (index % 50 === 7 ? 'mail a.b@c.io ' : `word${index} `));
    const { out } = streamed(words);
    const expected = words.join('').replaceAll('a.b@c.io', '[EMAIL_REDACTED]');
    expect(out.join('')).toBe(expected);
    expect(out).toHaveLength(words.length);
  });
});
