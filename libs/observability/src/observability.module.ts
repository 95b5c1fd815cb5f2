import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { allRoutes } from './all-routes';
import { ArborLogger } from './logging/arbor-logger';
import { parseLogFilter } from './logging/log-filter';
import { RequestLog, RequestLoggingMiddleware } from './logging/request-logging.middleware';
import { LoggingOptions, RootLogger } from './logging/root-logger';
import { MetricsModule } from './metrics/metrics.module';
import { MetricsOptions } from './metrics/metrics-registry';
import { RequestObserver } from './request-observer';
import { TraceContextMiddleware } from './tracing/trace-context.middleware';

export interface ObservabilityOptions extends LoggingOptions {
  /** Options of the Prometheus metrics (the `service` label defaults to serviceName). */
  metrics?: Omit<MetricsOptions, 'serviceName'>;
}

/**
 * Logging, W3C trace context and Prometheus metrics for one service. Import once in the root
 * module; then `useArborLogger(app)` in main.ts. OpenTelemetry is separate: startTelemetry().
 */
@Module({})
export class ObservabilityModule implements NestModule {
  static forRoot(options: ObservabilityOptions): DynamicModule {
    // Parsed now so that a bad filter fails where the module is declared.
    const logFilter = typeof options.logFilter === 'string' ? parseLogFilter(options.logFilter) : options.logFilter;
    return {
      module: ObservabilityModule,
      global: true,
      imports: [MetricsModule.forRoot({ ...options.metrics, serviceName: options.serviceName })],
      providers: [
        // A factory, so that pino is loaded after startTelemetry has instrumented it.
        { provide: RootLogger, useFactory: () => new RootLogger({ ...options, logFilter }) },
        { provide: ArborLogger, useFactory: (root: RootLogger) => new ArborLogger(root), inject: [RootLogger] },
        RequestLog,
        RequestObserver,
      ],
      exports: [ArborLogger, RequestObserver],
    };
  }

  constructor(private readonly applicationConfig: ApplicationConfig) {}

  configure(consumer: MiddlewareConsumer): void {
    // Trace context first: the request log and everything after it run inside it.
    consumer.apply(TraceContextMiddleware, RequestLoggingMiddleware).forRoutes(...allRoutes(this.applicationConfig));
  }
}
