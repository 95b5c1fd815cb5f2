import { hostname } from 'node:os';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import type { DestinationStream, Level, Logger, LoggerOptions } from 'pino';
import { currentTraceContext, isOtelSdkStarted } from '../tracing/trace-context';
import { LogFilter, LogFilterLevel, LogLineLevel, logTargetFor, parseLogFilter } from './log-filter';
import { LineBatch } from './line-batch';
import { ALREADY_REDACTED, redactSensitive } from './redaction';

export type LogFormat = 'json' | 'text';
export type RequestLogLevel = 'info' | 'debug';

const LOG_BATCH_CHARS = 16 * 1024;
const LOG_FLUSH_MS = 100;

export interface LoggingOptions {
  /** Logged as `service` on every line (`control-plane`, `ai-gateway`, …). */
  serviceName: string;
  /** `tracing`-style filter such as `warn,outbox=debug,http=info`; parsed if a string. */
  logFilter: string | LogFilter;
  /** Unset: json unless stdout is a terminal. */
  logFormat?: LogFormat;
  /** The level of a request's line in the access log (5xx lines are `error` whatever it is); `info` unless set. */
  requestLevel?: RequestLogLevel;
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
export class RootLogger implements BeforeApplicationShutdown {
  readonly filter: LogFilter;
  readonly format: LogFormat;
  readonly requestLevel: RequestLogLevel;
  readonly pino: Logger;
  /** Where JSON lines go; undefined for text (pretty) output. */
  private readonly jsonDestination: DestinationStream | undefined;
  /** `"service":…,"pid":…,"hostname":…`, as pino writes the bindings on every line. */
  private readonly bindingsJson: string;
  /** The last millisecond a hot line was written in, and its ISO text. */
  private isoAt = 0;
  private iso = '';

  constructor(options: LoggingOptions) {
    this.filter = typeof options.logFilter === 'string' ? parseLogFilter(options.logFilter) : options.logFilter;
    this.format = resolveLogFormat(options.logFormat);
    this.requestLevel = options.requestLevel ?? 'info';
    const bindings = { service: options.serviceName, pid: process.pid, hostname: hostname() };
    this.bindingsJson = JSON.stringify(redactSensitive(bindings)).slice(1, -1);
    if (this.format === 'json') {
      // Built here rather than by pino, so that hot lines can be written to it directly. Gathered
      // in batches of LOG_BATCH_CHARS (LineBatch) and written asynchronously, at least every
      // LOG_FLUSH_MS: a request line per call was otherwise a write (and a thread-pool round trip)
      // per call, a tenth of a gateway call's CPU. What is buffered is flushed on exit; a process
      // killed outright (SIGKILL, the OOM killer) loses at most the last LOG_FLUSH_MS of lines.
      const { pino } = require('pino') as typeof import('pino');
      this.jsonDestination = options.destination ?? new LineBatch(pino.destination({ dest: 1, sync: false }), LOG_BATCH_CHARS, LOG_FLUSH_MS);
    }
    this.pino = createPino(bindings, this.filter, this.format, this.jsonDestination ?? options.destination);
  }

  /** The lines of a closing application leave with it, not with the next batch of another; later ones go straight on. */
  beforeApplicationShutdown(): void {
    if (this.jsonDestination instanceof LineBatch) this.jsonDestination.close();
    else this.flushSync();
  }

  /**
   * Writes what is buffered now, synchronously (lines otherwise leave in batches, at least every
   * LOG_FLUSH_MS). What pino does at exit; for tests that read a service's standard output.
   */
  flushSync(): void {
    const destination = this.jsonDestination as (DestinationStream & { flushSync?: () => void }) | undefined;
    destination?.flushSync?.();
  }

  /**
   * Writes a line whose fields the caller serialised itself (`"a":1,"b":{…}`, already redacted),
   * in pino's layout (level, time, bindings, fields, msg), without pino: for lines written on
   * every request, where pino's generic serialisation, mixin and formatters are most of a line's
   * cost. Returns false (nothing written) when lines are not JSON or OpenTelemetry forwards
   * pino's lines, so that the caller logs through pino instead.
   */
  writeJsonLine(level: LogLineLevel, fieldsJson: string, message: string): boolean {
    const destination = this.jsonDestination;
    if (destination === undefined || isOtelSdkStarted()) return false;
    destination.write(`{"level":"${level}","time":"${this.isoNow()}",${this.bindingsJson},${fieldsJson},"msg":${JSON.stringify(message)}}\n`);
    return true;
  }

  /** The time as pino's isoTime writes it, formatted once per millisecond: a busy service writes several lines in each. */
  private isoNow(): string {
    const now = Date.now();
    if (now !== this.isoAt) {
      this.isoAt = now;
      this.iso = new Date(now).toISOString();
    }
    return this.iso;
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

function createPino(bindings: { service: string; pid: number; hostname: string }, filter: LogFilter, format: LogFormat, destination: DestinationStream | undefined): Logger {
  // Required when the logger is built, not at import: startTelemetry's pino instrumentation wraps the factory.
  const { pino } = require('pino') as typeof import('pino');
  const redactedErr = (error: Error) => redactSensitive(pino.stdSerializers.err(error));
  const options: LoggerOptions = {
    level: pinoLevel(filter.mostVerbose()),
    base: bindings,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      // pino-pretty wants numeric levels; collectors read labels more easily.
      ...(format === 'json' ? { level: (label: string) => ({ level: label }) } : {}),
      bindings: (bindings) => redactSensitive(bindings),
      log: (fields) => ((fields as Record<symbol, unknown>)[ALREADY_REDACTED] === true ? fields : redactSensitive(fields)),
    },
    serializers: {
      err: redactedErr,
      error: redactedErr,
      // An object logged as the message skips formatters.log, so it is redacted here.
      msg: (message: unknown) => redactSensitive(message),
    },
    mixin: traceFields,
  };
  // JSON lines go to the destination RootLogger built: written asynchronously (see there).
  return pino(options, format === 'json' ? destination : prettyStream(destination));
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
