import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ServiceConfig } from '@arbor/config';
import { LogFormat, ObservabilityModule, RequestLogLevel } from '@arbor/observability';
import { ERROR_RENDERER, ErrorEnvelopeFilter, ErrorRenderer } from '../errors/error-envelope.filter';
import { edgeValidationPipe } from '../errors/validation';
import { InputTextGuard } from '../input/input-text.guard';
import { HealthModule, HealthOptions } from '../health/health.module';
import { DirectRoutes } from './direct-routes';
import { UpgradeRoutes } from './upgrade-routes';

/**
 * What every Arbor service has: its validated config as an injectable, logging, metrics,
 * /healthz and /readyz, one error envelope, validation at the edge, direct routes for hot paths, WebSocket upgrade routes.
 */
@Global()
@Module({})
export class PlatformModule {
  /** `renderError` lets a service answer errors of some routes in another envelope (the AI gateway's OpenAI-format). */
  static forService(config: ServiceConfig, health: HealthOptions, options: { renderError?: ErrorRenderer } = {}): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ObservabilityModule.forRoot({
          serviceName: config.serviceName,
          logFilter: config.logFilter,
          logFormat: config.LOG_FORMAT as LogFormat | undefined,
          requestLevel: config.LOG_REQUEST_LEVEL as RequestLogLevel | undefined,
        }),
        HealthModule.forRoot(health),
      ],
      providers: [
        { provide: config.constructor, useValue: config },
        ...(options.renderError ? [{ provide: ERROR_RENDERER, useValue: options.renderError }] : []),
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        // Global guards run before a route's own: forbidden text in a path parameter is refused before any guard or DTO reads it.
        { provide: APP_GUARD, useClass: InputTextGuard },
        { provide: APP_PIPE, useFactory: edgeValidationPipe },
        DirectRoutes,
        UpgradeRoutes,
      ],
      exports: [config.constructor, DirectRoutes, UpgradeRoutes],
    };
  }
}
