import { IsIn, IsOptional } from 'class-validator';
import { ConfigProblem } from '../config-error';
import { CrossChecked, Env } from '../load-config';
import { IsHttpUrl, IsListenAddress, IsLogFilter, IsNonEmpty, IsOriginList, IsPostgresUrl, IsRedisUrl, ListenAddress } from '../validators/env-value';
import { IsDuration } from '../validators/duration';
import { byteSizeBytes, IsByteSize } from '../validators/byte-size';
import { controlPlaneSettings, listenAddress, ServiceConfig, suiteDashboardOrigins } from './service-config';

export class AiGatewayConfig extends ServiceConfig implements CrossChecked {
  readonly serviceName = 'ai-gateway';
  readonly listenVariable = 'AIGW_LISTEN_ADDR';

  @IsPostgresUrl()
  AIGW_DATABASE_URL!: string;

  @IsListenAddress()
  AIGW_LISTEN_ADDR = '0.0.0.0:4000';

  @IsLogFilter()
  AIGW_LOG = 'info';

  /** Path of the YAML file with `model_list` / `router_settings`. */
  @IsOptional()
  @IsNonEmpty()
  AIGW_CONFIG?: string;

  @IsOptional()
  @IsNonEmpty()
  AIGW_MASTER_KEY?: string;

  /** A LiteLLM-format price file (model_prices_and_context_window.json) overriding built-in prices. */
  @IsOptional()
  @IsNonEmpty()
  AIGW_PRICE_MAP?: string;

  @IsOptional()
  @IsRedisUrl()
  AIGW_REDIS_URL?: string;

  /**
   * What budget levels beside the key (workspace, project, end user, tag, a key's model_max_budget)
   * do while the configured Redis cannot be reached: `closed` refuses their calls (503), `open`
   * counts on in each replica alone. Rate limits and the key's own limits always stay open.
   */
  @IsIn(['closed', 'open'], { message: 'must be closed or open' })
  AIGW_BUDGETS_WITHOUT_REDIS: 'closed' | 'open' = 'closed';

  /**
   * `<provider>=<url>,…`: every deployment of that provider goes to that address, whatever its
   * api_base says — for tests and dry runs of a LiteLLM config against tools/fake-providers.
   */
  @IsOptional()
  @IsNonEmpty()
  AIGW_API_BASE_OVERRIDES?: string;

  /** How long a stored response of the Responses API is kept (then pruned in the background). */
  @IsDuration()
  AIGW_RESPONSES_RETENTION = '30d';

  /** The largest multipart upload (image edits, audio transcriptions) accepted; a larger one gets 413. */
  @IsByteSize()
  AIGW_MAX_UPLOAD_SIZE = '1GiB';

  @IsOptional()
  @IsHttpUrl()
  AIGW_OIDC_ISSUER_URL?: string;

  @IsNonEmpty()
  AIGW_OIDC_AUDIENCE = 'ai-gateway';

  /** The public client (authorisation code + PKCE) the gateway's web UI signs people in with. */
  @IsNonEmpty()
  AIGW_OIDC_UI_CLIENT_ID = 'arbor-ai-gateway';

  @IsOptional()
  @IsHttpUrl()
  AIGW_CONTROL_PLANE_URL?: string;

  @IsOptional()
  @IsNonEmpty()
  AIGW_M2M_CLIENT_ID?: string;

  @IsOptional()
  @IsNonEmpty()
  AIGW_M2M_CLIENT_SECRET?: string;

  /** Browser origins allowed by CORS (the suite dashboard calls the summary from the browser), comma-separated; default the control plane's origin. */
  @IsOptional()
  @IsOriginList()
  AIGW_CORS_ORIGINS?: string;

  get corsOrigins(): string[] {
    return suiteDashboardOrigins(this.AIGW_CORS_ORIGINS, this.AIGW_CONTROL_PLANE_URL);
  }

  get maxUploadBytes(): number {
    return byteSizeBytes(this.AIGW_MAX_UPLOAD_SIZE);
  }

  get listen(): ListenAddress {
    return listenAddress(this.AIGW_LISTEN_ADDR);
  }

  get logFilter(): string {
    return this.AIGW_LOG;
  }

  crossCheck(env: Env): ConfigProblem[] {
    return controlPlaneSettings(env, 'AIGW');
  }
}
