import { DynamicModule, Module } from '@nestjs/common';
import { AI_GATEWAY_ENTITIES, AI_GATEWAY_MIGRATIONS, GatewayModule } from '@arbor/ai-gateway';
import { AuthModule } from '@arbor/auth';
import { AiGatewayConfig } from '@arbor/config';
import { DatabaseModule, PlatformModule, ServiceDefinition } from '@arbor/platform';

@Module({})
export class AiGatewayModule {
  static forConfig(config: AiGatewayConfig): DynamicModule {
    return {
      module: AiGatewayModule,
      imports: [
        // Keys, spend and aliases live in its database: ready means that database answers.
        PlatformModule.forService(config, { readiness: 'database' }),
        DatabaseModule.forRoot({
          url: config.AIGW_DATABASE_URL,
          applicationName: 'ai-gateway',
          entities: AI_GATEWAY_ENTITIES,
          migrations: AI_GATEWAY_MIGRATIONS,
        }),
        // Person-authorised admin calls need an issuer; virtual keys work without one.
        ...(config.AIGW_OIDC_ISSUER_URL
          ? [AuthModule.forRoot({ issuer: config.AIGW_OIDC_ISSUER_URL, audience: config.AIGW_OIDC_AUDIENCE })]
          : []),
        // A bad AIGW_CONFIG file throws ConfigError here, before anything listens.
        GatewayModule.forOptions({ configFile: config.AIGW_CONFIG, masterKey: config.AIGW_MASTER_KEY }),
      ],
    };
  }
}

export const aiGatewayService: ServiceDefinition<AiGatewayConfig> = {
  schema: AiGatewayConfig,
  module: (config) => AiGatewayModule.forConfig(config),
};
