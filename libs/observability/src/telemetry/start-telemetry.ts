import type { IncomingMessage } from 'node:http';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { setOtelSdkStarted } from '../tracing/trace-context';

export interface TelemetryOptions {
  /** The resource's `service.name`: `control-plane`, `sync-dispatcher`, `ai-gateway`, `mcp-gateway`. */
  serviceName: string;
}

export interface Telemetry {
  /** Exports what is buffered and stops the SDK; call after the app has closed. */
  shutdown(): Promise<void>;
}

const NO_TELEMETRY: Telemetry = { shutdown: async () => undefined };
/** Probes and scrapes would be most of the spans and tell nothing. */
const UNTRACED_PATHS = new Set(['/metrics', '/healthz', '/readyz', '/livez']);

let running: Telemetry | undefined;

/**
 * Starts OpenTelemetry (traces, metrics and logs over OTLP/HTTP, with http, express, pg and pino
 * instrumentation) when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; otherwise does nothing and loads
 * none of the SDK. Call before NestFactory.create (Nest loads express, and TypeORM loads pg, only
 * then). The exporters read the standard `OTEL_*` variables (endpoint, headers, timeouts) themselves.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (!process.env['OTEL_EXPORTER_OTLP_ENDPOINT']) return NO_TELEMETRY;
  if (running) return running;

  // Required here so that a service without the variable never loads the SDK.
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
  const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http') as typeof import('@opentelemetry/exporter-logs-otlp-http');
  const { PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  const { BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs') as typeof import('@opentelemetry/sdk-logs');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');

  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
    logRecordProcessors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.has(pathOf(request.url)) }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      // Our logger puts trace_id/span_id on lines itself; the instrumentation forwards lines to OTLP.
      new PinoInstrumentation(),
    ],
  });
  // Nest 12 is ESM and imports express with `import`, which require hooks never see; this loader
  // hook (import-in-the-middle, resolved from the express instrumentation's own dependency) does.
  // createRequire, because webpack turns a plain require.resolve into a module id.
  const expressInstrumentation = pathToFileURL(createRequire(__filename).resolve('@opentelemetry/instrumentation-express'));
  register('@opentelemetry/instrumentation/hook.mjs', expressInstrumentation, { data: { include: ['express'] } });
  sdk.start();
  // Instrumentation wraps a module on its next require; builtins the app only imports as ESM would be missed.
  require('node:http');
  require('node:https');
  setOtelSdkStarted(true);

  const telemetry: Telemetry = {
    shutdown: async () => {
      if (running !== telemetry) return;
      running = undefined;
      setOtelSdkStarted(false);
      await sdk.shutdown();
    },
  };
  running = telemetry;
  return telemetry;
}

function pathOf(url = ''): string {
  const queryStart = url.indexOf('?');
  return queryStart < 0 ? url : url.slice(0, queryStart);
}
