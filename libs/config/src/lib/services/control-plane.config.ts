import { IsOptional } from 'class-validator';
import { ConfigProblem } from '../config-error';
import { CrossChecked, Env } from '../load-config';
import { IsBase64Key32, IsBase64Key32List, IsHttpUrl, IsListenAddress, IsLogFilter, IsNonEmpty, IsPostgresUrl, ListenAddress } from '../validators/env-value';
import { listenAddress, productUrls, ServiceConfig } from './service-config';

/** The control plane's environment: the seed's configuration table, defaults included. */
export class ControlPlaneConfig extends ServiceConfig implements CrossChecked {
  readonly serviceName = 'control-plane';
  readonly listenVariable = 'CP_LISTEN_ADDR';

  @IsPostgresUrl()
  CP_DATABASE_URL!: string;

  @IsHttpUrl()
  CP_OIDC_ISSUER_URL!: string;

  @IsNonEmpty()
  CP_OIDC_AUDIENCE!: string;

  @IsBase64Key32()
  CP_SECRETS_MASTER_KEY!: string;

  /** Earlier master keys, comma-separated, still able to decrypt during a key rotation. */
  @IsOptional()
  @IsBase64Key32List()
  CP_SECRETS_PREVIOUS_MASTER_KEYS?: string;

  @IsListenAddress()
  CP_LISTEN_ADDR = '0.0.0.0:8080';

  @IsNonEmpty()
  CP_OIDC_CLIENT_ID = 'arbor-control-plane';

  @IsHttpUrl()
  CP_PUBLIC_URL = 'http://localhost:8080';

  @IsLogFilter()
  CP_LOG = 'info';

  @IsOptional()
  @IsNonEmpty()
  CP_M2M_CLIENT_ID?: string;

  @IsOptional()
  @IsNonEmpty()
  CP_M2M_CLIENT_SECRET?: string;

  /** CP_SUITE_<PRODUCT>_URL by product key: module-rail links and the CORS allow-list. */
  suiteUrls: Record<string, string> = {};

  /** CP_<PRODUCT>_API_URL by product key: each one turns project sync to that product on. */
  syncTargets: Record<string, string> = {};

  get listen(): ListenAddress {
    return listenAddress(this.CP_LISTEN_ADDR);
  }

  get logFilter(): string {
    return this.CP_LOG;
  }

  /** Origins allowed by CORS: the public URL's and every suite URL's. */
  get corsOrigins(): string[] {
    return [...new Set([this.CP_PUBLIC_URL, ...Object.values(this.suiteUrls)].map((url) => new URL(url).origin))];
  }

  /** Product keys known from CP_SUITE_<PRODUCT>_URL and CP_<PRODUCT>_API_URL (not the control plane itself). */
  get productKeys(): string[] {
    return [...new Set([...Object.keys(this.suiteUrls), ...Object.keys(this.syncTargets)])].filter((key) => key !== 'control-plane').sort();
  }

  crossCheck(env: Env): ConfigProblem[] {
    const suite = productUrls(env, 'CP_SUITE_', '_URL');
    const sync = productUrls(env, 'CP_', '_API_URL');
    this.suiteUrls = suite.urls;
    this.syncTargets = sync.urls;
    const problems = [...suite.problems, ...sync.problems];
    if (Object.keys(sync.urls).length > 0) {
      for (const variable of ['CP_M2M_CLIENT_ID', 'CP_M2M_CLIENT_SECRET'] as const) {
        if (!env[variable]) problems.push({ variable, message: 'is required when a sync target (CP_<PRODUCT>_API_URL) is set' });
      }
    }
    return problems;
  }
}
