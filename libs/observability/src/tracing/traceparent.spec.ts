import { formatTraceparent, newTraceContext, parseTraceparent, traceContextFromHeader } from './traceparent';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads a version 00 header', () => {
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-01`)).toEqual({ version: '00', traceId: TRACE_ID, parentId: PARENT_ID, traceFlags: '01' });
    expect(parseTraceparent(`  00-${TRACE_ID}-${PARENT_ID}-00 `)?.traceFlags).toBe('00');
  });

  it('accepts extra fields only from a later version', () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${PARENT_ID}-01-future`)?.traceId).toBe(TRACE_ID);
    expect(parseTraceparent(`00-${TRACE_ID}-${PARENT_ID}-01-future`)).toBeUndefined();
  });

  it.each([
    ['missing', undefined],
    ['repeated header', [`00-${TRACE_ID}-${PARENT_ID}-01`, `00-${TRACE_ID}-${PARENT_ID}-01`]],
    ['garbage', 'hello'],
    ['version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ['zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
    ['zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['uppercase', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
    ['short trace id', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ['long parent id', `00-${TRACE_ID}-${PARENT_ID}0-01`],
    ['non-hex flags', `00-${TRACE_ID}-${PARENT_ID}-0g`],
  ])('rejects %s', (_case, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('trace contexts', () => {
  it('continues an incoming trace with a span of its own', () => {
    const context = traceContextFromHeader(`00-${TRACE_ID}-${PARENT_ID}-01`);
    expect(context.traceId).toBe(TRACE_ID);
    expect(context.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(context.spanId).not.toBe(PARENT_ID);
    expect(context.traceFlags).toBe('01');
  });

  it('keeps only the sampled bit of the incoming flags', () => {
    expect(traceContextFromHeader(`00-${TRACE_ID}-${PARENT_ID}-00`).traceFlags).toBe('00');
    expect(traceContextFromHeader(`00-${TRACE_ID}-${PARENT_ID}-03`).traceFlags).toBe('01');
  });

  it('starts new, distinct, valid traces', () => {
    const a = newTraceContext();
    const b = traceContextFromHeader('garbage');
    for (const context of [a, b]) expect(parseTraceparent(formatTraceparent(context))).toBeDefined();
    expect(a.traceId).not.toBe(b.traceId);
  });
});
