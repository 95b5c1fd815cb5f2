import { AsyncLocalStorage } from 'node:async_hooks';
import { context as otelContext, isSpanContextValid, Span, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { formatTraceparent, newSpanId, newTraceContext, parseTraceparent, TraceContext, traceContextFromHeader } from './traceparent';

const storage = new AsyncLocalStorage<TraceContext>();
// Set by startTelemetry: the API alone cannot tell a registered SDK from its no-op default.
let otelSdkStarted = false;

/** @internal For startTelemetry only. */
export function setOtelSdkStarted(started: boolean): void {
  otelSdkStarted = started;
}

/** Whether startTelemetry is running the OpenTelemetry SDK (which then also forwards pino's lines). */
export function isOtelSdkStarted(): boolean {
  return otelSdkStarted;
}

/**
 * The trace context of the request or background job running now, if any. With OpenTelemetry on,
 * that of the innermost active span, as OpenTelemetry's own log correlation would report.
 */
export function currentTraceContext(): TraceContext | undefined {
  return (otelSdkStarted ? activeOtelContext() : undefined) ?? storage.getStore();
}

/** Runs `fn` (and everything it awaits) with `context` as the current trace context. */
export function runInTraceContext<T>(context: TraceContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * The `traceparent` header for an outgoing call: the current trace with the caller's span as
 * parent. With OpenTelemetry that span is the active one (so the callee's span hangs off a span
 * we export); without it, a fresh child span id. Outside any trace, a new trace.
 */
export function currentTraceparent(): string {
  const active = activeOtelContext();
  if (active) return formatTraceparent(active);
  const current = storage.getStore();
  return formatTraceparent(current ? { ...current, spanId: newSpanId() } : newTraceContext());
}

/**
 * The trace context of an incoming HTTP request: OpenTelemetry's server span when the SDK is
 * on (it has already read the `traceparent` header), else one continued from the header.
 */
export function traceContextForRequest(traceparentHeader: string | string[] | undefined): TraceContext {
  return otelServerSpanContext() ?? activeOtelContext() ?? traceContextFromHeader(traceparentHeader);
}

/**
 * Runs background work (an outbox delivery, a scheduled job) as its own span, continuing
 * `traceparent` when given (for instance the one stored with the outbox row), else a new trace.
 * With OpenTelemetry on, the span is recorded under `name` and ended when `fn` settles.
 */
export function runInTrace<T>(name: string, fn: () => T, options: { traceparent?: string } = {}): T {
  if (!otelSdkStarted) return runInTraceContext(traceContextFromHeader(options.traceparent), fn);
  const parent = parseTraceparent(options.traceparent);
  const parentContext = parent
    ? trace.setSpanContext(otelContext.active(), {
        traceId: parent.traceId,
        spanId: parent.parentId,
        traceFlags: parseInt(parent.traceFlags, 16) & TraceFlags.SAMPLED,
        isRemote: true,
      })
    : trace.deleteSpan(otelContext.active());
  const span = trace.getTracer('@arbor/observability').startSpan(name, { kind: SpanKind.INTERNAL }, parentContext);
  return otelContext.with(trace.setSpan(parentContext, span), () => runInTraceContext(spanTraceContext(span), () => endWhenSettled(span, fn)));
}

function endWhenSettled<T>(span: Span, fn: () => T): T {
  const fail = (error: unknown): never => {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    throw error;
  };
  let result: T;
  try {
    result = fn();
  } catch (error) {
    return fail(error);
  }
  if (result instanceof Promise) {
    return result.then((value) => {
      span.end();
      return value;
    }, fail) as T;
  }
  span.end();
  return result;
}

// @opentelemetry/core's RPC_METADATA_KEY (createContextKey is Symbol.for): the http instrumentation
// stores the request's server span there, which outlives the middleware spans active around us.
const RPC_METADATA_KEY = Symbol.for('OpenTelemetry SDK Context Key RPC_METADATA');

function otelServerSpanContext(): TraceContext | undefined {
  const span = (otelContext.active().getValue(RPC_METADATA_KEY) as { span?: Span } | undefined)?.span;
  return span && isSpanContextValid(span.spanContext()) ? spanTraceContext(span) : undefined;
}

function activeOtelContext(): TraceContext | undefined {
  const span = trace.getSpan(otelContext.active());
  return span && isSpanContextValid(span.spanContext()) ? spanTraceContext(span) : undefined;
}

function spanTraceContext(span: Span): TraceContext {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { traceId, spanId, traceFlags: (traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00' };
}
