import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConfigError } from '@arbor/config';
import { ControlPlaneClient, ControlPlaneModule, TokenVerifier } from '@arbor/contract';
import { McpControlPlaneAccess, ServerProject } from '../admin/admin-access';
import { McpAdminSettings } from '../admin/admin-settings';
import { ServersController } from '../admin/servers.controller';
import { ServerToolsController } from '../admin/server-tools.controller';
import { ToolsController } from '../admin/tools.controller';
import { UpstreamsController } from '../admin/upstreams.controller';
import { DatabaseServerRegistry } from './database-server-registry';
import { HeaderCipher } from './header-cipher';
import { EMPTY_REGISTRY_CONFIG, loadRegistryConfigFile } from './registry-config';
import { RegistryStore } from './registry-store';
import { ServerRegistry } from './server-registry';
import { McpControlPlaneProjects } from '../projects/control-plane-projects';
import { RepositoryTokenHeaders } from '../projects/repository-token-headers';
import { RepositoryTokenHosts } from '../projects/repository-token-hosts';
import { UpstreamCallHeaders } from '../upstreams/per-call-headers';
import { MetricsRegistry } from '@arbor/observability';
import { ToolCallGuardrails } from '../guardrails/tool-call-guardrails';
import { StrategyCredentials } from '../credentials/strategy-credentials';
import { OAuthCredentials } from '../credentials/oauth/oauth-credentials';
import { OAuthController } from '../credentials/oauth/oauth.controller';
import { ConnectSignIn } from '../credentials/oauth/connect-sign-in';
import { guardedFetch } from '../upstreams/upstream-http';
import { TokenExchangeCredentials } from '../credentials/token-exchange';
import { isPerCaller } from '../credentials/upstream-auth';
import { UpstreamCredentials } from '../credentials/upstream-credentials';
import type { UpstreamDefinition } from './server-registry';
import type { AgentDefinition } from '../agents/agent-definition';

/** The control-plane settings, each as the gateway has it (absent ones are named in the admin API's 503). */
export interface McpControlPlaneSettings {
  /** MCPGW_OIDC_ISSUER_URL */
  issuer?: string;
  /** MCPGW_OIDC_AUDIENCE */
  audience: string;
  /** MCPGW_CONTROL_PLANE_URL */
  baseUrl?: string;
  /** MCPGW_M2M_CLIENT_ID */
  clientId?: string;
  /** MCPGW_M2M_CLIENT_SECRET */
  clientSecret?: string;
}

export interface McpRegistryOptions {
  /** MCPGW_CONFIG: the YAML file of upstreams and virtual servers; none means only API-made ones. */
  configFile?: string;
  /** MCPGW_SECRETS_KEY; without it upstreams cannot have headers. */
  secretsKey?: string;
  /** MCPGW_SECRETS_PREVIOUS_KEYS: earlier keys, still opening headers they sealed until they are sealed again at start. */
  previousSecretsKeys?: string[];
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS=true. */
  allowLinkLocal: boolean;
  /** MCPGW_REPOSITORY_TOKEN_HOSTS: the only hosts {{project.repository_token}} is sent to; default none. */
  repositoryTokenHosts?: readonly string[];
  controlPlane?: McpControlPlaneSettings;
  /**
   * MCPGW_OIDC_CLIENT_ID and _SECRET: the gateway's own confidential client at the identity provider
   * (MCPGW_OIDC_ISSUER_URL), for `token_exchange` upstreams and to confirm who opens an OAuth connect link.
   */
  gatewayClient?: { clientId: string; clientSecret: string };
  /** MCPGW_PUBLIC_URL: where browsers reach the gateway, for the OAuth callback and connect links of `oauth` upstreams. */
  publicUrl?: string;
  /** How often other replicas' changes are looked for; default 5 s. */
  pollIntervalMs?: number;
  /** Modules exporting UpstreamCatalogue (the runtime's), unless it is global; without one the admin API shows no health or catalogue. */
  imports?: ModuleMetadata['imports'];
}

