// The module an app imports, and the helper its main.ts calls.
export { ObservabilityModule } from './observability.module';
export type { ObservabilityOptions } from './observability.module';
export { ArborLogger, writeLoggedLines, useArborLogger } from './logging/arbor-logger';
export { resolveLogFormat } from './logging/root-logger';
export type { LogFormat, LoggingOptions, RequestLogLevel } from './logging/root-logger';

// Log filters in Rust `tracing` syntax.
export { InvalidLogFilterError, LOG_FILTER_LEVELS, LogFilter, logTargetFor, parseLogFilter } from './logging/log-filter';
export type { LogDirective, LogFilterLevel, LogLineLevel } from './logging/log-filter';
export { REDACTED, isSensitiveKey, redactSensitive } from './logging/redaction';
export { errorFields } from './logging/error-fields';
export type { ErrorFields } from './logging/error-fields';

// W3C trace context for requests, outgoing calls and background work.
export { currentTraceContext, currentTraceparent, runInTrace } from './tracing/trace-context';
export { formatTraceparent, parseTraceparent } from './tracing/traceparent';
export type { ParsedTraceparent, TraceContext } from './tracing/traceparent';

// Requests served below Nest (hot routes): traced, logged and measured like the rest.
export { RequestObserver } from './request-observer';

// Prometheus.
export { METRICS_PATH, MetricsModule } from './metrics/metrics.module';
export { MetricsRegistry } from './metrics/metrics-registry';
export type { MetricsOptions } from './metrics/metrics-registry';
export { CounterSeries, HistogramSeries, SeriesCounter, SeriesHistogram } from './metrics/series-metrics';
export type { SeriesHistogramConfiguration, SeriesLabels, SeriesMetricConfiguration } from './metrics/series-metrics';

// OpenTelemetry, only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
export { startTelemetry } from './telemetry/start-telemetry';
export type { Telemetry, TelemetryOptions } from './telemetry/start-telemetry';
