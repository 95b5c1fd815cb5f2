import { ConfigError } from '../config-error';
import { loadConfig } from '../load-config';
import { parseDuration } from '../validators/duration';
import { DEFAULT_SYNC_PATH, SyncDispatcherConfig } from './sync-dispatcher.config';

const REQUIRED = { CP_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/control_plane' };
const SYNC = {
  ...REQUIRED,
  CP_OIDC_ISSUER_URL: 'http://localhost:8090/realms/arbor',
  CP_M2M_CLIENT_ID: 'control-plane-m2m',
  CP_M2M_CLIENT_SECRET: 'secret',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(SyncDispatcherConfig, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines();
    throw error;
  }
  return [];
}

describe('sync dispatcher configuration', () => {
  it('has defaults for everything but the database', () => {
    const config = loadConfig(SyncDispatcherConfig, REQUIRED);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(config.syncEndpoints).toEqual([]);
    expect(config.retentionMs).toBe(7 * 24 * 3600 * 1000);
    expect(config.requestTimeoutMs).toBe(10_000);
    expect(config.leaseMs).toBe(30_000);
    expect(config.pollIntervalMs).toBe(1000);
    expect(problemsOf({})).toEqual([expect.stringMatching(/^CP_DATABASE_URL: is required/)]);
  });

  it('posts to the default sync path unless CP_<PRODUCT>_SYNC_PATH names another', () => {
    const config = loadConfig(SyncDispatcherConfig, {
      ...SYNC,
      CP_AI_GATEWAY_API_URL: 'http://ai:4000/',
      CP_MCP_GATEWAY_API_URL: 'http://mcp:4444/base',
      CP_MCP_GATEWAY_SYNC_PATH: '/admin/sync/control-plane/projects',
    });
    expect(config.syncEndpoints).toEqual([
      { product: 'ai-gateway', url: `http://ai:4000${DEFAULT_SYNC_PATH}` },
      { product: 'mcp-gateway', url: 'http://mcp:4444/base/admin/sync/control-plane/projects' },
    ]);
  });

  it('refuses a sync path that is not an absolute path, or one for a product without an API URL', () => {
    expect(problemsOf({ ...SYNC, CP_SHOP_API_URL: 'http://shop', CP_SHOP_SYNC_PATH: 'sync' })).toEqual([
      `CP_SHOP_SYNC_PATH: must be an absolute URL path such as ${DEFAULT_SYNC_PATH}`,
    ]);
    for (const path of ['//evil.example/sync', '/sync?x=1', '/a b']) {
      expect(problemsOf({ ...SYNC, CP_SHOP_API_URL: 'http://shop', CP_SHOP_SYNC_PATH: path })).toHaveLength(1);
    }
    expect(problemsOf({ ...SYNC, CP_SHOP_API_URL: 'http://shop', CP_SHOPP_SYNC_PATH: '/sync' })).toEqual([
      'CP_SHOPP_SYNC_PATH: is set but CP_SHOPP_API_URL is not (a misspelt product name?)',
    ]);
  });

  it('requires the issuer and the m2m credentials once a sync target is set', () => {
    expect(problemsOf({ ...REQUIRED, CP_AI_GATEWAY_API_URL: 'http://ai:4000' })).toEqual([
      'CP_M2M_CLIENT_ID: is required when a sync target (CP_<PRODUCT>_API_URL) is set',
      'CP_M2M_CLIENT_SECRET: is required when a sync target (CP_<PRODUCT>_API_URL) is set',
      'CP_OIDC_ISSUER_URL: is required when a sync target (CP_<PRODUCT>_API_URL) is set',
    ]);
  });

  it('reads durations with a unit, and names every malformed one', () => {
    const config = loadConfig(SyncDispatcherConfig, {
      ...REQUIRED,
      CP_DISPATCHER_RETENTION: '168h',
      CP_DISPATCHER_REQUEST_TIMEOUT: '1500ms',
      CP_DISPATCHER_LEASE: '2s',
      CP_DISPATCHER_POLL_INTERVAL: '100ms',
    });
    expect([config.retentionMs, config.requestTimeoutMs, config.leaseMs, config.pollIntervalMs]).toEqual([604_800_000, 1500, 2000, 100]);
    expect(problemsOf({ ...REQUIRED, CP_DISPATCHER_RETENTION: '7', CP_DISPATCHER_REQUEST_TIMEOUT: '0s', CP_DISPATCHER_LEASE: '1.5m', CP_DISPATCHER_POLL_INTERVAL: '-1s' })).toEqual(
      [
        'CP_DISPATCHER_LEASE: must be a positive duration: a whole number with ms, s, m, h or d (for example 30s, 168h, 7d)',
        'CP_DISPATCHER_POLL_INTERVAL: must be a positive duration: a whole number with ms, s, m, h or d (for example 30s, 168h, 7d)',
        'CP_DISPATCHER_REQUEST_TIMEOUT: must be a positive duration: a whole number with ms, s, m, h or d (for example 30s, 168h, 7d)',
        'CP_DISPATCHER_RETENTION: must be a positive duration: a whole number with ms, s, m, h or d (for example 30s, 168h, 7d)',
      ],
    );
    expect([parseDuration('7d'), parseDuration(' 5m '), parseDuration('1w'), parseDuration('')]).toEqual([604_800_000, 300_000, undefined, undefined]);
  });

  it('refuses a lease that does not outlive the request timeout', () => {
    expect(problemsOf({ ...REQUIRED, CP_DISPATCHER_LEASE: '10s' })).toEqual(['CP_DISPATCHER_LEASE: must be longer than CP_DISPATCHER_REQUEST_TIMEOUT (10s)']);
    expect(problemsOf({ ...REQUIRED, CP_DISPATCHER_LEASE: '2s', CP_DISPATCHER_REQUEST_TIMEOUT: '1s' })).toEqual([]);
  });
});