/**
 * Upstreams and virtual servers (ServerRegistry, from MCPGW_CONFIG and PostgreSQL) and the admin
 * API (/api/v1/upstreams, /servers, /tools), and the guardrails of tool calls (ToolCallGuardrails). The app's DatabaseModule must carry
 * MCP_GATEWAY_ENTITIES and MCP_GATEWAY_MIGRATIONS. Global, so the runtime injects ServerRegistry
 * without importing it; the admin API shows health and catalogues when UpstreamCatalogue is
 * global or comes through `imports`. A bad MCPGW_CONFIG throws ConfigError here, a bad upstream
 * URL or a clash with API-made rows at start.
 */
@Module({})
export class McpRegistryModule {
  static forOptions(options: McpRegistryOptions, env: NodeJS.ProcessEnv = process.env): DynamicModule {
    const config = options.configFile ? loadRegistryConfigFile(options.configFile, env) : EMPTY_REGISTRY_CONFIG;
    const cipher = options.secretsKey ? new HeaderCipher(options.secretsKey, options.previousSecretsKeys) : undefined;
    const problems = [
      ...(cipher
        ? []
        : [
            ...config.upstreams.flatMap((upstream) => [
              ...(Object.keys(upstream.headers).length > 0
                ? [{ variable: 'MCPGW_SECRETS_KEY', message: `is needed to store the headers MCPGW_CONFIG gives the upstream "${upstream.name}"` }]
                : []),
              ...(upstream.auth?.type === 'oauth'
                ? [{ variable: 'MCPGW_SECRETS_KEY', message: `is needed to keep the OAuth tokens of the upstream "${upstream.name}" in MCPGW_CONFIG sealed` }]
                : []),
            ]),
            ...config.agents.flatMap((agent) =>
              agent.auth.type === 'oauth'
                ? [{ variable: 'MCPGW_SECRETS_KEY', message: `is needed to keep the OAuth tokens of the agent "${agent.name}" in MCPGW_CONFIG sealed` }]
                : [],
            ),
          ]),
      ...gatewayClientProblems(config.upstreams, config.agents, options),
    ];
    if (problems.length > 0) throw new ConfigError(problems);
    const gatewayClient = options.gatewayClient && options.controlPlane?.issuer ? { issuer: options.controlPlane.issuer, ...options.gatewayClient } : undefined;
    const tokenExchange = new TokenExchangeCredentials(gatewayClient);
    const publicUrl = (options.publicUrl ?? 'http://localhost:4444').replace(/\/+$/, '');
    const controlPlane = options.controlPlane;
    const missing = [
      ['MCPGW_OIDC_ISSUER_URL', controlPlane?.issuer],
      ['MCPGW_CONTROL_PLANE_URL', controlPlane?.baseUrl],
      ['MCPGW_M2M_CLIENT_ID', controlPlane?.clientId],
      ['MCPGW_M2M_CLIENT_SECRET', controlPlane?.clientSecret],
    ]
      .filter(([, value]) => !value)
      .map(([name]) => name as string);
    const configured = controlPlane && missing.length === 0 ? (controlPlane as Required<McpControlPlaneSettings>) : undefined;
    const repositoryTokenHosts = new RepositoryTokenHosts(options.repositoryTokenHosts);
    return {
      module: McpRegistryModule,
      global: true,
      imports: [controlPlaneModule(configured, missing), ...(options.imports ?? [])],
      controllers: [UpstreamsController, ServersController, ServerToolsController, ToolsController, ...(cipher ? [OAuthController] : [])],
      providers: [
        // MCPGW_CONFIG's guardrails, for the runtime's catalogue and the admin API's check of the names servers give.
        { provide: ToolCallGuardrails, useFactory: (metrics: MetricsRegistry) => new ToolCallGuardrails(config.guardrails, metrics), inject: [MetricsRegistry] },
        { provide: RegistryStore, useFactory: (dataSource: DataSource) => new RegistryStore(dataSource, cipher), inject: [DataSource] },
        {
          provide: DatabaseServerRegistry,
          useFactory: (store: RegistryStore) =>
            new DatabaseServerRegistry(store, { config, allowLinkLocal: options.allowLinkLocal, pollIntervalMs: options.pollIntervalMs, repositoryTokenHosts }),
          inject: [RegistryStore],
        },
        { provide: ServerRegistry, useExisting: DatabaseServerRegistry },
        { provide: McpAdminSettings, useValue: new McpAdminSettings(options.allowLinkLocal) },
        { provide: RepositoryTokenHosts, useValue: repositoryTokenHosts },
        ...(configured
          ? [
              {
                provide: McpControlPlaneAccess,
                useFactory: (verifier: TokenVerifier, client: ControlPlaneClient) => new McpControlPlaneAccess(verifier, client, configured.issuer),
                inject: [TokenVerifier, ControlPlaneClient],
              },
            ]
          : []),
        ServerProject,
        McpControlPlaneProjects,
        // Upstream headers with {{project.repository_token}}, resolved per call for the runtime's pool.
        { provide: UpstreamCallHeaders, useClass: RepositoryTokenHeaders },
        // The credentials of upstreams whose auth is per caller (token exchange, OAuth; OAuth keeps its tokens sealed, so needs MCPGW_SECRETS_KEY).
        ...(cipher
          ? [
              {
                provide: OAuthCredentials,
                useFactory: (dataSource: DataSource) =>
                  new OAuthCredentials({
                    publicUrl,
                    cipher,
                    dataSource,
                    fetch: guardedFetch(options.allowLinkLocal),
                  }),
                inject: [DataSource],
              },
              { provide: ConnectSignIn, useValue: new ConnectSignIn(gatewayClient, publicUrl, cipher) },
            ]
          : []),
        {
          provide: UpstreamCredentials,
          useFactory: (oauth?: OAuthCredentials) => new StrategyCredentials({ token_exchange: tokenExchange, ...(oauth ? { oauth } : {}) }),
          inject: [{ token: OAuthCredentials, optional: true }],
        },
      ],
      // The MCP endpoints' access policy and the API keys' admin routes ask the same control plane.
      exports: [
        ServerRegistry,
        DatabaseServerRegistry,
        // The agents module keeps each agent's card beside its row.
        RegistryStore,
        ToolCallGuardrails,
        McpAdminSettings,
        McpControlPlaneProjects,
        UpstreamCallHeaders,
        UpstreamCredentials,
        ...(configured ? [McpControlPlaneAccess] : []),
      ],
    };
  }
}

