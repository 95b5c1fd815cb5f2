import { hostname } from 'node:os';
import type { DestinationStream, Level, Logger, LoggerOptions } from 'pino';
import { currentTraceContext } from '../tracing/trace-context';
import { LogFilter, LogFilterLevel, LogLineLevel, logTargetFor, parseLogFilter } from './log-filter';
import { redactSensitive } from './redaction';

export type LogFormat = 'json' | 'text';

export interface LoggingOptions {
  /** Logged as `service` on every line (`control-plane`, `ai-gateway`, …). */
  serviceName: string;
  /** `tracing`-style filter such as `warn,outbox=debug,http=info`; parsed if a string. */
  logFilter: string | LogFilter;
  /** Unset: json unless stdout is a terminal. */
  logFormat?: LogFormat;
  /** Where lines go instead of stdout; tests pass a stream to read them back. */
  destination?: DestinationStream;
}

/** `json` unless set, or stdout is a terminal (then pretty text). */
export function resolveLogFormat(format: LogFormat | undefined, stdoutIsTerminal = process.stdout.isTTY === true): LogFormat {
  return format ?? (stdoutIsTerminal ? 'text' : 'json');
}

/** The methods NativeLogger calls on its PinoLogger: one object argument and a message. */
export type LevelMethods = Record<LogLineLevel, (fields: { context?: string }, message?: unknown) => void>;

/**
 * One service's root pino logger and its filter. Per application instance, not per process,
 * so two apps in one test run keep their own destinations and levels.
 */
export class RootLogger {
  readonly filter: LogFilter;
  readonly format: LogFormat;
  readonly pino: Logger;

  constructor(options: LoggingOptions) {
    this.filter = typeof options.logFilter === 'string' ? parseLogFilter(options.logFilter) : options.logFilter;
    this.format = resolveLogFormat(options.logFormat);
    this.pino = createPino(options.serviceName, this.filter, this.format, options.destination);
  }

  /** Whether a line of `level` from `context` (a Nest logger context or module name) passes the filter. */
  enabled(context: string | undefined, level: LogLineLevel): boolean {
    return this.filter.enabled(logTargetFor(context), level);
  }

  /** Level methods that drop lines the filter rejects for their `context`, then write through pino. */
  filteredByContext(): LevelMethods {
    const write =
      (level: LogLineLevel) =>
      (fields: { context?: string }, message?: unknown): void => {
        if (this.enabled(fields.context, level)) this.pino[level](fields, message as string);
      };
    return { trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), fatal: write('fatal') };
  }
}

function createPino(serviceName: string, filter: LogFilter, format: LogFormat, destination: DestinationStream | undefined): Logger {
  // Required when the logger is built, not at import: startTelemetry's pino instrumentation wraps the factory.
  const { pino } = require('pino') as typeof import('pino');
  const redactedErr = (error: Error) => redactSensitive(pino.stdSerializers.err(error));
  const options: LoggerOptions = {
    level: pinoLevel(filter.mostVerbose()),
    base: { service: serviceName, pid: process.pid, hostname: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      // pino-pretty wants numeric levels; collectors read labels more easily.
      ...(format === 'json' ? { level: (label: string) => ({ level: label }) } : {}),
      bindings: (bindings) => redactSensitive(bindings),
      log: (fields) => redactSensitive(fields),
    },
    serializers: {
      err: redactedErr,
      error: redactedErr,
      // An object logged as the message skips formatters.log, so it is redacted here.
      msg: (message: unknown) => redactSensitive(message),
    },
    mixin: traceFields,
  };
  // JSON lines are written asynchronously: lines logged while a write is under way leave together
  // in the next one, instead of a system call per line on the request path (a request log line
  // per call made that a tenth of a gateway call's CPU). pino flushes what is left on exit.
  return pino(options, format === 'json' ? (destination ?? pino.destination({ dest: 1, sync: false })) : prettyStream(destination));
}

function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  // In-process stream, not a worker-thread transport: a crash loses no buffered lines.
  const { PinoPretty, isColorSupported } = require('pino-pretty') as typeof import('pino-pretty');
  return PinoPretty({
    destination: destination ?? 1,
    sync: true,
    colorize: destination === undefined && isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
    singleLine: true,
  });
}

// A fresh object per line: pino merges the line's own fields into what the mixin returns.
function traceFields(): Record<string, string> {
  const context = currentTraceContext();
  return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
}

function pinoLevel(level: LogFilterLevel): Level | 'silent' {
  return level === 'off' ? 'silent' : level;
}
