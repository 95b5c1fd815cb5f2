import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { ServiceConfig } from '@arbor/config';
import { LogFormat, ObservabilityModule } from '@arbor/observability';
import { ErrorEnvelopeFilter } from '../errors/error-envelope.filter';
import { edgeValidationPipe } from '../errors/validation';
import { HealthModule, HealthOptions } from '../health/health.module';

/**
 * What every Arbor service has: its validated config as an injectable, logging, metrics,
 * /healthz and /readyz, one error envelope, validation at the edge.
 */
@Global()
@Module({})
export class PlatformModule {
  static forService(config: ServiceConfig, health: HealthOptions): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ObservabilityModule.forRoot({
          serviceName: config.serviceName,
          logFilter: config.logFilter,
          logFormat: config.LOG_FORMAT as LogFormat | undefined,
        }),
        HealthModule.forRoot(health),
      ],
      providers: [
        { provide: config.constructor, useValue: config },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: APP_PIPE, useFactory: edgeValidationPipe },
      ],
      exports: [config.constructor],
    };
  }
}
