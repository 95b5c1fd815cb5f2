import { randomFillSync } from 'node:crypto';

/** The W3C trace context of one unit of work (a request, a delivery). */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero: this unit's own span. */
  readonly spanId: string;
  /** Two hex digits; `01` = sampled. */
  readonly traceFlags: string;
}

export interface ParsedTraceparent {
  readonly version: string;
  readonly traceId: string;
  /** The caller's span: the parent of ours. */
  readonly parentId: string;
  readonly traceFlags: string;
}

// https://www.w3.org/TR/trace-context/#traceparent-header-field-values
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The fields of a `traceparent` header, or undefined when it is not valid W3C trace context. */
export function parseTraceparent(header: string | string[] | undefined): ParsedTraceparent | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId, traceFlags, rest] = match;
  // Version ff is forbidden; version 00 has exactly four fields, later versions may append more.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE_ID || parentId === ZERO_SPAN_ID) return undefined;
  return { version, traceId, parentId, traceFlags };
}

export function formatTraceparent(context: Pick<TraceContext, 'traceId' | 'spanId' | 'traceFlags'>): string {
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags}`;
}

/** A new trace, sampled so that downstream services that do record traces keep theirs. */
export function newTraceContext(): TraceContext {
  return { traceId: randomId(16, ZERO_TRACE_ID), spanId: newSpanId(), traceFlags: '01' };
}

/** A new span in the trace of `parent` (whose own span becomes the parent). */
export function childTraceContext(parent: Pick<TraceContext, 'traceId' | 'traceFlags'>): TraceContext {
  return { traceId: parent.traceId, spanId: newSpanId(), traceFlags: parent.traceFlags };
}

/** The context for work started by an incoming `traceparent`: continue its trace, or start one. */
export function traceContextFromHeader(header: string | string[] | undefined): TraceContext {
  const parent = parseTraceparent(header);
  // Only the sampled bit is defined in version 00; other bits are not ours to forward.
  return parent ? childTraceContext({ traceId: parent.traceId, traceFlags: (parseInt(parent.traceFlags, 16) & 1) === 1 ? '01' : '00' }) : newTraceContext();
}

export function newSpanId(): string {
  return randomId(8, ZERO_SPAN_ID);
}

// Ids come from a pool refilled 4 KiB at a time: a call to the CSPRNG per id cost more than the rest
// of a request's tracing together.
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

function randomId(bytes: number, zero: string): string {
  let id: string;
  do {
    if (poolOffset + bytes > POOL.length) {
      randomFillSync(POOL);
      poolOffset = 0;
    }
    id = POOL.toString('hex', poolOffset, (poolOffset += bytes));
  } while (id === zero);
  return id;
}
