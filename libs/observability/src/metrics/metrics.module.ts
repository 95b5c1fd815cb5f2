import { IncomingMessage, ServerResponse } from 'node:http';
import { DynamicModule, MiddlewareConsumer, Module, NestModule, OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { allRoutes } from '../all-routes';
import { HttpMetricsMiddleware, HttpServerMetrics } from './http-metrics.middleware';
import { MetricsOptions, MetricsRegistry } from './metrics-registry';

export const METRICS_PATH = '/metrics';

/**
 * Prometheus metrics: `GET /metrics`, default process metrics and the HTTP server histogram.
 * Global, so any feature can inject MetricsRegistry.
 */
@Module({})
export class MetricsModule implements NestModule, OnModuleInit {
  static forRoot(options: MetricsOptions = {}): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      providers: [{ provide: MetricsRegistry, useFactory: () => MetricsRegistry.create(options) }, HttpServerMetrics],
      exports: [MetricsRegistry, HttpServerMetrics],
    };
  }

  constructor(
    private readonly registry: MetricsRegistry,
    private readonly adapterHost: HttpAdapterHost,
    private readonly applicationConfig: ApplicationConfig,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes(...allRoutes(this.applicationConfig));
  }

  /**
   * Served on the HTTP adapter rather than by a controller: outside any global prefix and global
   * guard, where scrapers expect it. Routes added here still precede Nest's 404 handler.
   */
  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    adapter.get(METRICS_PATH, async (_request: IncomingMessage, response: ServerResponse) => {
      try {
        const body = await this.registry.metrics();
        adapter.setHeader(response, 'Content-Type', this.registry.contentType);
        adapter.reply(response, body, 200);
      } catch (error) {
        adapter.reply(response, `metrics collection failed: ${error instanceof Error ? error.message : String(error)}`, 500);
      }
    });
  }
}
