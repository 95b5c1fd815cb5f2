import { IsOptional } from 'class-validator';
import { ConfigProblem } from '../config-error';
import { CrossChecked, Env } from '../load-config';
import { IsHttpUrl, IsListenAddress, IsLogFilter, IsNonEmpty, IsPostgresUrl, ListenAddress } from '../validators/env-value';
import { listenAddress, productUrls, ServiceConfig } from './service-config';

/** The dispatcher shares the control plane's database (the outbox lives there) and its CP_* names. */
export class SyncDispatcherConfig extends ServiceConfig implements CrossChecked {
  readonly serviceName = 'sync-dispatcher';

  @IsPostgresUrl()
  CP_DATABASE_URL!: string;

  @IsListenAddress()
  CP_DISPATCHER_LISTEN_ADDR = '0.0.0.0:8081';

  @IsLogFilter()
  CP_LOG = 'info';

  /** Needed to discover the token endpoint as soon as there is a sync target. */
  @IsOptional() @IsHttpUrl()
  CP_OIDC_ISSUER_URL?: string;

  @IsOptional() @IsNonEmpty()
  CP_M2M_CLIENT_ID?: string;

  @IsOptional() @IsNonEmpty()
  CP_M2M_CLIENT_SECRET?: string;

  /** CP_<PRODUCT>_API_URL by product key. */
  syncTargets: Record<string, string> = {};

  get listen(): ListenAddress {
    return listenAddress(this.CP_DISPATCHER_LISTEN_ADDR);
  }

  get logFilter(): string {
    return this.CP_LOG;
  }

  crossCheck(env: Env): ConfigProblem[] {
    const sync = productUrls(env, 'CP_', '_API_URL');
    this.syncTargets = sync.urls;
    const problems = [...sync.problems];
    if (Object.keys(sync.urls).length > 0) {
      for (const variable of ['CP_OIDC_ISSUER_URL', 'CP_M2M_CLIENT_ID', 'CP_M2M_CLIENT_SECRET'] as const) {
        if (!env[variable]) problems.push({ variable, message: 'is required when a sync target (CP_<PRODUCT>_API_URL) is set' });
      }
    }
    return problems;
  }
}
