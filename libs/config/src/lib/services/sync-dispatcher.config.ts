import { IsOptional } from 'class-validator';
import { ConfigProblem } from '../config-error';
import { CrossChecked, Env } from '../load-config';
import { IsHttpUrl, IsListenAddress, IsLogFilter, IsNonEmpty, IsPostgresUrl, ListenAddress } from '../validators/env-value';
import { durationMs, IsDuration, parseDuration } from '../validators/duration';
import { listenAddress, productKey, productUrls, ServiceConfig } from './service-config';

/** Where a product receives project sync unless `CP_<PRODUCT>_SYNC_PATH` says otherwise. */
export const DEFAULT_SYNC_PATH = '/api/v1/sync/control-plane/projects';

// An absolute path, without query or fragment; `//host` would be read as another host.
const SYNC_PATH = /^\/(?!\/)[^\s?#]*$/;

/** One product the dispatcher delivers project sync to. */
export interface SyncEndpoint {
  /** Product key (`ai-gateway`), also the audience its token must carry. */
  product: string;
  /** CP_<PRODUCT>_API_URL plus the product's sync path. */
  url: string;
}

/** The dispatcher shares the control plane's database (the outbox lives there) and its CP_* names. */
export class SyncDispatcherConfig extends ServiceConfig implements CrossChecked {
  readonly serviceName = 'sync-dispatcher';
  readonly listenVariable = 'CP_DISPATCHER_LISTEN_ADDR';

  @IsPostgresUrl()
  CP_DATABASE_URL!: string;

  @IsListenAddress()
  CP_DISPATCHER_LISTEN_ADDR = '0.0.0.0:8081';

  @IsLogFilter()
  CP_LOG = 'info';

  /** Needed to discover the token endpoint as soon as there is a sync target. */
  @IsOptional()
  @IsHttpUrl()
  CP_OIDC_ISSUER_URL?: string;

  @IsOptional()
  @IsNonEmpty()
  CP_M2M_CLIENT_ID?: string;

  @IsOptional()
  @IsNonEmpty()
  CP_M2M_CLIENT_SECRET?: string;

  /** How long delivered rows (and outbox events delivered to every product) are kept. */
  @IsDuration()
  CP_DISPATCHER_RETENTION = '7d';

  /** A product that has not answered a sync call within this time has failed the attempt. */
  @IsDuration()
  CP_DISPATCHER_REQUEST_TIMEOUT = '10s';

  /** How long a claim keeps other replicas off its deliveries; a crashed replica's claims are taken over after it. */
  @IsDuration()
  CP_DISPATCHER_LEASE = '30s';

  /** How often the outbox is looked at when no notification arrives (the fallback of LISTEN/NOTIFY). */
  @IsDuration()
  CP_DISPATCHER_POLL_INTERVAL = '1s';

  /** CP_<PRODUCT>_API_URL by product key. */
  syncTargets: Record<string, string> = {};

  /** CP_<PRODUCT>_SYNC_PATH by product key, for the products that set one. */
  syncPaths: Record<string, string> = {};

  get listen(): ListenAddress {
    return listenAddress(this.CP_DISPATCHER_LISTEN_ADDR);
  }

  get logFilter(): string {
    return this.CP_LOG;
  }

  /** Every sync target with the full URL it is POSTed at, by product key. */
  get syncEndpoints(): SyncEndpoint[] {
    return Object.keys(this.syncTargets)
      .sort()
      .map((product) => ({ product, url: `${this.syncTargets[product]}${this.syncPaths[product] ?? DEFAULT_SYNC_PATH}` }));
  }

  get retentionMs(): number {
    return durationMs(this.CP_DISPATCHER_RETENTION);
  }

  get requestTimeoutMs(): number {
    return durationMs(this.CP_DISPATCHER_REQUEST_TIMEOUT);
  }

  get leaseMs(): number {
    return durationMs(this.CP_DISPATCHER_LEASE);
  }

  get pollIntervalMs(): number {
    return durationMs(this.CP_DISPATCHER_POLL_INTERVAL);
  }

  crossCheck(env: Env): ConfigProblem[] {
    const sync = productUrls(env, 'CP_', '_API_URL');
    this.syncTargets = sync.urls;
    const problems = [...sync.problems, ...this.readSyncPaths(env)];
    if (Object.keys(sync.urls).length > 0) {
      for (const variable of ['CP_OIDC_ISSUER_URL', 'CP_M2M_CLIENT_ID', 'CP_M2M_CLIENT_SECRET'] as const) {
        if (!env[variable]) problems.push({ variable, message: 'is required when a sync target (CP_<PRODUCT>_API_URL) is set' });
      }
    }
    const lease = parseDuration(this.CP_DISPATCHER_LEASE);
    const timeout = parseDuration(this.CP_DISPATCHER_REQUEST_TIMEOUT);
    // A claim must outlive the call it covers, or a second replica could send the same delivery meanwhile.
    if (lease !== undefined && timeout !== undefined && lease <= timeout) {
      problems.push({ variable: 'CP_DISPATCHER_LEASE', message: `must be longer than CP_DISPATCHER_REQUEST_TIMEOUT (${this.CP_DISPATCHER_REQUEST_TIMEOUT})` });
    }
    return problems;
  }

  private readSyncPaths(env: Env): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    this.syncPaths = {};
    for (const [variable, value] of Object.entries(env)) {
      const match = /^CP_([A-Z0-9_]+?)_SYNC_PATH$/.exec(variable);
      if (!match || value === undefined || value === '') continue;
      const product = productKey(match[1]);
      if (!SYNC_PATH.test(value)) {
        problems.push({ variable, message: `must be an absolute URL path such as ${DEFAULT_SYNC_PATH}` });
      } else if (!this.syncTargets[product]) {
        problems.push({ variable, message: `is set but CP_${match[1]}_API_URL is not (a misspelt product name?)` });
      } else {
        this.syncPaths[product] = value;
      }
    }
    return problems;
  }
}
