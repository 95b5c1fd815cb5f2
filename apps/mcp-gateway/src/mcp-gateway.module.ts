import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@arbor/auth';
import { McpGatewayConfig } from '@arbor/config';
import { DatabaseModule, PlatformModule, ServiceDefinition } from '@arbor/platform';

@Module({})
export class McpGatewayModule {
  static forConfig(config: McpGatewayConfig): DynamicModule {
    return {
      module: McpGatewayModule,
      imports: [
        // Upstream servers and virtual servers live in its database: ready means that database answers.
        PlatformModule.forService(config, { readiness: 'database' }),
        DatabaseModule.forRoot({ url: config.MCPGW_DATABASE_URL, applicationName: 'mcp-gateway' }),
        ...(config.MCPGW_OIDC_ISSUER_URL
          ? [AuthModule.forRoot({ issuer: config.MCPGW_OIDC_ISSUER_URL, audience: config.MCPGW_OIDC_AUDIENCE })]
          : []),
      ],
    };
  }
}

export const mcpGatewayService: ServiceDefinition<McpGatewayConfig> = {
  schema: McpGatewayConfig,
  module: (config) => McpGatewayModule.forConfig(config),
};
