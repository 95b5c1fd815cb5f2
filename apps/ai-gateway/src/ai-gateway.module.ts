import { DynamicModule, Module } from '@nestjs/common';
import { AI_GATEWAY_ENTITIES, AI_GATEWAY_MIGRATIONS, AiGatewayWebUiModule, GatewayDashboard, GatewayModule, renderClientEnvelopeErrors } from '@arbor/ai-gateway';
import { AiGatewayConfig, durationMs } from '@arbor/config';
import { DashboardSummaryModule } from '@arbor/contract';
import { DatabaseModule, OpenApiModule, PlatformModule, ServiceDefinition } from '@arbor/platform';

@Module({})
export class AiGatewayModule {
  static forConfig(config: AiGatewayConfig, options: { webRoot?: string } = {}): DynamicModule {
    // Persons manage keys only with the whole control-plane setting (the config check asks for all of it).
    const controlPlane =
      config.AIGW_OIDC_ISSUER_URL && config.AIGW_CONTROL_PLANE_URL && config.AIGW_M2M_CLIENT_ID && config.AIGW_M2M_CLIENT_SECRET
        ? {
            issuer: config.AIGW_OIDC_ISSUER_URL,
            audience: config.AIGW_OIDC_AUDIENCE,
            baseUrl: config.AIGW_CONTROL_PLANE_URL,
            clientId: config.AIGW_M2M_CLIENT_ID,
            clientSecret: config.AIGW_M2M_CLIENT_SECRET,
          }
        : undefined;
    const gateway = GatewayModule.forOptions({
      configFile: config.AIGW_CONFIG,
      masterKey: config.AIGW_MASTER_KEY,
      priceMapFile: config.AIGW_PRICE_MAP,
      redisUrl: config.AIGW_REDIS_URL,
      budgetsWithoutRedis: config.AIGW_BUDGETS_WITHOUT_REDIS,
      apiBaseOverrides: config.AIGW_API_BASE_OVERRIDES,
      responsesRetentionMs: durationMs(config.AIGW_RESPONSES_RETENTION),
      maxUploadBytes: config.maxUploadBytes,
      ...(controlPlane ? { controlPlane } : {}),
    });
    return {
      module: AiGatewayModule,
      imports: [
        // Keys, spend and aliases live in its database: ready means that database answers.
        PlatformModule.forService(config, { readiness: 'database' }, { renderError: renderClientEnvelopeErrors }),
        DatabaseModule.forRoot({
          url: config.AIGW_DATABASE_URL,
          variable: 'AIGW_DATABASE_URL',
          applicationName: 'ai-gateway',
          entities: AI_GATEWAY_ENTITIES,
          migrations: AI_GATEWAY_MIGRATIONS,
        }),
        // A bad AIGW_CONFIG file throws ConfigError here, before anything listens.
        gateway,
        // The suite dashboard's card: only with the control plane, which says what a person may see.
        ...(controlPlane
          ? [
              DashboardSummaryModule.forRootAsync({
                product: 'ai-gateway',
                title: 'AI gateway',
                imports: [gateway],
                inject: [GatewayDashboard],
                useFactory: (dashboard: GatewayDashboard) => (viewer) => dashboard.summary(viewer),
              }),
            ]
          : []),
        // The web UI signs people in through the control plane, with the same setting.
        AiGatewayWebUiModule.forRoot({
          ...options,
          ...(controlPlane ? { signIn: { issuer: controlPlane.issuer, clientId: config.AIGW_OIDC_UI_CLIENT_ID, controlPlaneUrl: controlPlane.baseUrl } } : {}),
        }),
        OpenApiModule.forService({
          title: 'Arbor AI gateway — administration',
          description:
            'Virtual keys and spend. The model calls (`/v1/chat/completions`, `/v1/completions`, `/v1/embeddings`, `/v1/models`) follow ' +
            "OpenAI's API reference and answer errors in OpenAI's envelope; `/v1/messages` and `/v1/messages/count_tokens` follow Anthropic's, " +
            'with errors in an envelope both families\' SDKs read; this API answers `{"error": {"code", "message", "details?"}}`. ' +
            "Authenticate with the master key (AIGW_MASTER_KEY) or a person's OIDC token (audience AIGW_OIDC_AUDIENCE) as a bearer token.",
        }),
      ],
    };
  }
}

export const aiGatewayService: ServiceDefinition<AiGatewayConfig> = {
  schema: AiGatewayConfig,
  module: (config) => AiGatewayModule.forConfig(config),
  // Long contexts and base64 images: chat bodies run to many megabytes (OpenAI accepts 20 MB per image).
  bodyLimit: '100mb',
  // The suite dashboard (the control plane's UI) reads the summary from the browser.
  corsOrigins: (config) => config.corsOrigins,
};

/** The gateway serving the built web UI from `webRoot` at `/` (the app's main.ts). */
export function aiGatewayServiceWithWebUi(webRoot: string): ServiceDefinition<AiGatewayConfig> {
  return { ...aiGatewayService, module: (config) => AiGatewayModule.forConfig(config, { webRoot }) };
}