/** MCPGW_CONFIG's per-person upstreams need the gateway's own client at the identity provider (to exchange, to confirm who connects). */
function gatewayClientProblems(upstreams: readonly UpstreamDefinition[], agents: readonly AgentDefinition[], options: McpRegistryOptions) {
  const perPerson = [
    ...upstreams.filter((upstream) => isPerCaller(upstream.auth)).map((upstream) => `upstream "${upstream.name}"`),
    ...agents.filter((agent) => agent.auth.type === 'token_exchange' || agent.auth.type === 'oauth').map((agent) => `agent "${agent.name}"`),
  ];
  if (perPerson.length === 0) return [];
  const needed = `is needed for the per-person auth of ${perPerson.join(', ')} in MCPGW_CONFIG`;
  return [
    ...(options.gatewayClient ? [] : [{ variable: 'MCPGW_OIDC_CLIENT_ID', message: needed }]),
    ...(options.controlPlane?.issuer ? [] : [{ variable: 'MCPGW_OIDC_ISSUER_URL', message: needed }]),
  ];
}

/**
 * Who may do what on the admin API: @RequirePermission of @arbor/contract (persons only: machine
 * clients are refused); without the control-plane settings, persons are told which ones are missing.
 */
function controlPlaneModule(settings: Required<McpControlPlaneSettings> | undefined, missing: readonly string[]): DynamicModule {
  if (!settings) {
    return ControlPlaneModule.notConfigured({
      message: `The admin API needs person sign-in through the control plane, and this gateway lacks ${missing.join(', ')}.`,
      details: { missing_settings: [...missing] },
    });
  }
  // Route `:id`s name servers and keys, never projects: the routes say where their project is.
  return ControlPlaneModule.forRoot({ ...settings, projectIdParams: [] });
}
