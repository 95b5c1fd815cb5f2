import { GuardrailsModule } from './guardrails/guardrails.module';
import { DynamicModule, Global, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { EMPTY_GATEWAY_CONFIG, GatewayConfig, loadGatewayConfigFile } from './config/gateway-config';
import { KnownModels } from './config/known-models';
import { ConfigError } from '@arbor/config';
import { providerAdapterFor } from '@arbor/provider-adapters';
import { ControlPlaneModule, ControlPlaneSyncModule } from '@arbor/contract';
import { masterKeyCredential } from './admin/admin-access';
import { CallRouter } from './call-router';
import { CallsModule } from './calls/calls.module';
import { CallContentModule } from './call-content/call-content.module';
import { CALL_EXTENSIONS, CallRoutes } from './calls/call-routes';
import { ConfiguredPassThroughModule } from './configured-pass-through/configured-pass-through.module';
import { GatewayDashboard } from './dashboard/gateway-dashboard';
import { DeploymentCooldowns } from './deployment-cooldowns';
import { DeploymentRouter } from './deployment-router';
import { DeploymentSharedState } from './deployment-shared-state';
import { TokenCountRoutes } from './endpoints/token-count.routes';
import { GatewayClock } from './gateway-clock';
import { GatewayAuthentication, GatewayKeyGuard, MasterKeyCheck } from './gateway-key.guard';
import { DEFAULT_RESPONSES_RETENTION_MS, GATEWAY_SETTINGS, GatewaySettings } from './gateway-settings';
import { KeyVerifier } from './keys/key-verifier';
import { KeysModule } from './keys/keys.module';
import { GATEWAY_REDIS_URL, GatewayRedis, withGatewayRedis } from './limits/gateway-redis';
import { LimitsModule } from './limits/limits.module';
import { LiteLlmCustomersModule } from './litellm-customers/litellm-customers.module';
import { LiteLlmKeysModule } from './litellm-keys/litellm-keys.module';
import { LiteLlmTagsModule } from './litellm-tags/litellm-tags.module';
import { LiteLlmTeamsModule } from './litellm-teams/litellm-teams.module';
import { LiteLlmUsersModule } from './litellm-users/litellm-users.module';
import { ModelsController } from './models.controller';
import { ModelPrices, readPriceMapFile } from './pricing/model-prices';
import { AliasesModule } from './aliases/aliases.module';
import { AiGatewayProjectSync } from './projects/project-sync';
import { ProjectsModule } from './projects/projects.module';
import { RealtimeModule } from './realtime/realtime.module';
import { ResourcesModule } from './resources/resources.module';
import { ResponseCacheModule } from './response-cache/response-cache.module';
import { SpendModule } from './spend/spend.module';
import { ResponsesMemory } from './stored-responses/responses-memory';
import { StoredResponsesModule } from './stored-responses/stored-responses.module';
import { UnknownPaths } from './unknown-paths';
import { VendorPassThroughModule } from './vendor-pass-through/vendor-pass-through.module';

export interface GatewayOptions {
  /** AIGW_CONFIG: the LiteLLM-shaped YAML file; none means no aliases. */
  configFile?: string;
  /** AIGW_MASTER_KEY; wins over general_settings.master_key. */
  masterKey?: string;
  /** AIGW_PRICE_MAP: a LiteLLM-format price file overriding the built-in prices. */
  priceMapFile?: string;
  /** AIGW_API_BASE_OVERRIDES: `<provider>=<url>,…`, every deployment of the provider sent there (tests, dry runs). */
  apiBaseOverrides?: string;
  /** AIGW_REDIS_URL: key limits shared by every replica; none keeps them in process. */
  redisUrl?: string;
  /** AIGW_BUDGETS_WITHOUT_REDIS: budget levels refuse their calls (closed, the default) or count per replica (open) while Redis is unreachable. */
  budgetsWithoutRedis?: 'closed' | 'open';
  /** AIGW_RESPONSES_RETENTION, in milliseconds: how long stored responses are kept (30 days by default). */
  responsesRetentionMs?: number;
  /** AIGW_MAX_UPLOAD_SIZE, in bytes: the largest multipart upload (1 GiB by default). */
  maxUploadBytes?: number;
  /**
   * The control plane, for persons managing keys with ai-gateway.operator (AIGW_OIDC_ISSUER_URL,
   * AIGW_OIDC_AUDIENCE, AIGW_CONTROL_PLANE_URL, AIGW_M2M_CLIENT_ID/SECRET); without it only the
   * master key manages keys.
   */
  controlPlane?: { issuer: string; audience: string; baseUrl: string; clientId: string; clientSecret: string };
}

/**
 * The model call routes of every endpoint family and the admin API of virtual keys (the service's DatabaseModule must carry
 * AI_GATEWAY_ENTITIES and AI_GATEWAY_MIGRATIONS). Reads and checks the YAML now, so a bad file
 * stops the start (ConfigError).
 */
@Module({})
export class GatewayModule {
  static forOptions(options: GatewayOptions, env: NodeJS.ProcessEnv = process.env): DynamicModule {
    // The price map first: LiteLLM resolves a model named without provider by it.
    const priceMap = options.priceMapFile ? readPriceMapFile(options.priceMapFile) : undefined;
    const knownModels = new KnownModels(priceMap?.providers);
    const loaded = options.configFile ? loadGatewayConfigFile(options.configFile, env, knownModels) : EMPTY_GATEWAY_CONFIG;
    const overridden = options.apiBaseOverrides ? withApiBaseOverrides(loaded, options.apiBaseOverrides) : loaded;
    const { redisUrl, config } = withGatewayRedis(overridden, options.redisUrl);
    const masterKey = options.masterKey ?? config.masterKey;
    const settings: GatewaySettings = {
      ...config,
      ...(masterKey !== undefined ? { masterKey } : {}),
      responsesRetentionMs: options.responsesRetentionMs ?? DEFAULT_RESPONSES_RETENTION_MS,
      knownModels,
      budgetsWithoutRedis: options.budgetsWithoutRedis ?? 'closed',
      ...(options.maxUploadBytes !== undefined ? { maxUploadBytes: options.maxUploadBytes } : {}),
    };
    // Prices are checked now too: a bad price file or model_info price stops the start.
    const prices = new ModelPrices(config.deployments, priceMap?.prices);
    const master = new MasterKeyCheck(settings);
    return {
      module: GatewayModule,
      // Permissions (and the dashboard summary's client and verifier) app-wide, and, with the control plane, the project-sync receiver.
      imports: [
        GatewayCoreModule.forSettings(settings, config, prices, master, redisUrl),
        controlPlaneModule(options.controlPlane, master),
        ...(options.controlPlane
          ? [ControlPlaneSyncModule.forRoot({ issuer: options.controlPlane.issuer, audience: options.controlPlane.audience, handler: AiGatewayProjectSync })]
          : []),
        // One Nest module per noun folder, as the control plane's.
        SpendModule,
        LimitsModule,
        ProjectsModule,
        KeysModule,
        AliasesModule,
        LiteLlmKeysModule,
        LiteLlmCustomersModule,
        LiteLlmTeamsModule,
        LiteLlmUsersModule,
        LiteLlmTagsModule,
        CallsModule,
        GuardrailsModule,
        ResponseCacheModule,
        CallContentModule,
        ResourcesModule,
        StoredResponsesModule,
        VendorPassThroughModule,
        ConfiguredPassThroughModule,
        RealtimeModule,
      ],
      controllers: [ModelsController],
      // The model call routes of every family (and the Responses API's memory around them), the routes no family owns, the dashboard.
      providers: [
        { provide: CALL_EXTENSIONS, useFactory: (memory: ResponsesMemory) => [memory], inject: [ResponsesMemory] },
        CallRoutes,
        TokenCountRoutes,
        UnknownPaths,
        GatewayDashboard,
      ],
      exports: [GatewayDashboard],
    };
  }
}

/**
 * What every part of the gateway reads: its settings, the deployments and their routing, prices,
 * the clock, and the key check of every route. App-wide, so that each noun's module imports only
 * the other nouns it uses.
 */
@Global()
@Module({})
class GatewayCoreModule {
  static forSettings(settings: GatewaySettings, config: GatewayConfig, prices: ModelPrices, master: MasterKeyCheck, redisUrl: string | undefined): DynamicModule {
    const shared = [GatewayClock, DeploymentCooldowns, DeploymentRouter, CallRouter, GatewayAuthentication, GatewayKeyGuard, KeyVerifier, GatewayRedis, DeploymentSharedState];
    return {
      module: GatewayCoreModule,
      providers: [
        { provide: GATEWAY_SETTINGS, useValue: settings },
        { provide: ConfigNotices, useValue: new ConfigNotices(config) },
        { provide: ModelPrices, useValue: prices },
        { provide: MasterKeyCheck, useValue: master },
        { provide: GATEWAY_REDIS_URL, useValue: redisUrl },
        ...shared,
      ],
      exports: [GATEWAY_SETTINGS, ModelPrices, MasterKeyCheck, GATEWAY_REDIS_URL, ...shared],
    };
  }
}

/** AIGW_API_BASE_OVERRIDES applied: each named provider's deployments (wildcard ones too) sent to its address, said at start. */
export function withApiBaseOverrides(config: GatewayConfig, overrides: string): GatewayConfig {
  const byProvider = new Map<string, string>();
  const problems: string[] = [];
  for (const pair of overrides
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [provider, url] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
    if (!pair.includes('=') || !providerAdapterFor(provider) || !/^https?:\/\/\S+$/.test(url))
      problems.push(`"${pair}" must be <provider>=<http(s) URL> with a provider this gateway serves`);
    else byProvider.set(provider, url);
  }
  if (problems.length > 0) throw new ConfigError(problems.map((message) => ({ variable: 'AIGW_API_BASE_OVERRIDES', message })));
  return {
    ...config,
    deployments: config.deployments.map((deployment) => {
      const apiBase = byProvider.get(deployment.provider);
      return apiBase === undefined ? deployment : { ...deployment, apiBase };
    }),
    warnings: [
      ...config.warnings,
      ...[...byProvider].map(([provider, url]) => `AIGW_API_BASE_OVERRIDES sends every ${provider}/ deployment to ${url}, whatever its api_base says`),
    ],
  };
}

/** What reading AIGW_CONFIG found worth saying: resolved model names (info), ignored keys and unserved providers (warnings). */
class ConfigNotices implements OnApplicationBootstrap {
  constructor(private readonly config: GatewayConfig) {}

  onApplicationBootstrap(): void {
    const logger = new Logger('ai-gateway');
    for (const notice of this.config.notices) logger.log(`AIGW_CONFIG: ${notice}`);
    for (const warning of this.config.warnings) logger.warn(`AIGW_CONFIG: ${warning}`);
  }
}

/**
 * Who may do what on the admin API: @RequirePermission of @arbor/contract, with the master key as
 * this gateway's own credential; without the control-plane settings only the master key.
 */
function controlPlaneModule(controlPlane: GatewayOptions['controlPlane'], master: MasterKeyCheck): DynamicModule {
  const authorizeOwnCredential = masterKeyCredential(master);
  if (!controlPlane) {
    return ControlPlaneModule.notConfigured({
      message: 'Person sign-in is not set up on this gateway (AIGW_OIDC_ISSUER_URL, AIGW_CONTROL_PLANE_URL, AIGW_M2M_CLIENT_ID and AIGW_M2M_CLIENT_SECRET); use the master key.',
      authorizeOwnCredential,
    });
  }
  // Route `:id`s name keys, never projects: the routes say where their project is.
  return ControlPlaneModule.forRoot({ ...controlPlane, projectIdParams: [], authorizeOwnCredential });
}
