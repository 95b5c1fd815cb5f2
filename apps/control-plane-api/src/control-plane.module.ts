import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@arbor/auth';
import { ControlPlaneConfig } from '@arbor/config';
import { DatabaseModule, PlatformModule, ServiceDefinition } from '@arbor/platform';

@Module({})
export class ControlPlaneModule {
  static forConfig(config: ControlPlaneConfig): DynamicModule {
    return {
      module: ControlPlaneModule,
      imports: [
        // By its contract the control plane's /readyz does not check the database.
        PlatformModule.forService(config, { readiness: 'static' }),
        DatabaseModule.forRoot({ url: config.CP_DATABASE_URL, applicationName: 'control-plane' }),
        AuthModule.forRoot({ issuer: config.CP_OIDC_ISSUER_URL, audience: config.CP_OIDC_AUDIENCE }),
      ],
    };
  }
}

export const controlPlaneService: ServiceDefinition<ControlPlaneConfig> = {
  schema: ControlPlaneConfig,
  module: (config) => ControlPlaneModule.forConfig(config),
  corsOrigins: (config) => config.corsOrigins,
};
