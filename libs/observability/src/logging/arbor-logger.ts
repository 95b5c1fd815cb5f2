import { INestApplicationContext } from '@nestjs/common';
import { NativeLogger, PinoLogger } from 'nestjs-pino';
import { RootLogger } from './root-logger';

/**
 * The application's Nest logger: `new Logger('outbox')` in feature code and Nest's own messages come
 * here, are filtered by their context's level and written as pino lines with the trace id.
 * Arguments are read by nestjs-pino's NativeLogger, exactly as Nest's ConsoleLogger reads them.
 */
// Provided by a factory in ObservabilityModule: Nest would otherwise inherit NativeLogger's injection metadata.
export class ArborLogger extends NativeLogger {
  constructor(root: RootLogger) {
    // NativeLogger only calls the level methods; a real PinoLogger would write through nestjs-pino's process-wide root.
    super(root.filteredByContext() as unknown as PinoLogger, {});
  }
}

/**
 * Makes ArborLogger the application's logger. Call right after NestFactory.create (created with
 * `bufferLogs: true` so that bootstrap messages wait for it).
 */
export function useArborLogger(app: INestApplicationContext): void {
  app.useLogger(app.get(ArborLogger));
  app.flushLogs();
}

/**
 * Writes out every line the application logged so far (lines leave in batches, at least every
 * 100 ms): for tests that read a service's standard output.
 */
export function writeLoggedLines(app: INestApplicationContext): void {
  app.get(RootLogger).flushSync();
}
