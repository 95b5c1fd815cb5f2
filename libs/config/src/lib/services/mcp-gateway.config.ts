import { IsOptional } from 'class-validator';
import { ConfigProblem } from '../config-error';
import { CrossChecked, Env } from '../load-config';
import {
  IsBase64Key32,
  IsBase64Key32List,
  IsBooleanString,
  IsHostList,
  IsHttpUrl,
  IsListenAddress,
  IsLogFilter,
  IsNonEmpty,
  IsOriginList,
  IsPostgresUrl,
  IsRedisUrl,
  ListenAddress,
} from '../validators/env-value';
import { controlPlaneSettings, listenAddress, ServiceConfig, suiteDashboardOrigins } from './service-config';

export class McpGatewayConfig extends ServiceConfig implements CrossChecked {
  readonly serviceName = 'mcp-gateway';
  readonly listenVariable = 'MCPGW_LISTEN_ADDR';

  @IsPostgresUrl()
  MCPGW_DATABASE_URL!: string;

  @IsListenAddress()
  MCPGW_LISTEN_ADDR = '0.0.0.0:4444';

  @IsLogFilter()
  MCPGW_LOG = 'info';

  /** Where MCP clients reach the gateway: the OAuth protected resource metadata names its endpoints by it, never by the request's Host. */
  @IsHttpUrl()
  MCPGW_PUBLIC_URL = 'http://localhost:4444';

  @IsOptional()
  @IsNonEmpty()
  MCPGW_CONFIG?: string;

  /** Encrypts upstream credentials at rest. */
  @IsOptional()
  @IsBase64Key32()
  MCPGW_SECRETS_KEY?: string;

  /** Earlier MCPGW_SECRETS_KEYs, comma-separated: headers they sealed still open, and are sealed again under the current key at start. */
  @IsOptional()
  @IsBase64Key32List()
  MCPGW_SECRETS_PREVIOUS_KEYS?: string;

  @IsOptional()
  @IsHttpUrl()
  MCPGW_OIDC_ISSUER_URL?: string;

  @IsNonEmpty()
  MCPGW_OIDC_AUDIENCE = 'mcp-gateway';

  /** The public client (authorisation code + PKCE) the gateway's web UI signs people in with. */
  @IsNonEmpty()
  MCPGW_OIDC_UI_CLIENT_ID = 'arbor-mcp-gateway';

  @IsOptional()
  @IsHttpUrl()
  MCPGW_CONTROL_PLANE_URL?: string;

  @IsOptional()
  @IsNonEmpty()
  MCPGW_M2M_CLIENT_ID?: string;

  @IsOptional()
  @IsNonEmpty()
  MCPGW_M2M_CLIENT_SECRET?: string;

  /**
   * The gateway's own confidential client at the identity provider (the realm's `mcp-gateway`): it
   * exchanges persons' tokens for upstreams with `token_exchange` auth (RFC 8693) and confirms who
   * opens a connect link of an `oauth` upstream.
   */
  @IsOptional()
  @IsNonEmpty()
  MCPGW_OIDC_CLIENT_ID?: string;

  @IsOptional()
  @IsNonEmpty()
  MCPGW_OIDC_CLIENT_SECRET?: string;

  /** Browser origins allowed by CORS (the suite dashboard calls the summary from the browser), comma-separated; default the control plane's origin. */
  @IsOptional()
  @IsOriginList()
  MCPGW_CORS_ORIGINS?: string;

  /** The seed's name: SSE streams and sessions on Streamable HTTP. */
  @IsBooleanString()
  USE_STATEFUL_SESSIONS = 'false';

  @IsBooleanString()
  MCPGW_WS_RELAY_ENABLED = 'false';

  /** Upstreams on link-local or cloud metadata addresses are refused unless this is true (SSRF). */
  @IsBooleanString()
  MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS = 'false';

  /** The only upstream hosts {{project.repository_token}} is sent to, comma-separated: an administrator's approval, since workspace operators register upstreams anywhere. */
  @IsOptional()
  @IsHostList()
  MCPGW_REPOSITORY_TOKEN_HOSTS?: string;

  /** Browser origins allowed besides the gateway's own host (DNS-rebinding protection), comma-separated. */
  @IsOptional()
  @IsOriginList()
  MCPGW_ALLOWED_ORIGINS?: string;

  /** Shared by the replicas: which one holds each stateful session, so that any of them serves it. */
  @IsOptional()
  @IsRedisUrl()
  MCPGW_REDIS_URL?: string;

  /** Where the other replicas reach this one (with MCPGW_REDIS_URL), e.g. http://$(POD_IP):4444. */
  @IsOptional()
  @IsHttpUrl()
  MCPGW_REPLICA_URL?: string;

  get corsOrigins(): string[] {
    return suiteDashboardOrigins(this.MCPGW_CORS_ORIGINS, this.MCPGW_CONTROL_PLANE_URL);
  }

  get listen(): ListenAddress {
    return listenAddress(this.MCPGW_LISTEN_ADDR);
  }

  get logFilter(): string {
    return this.MCPGW_LOG;
  }

  get statefulSessions(): boolean {
    return this.USE_STATEFUL_SESSIONS === 'true';
  }

  get webSocketRelay(): boolean {
    return this.MCPGW_WS_RELAY_ENABLED === 'true';
  }

  get allowLinkLocalUpstreams(): boolean {
    return this.MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS === 'true';
  }

  get repositoryTokenHosts(): string[] {
    return (this.MCPGW_REPOSITORY_TOKEN_HOSTS ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter(Boolean);
  }

  get allowedOrigins(): string[] {
    return (this.MCPGW_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean);
  }

  crossCheck(env: Env): ConfigProblem[] {
    const replicas: ConfigProblem[] =
      env['MCPGW_REDIS_URL'] && !env['MCPGW_REPLICA_URL']
        ? [{ variable: 'MCPGW_REPLICA_URL', message: "is required with MCPGW_REDIS_URL: the other replicas forward requests for this one's sessions there" }]
        : [];
    const exchangeId = env['MCPGW_OIDC_CLIENT_ID'];
    const exchangeSecret = env['MCPGW_OIDC_CLIENT_SECRET'];
    const tokenExchange: ConfigProblem[] = [
      ...(exchangeId && !exchangeSecret ? [{ variable: 'MCPGW_OIDC_CLIENT_SECRET', message: 'is required with MCPGW_OIDC_CLIENT_ID' }] : []),
      ...(exchangeSecret && !exchangeId ? [{ variable: 'MCPGW_OIDC_CLIENT_ID', message: 'is required with MCPGW_OIDC_CLIENT_SECRET' }] : []),
      ...(exchangeId && !env['MCPGW_OIDC_ISSUER_URL'] ? [{ variable: 'MCPGW_OIDC_ISSUER_URL', message: 'is required with MCPGW_OIDC_CLIENT_ID: the client is there' }] : []),
    ];
    return [...controlPlaneSettings(env, 'MCPGW'), ...replicas, ...tokenExchange];
  }
}
