import { DynamicModule, Module, Provider } from '@nestjs/common';
import { TerminusModule, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { HealthController, READINESS_CHECKS } from './health.controller';

export interface HealthOptions {
  /** What /readyz checks: nothing (a static answer) or that the service's database answers. */
  readiness: 'static' | 'database';
}

@Module({})
export class HealthModule {
  static forRoot(options: HealthOptions): DynamicModule {
    const checks: Provider =
      options.readiness === 'database'
        ? {
            provide: READINESS_CHECKS,
            inject: [TypeOrmHealthIndicator],
            useFactory: (database: TypeOrmHealthIndicator) => [() => database.pingCheck('database', { timeout: 2000 })],
          }
        : { provide: READINESS_CHECKS, useValue: [] };
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [checks],
    };
  }
}
