import { ConfigError } from '../config-error';
import { loadConfig } from '../load-config';
import { ControlPlaneConfig } from './control-plane.config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const REQUIRED = {
  CP_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/control_plane',
  CP_OIDC_ISSUER_URL: 'http://localhost:8090/realms/arbor',
  CP_OIDC_AUDIENCE: 'control-plane',
  CP_SECRETS_MASTER_KEY: KEY,
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(ControlPlaneConfig, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines();
    throw error;
  }
  return [];
}

describe('control plane configuration', () => {
  it('applies the seed defaults when only the required variables are set', () => {
    const config = loadConfig(ControlPlaneConfig, REQUIRED);
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.CP_PUBLIC_URL).toBe('http://localhost:8080');
    expect(config.CP_LOG).toBe('info');
    expect(config.CP_OIDC_CLIENT_ID).toBe('arbor-control-plane');
    expect(config.syncTargets).toEqual({});
    expect(config.serviceName).toBe('control-plane');
  });

  it('names every missing required variable, one line each', () => {
    expect(problemsOf({})).toEqual([
      expect.stringMatching(/^CP_DATABASE_URL: is required/),
      expect.stringMatching(/^CP_OIDC_AUDIENCE: is required/),
      expect.stringMatching(/^CP_OIDC_ISSUER_URL: is required/),
      expect.stringMatching(/^CP_SECRETS_MASTER_KEY: is required/),
    ]);
  });

  it('says what the master key must be', () => {
    expect(problemsOf({ ...REQUIRED, CP_SECRETS_MASTER_KEY: 'abc' })).toEqual(['CP_SECRETS_MASTER_KEY: must be base64 of exactly 32 bytes (openssl rand -base64 32)']);
    expect(problemsOf({ ...REQUIRED, CP_SECRETS_MASTER_KEY: Buffer.alloc(31).toString('base64') })).toHaveLength(1);
  });

  it('refuses malformed optional settings instead of falling back to defaults', () => {
    const lines = problemsOf({
      ...REQUIRED,
      CP_LISTEN_ADDR: '8080',
      CP_PUBLIC_URL: 'localhost',
      CP_LOG: 'loud',
      LOG_FORMAT: 'xml',
    });
    expect(lines.map((line) => line.split(':')[0])).toEqual(['CP_LISTEN_ADDR', 'CP_LOG', 'CP_PUBLIC_URL', 'LOG_FORMAT']);
  });

  it('accepts tracing-style log filters', () => {
    expect(loadConfig(ControlPlaneConfig, { ...REQUIRED, CP_LOG: 'warn,outbox=debug,http=info' }).logFilter).toBe('warn,outbox=debug,http=info');
  });

  it('turns CP_<PRODUCT>_API_URL into sync targets and then requires the m2m credentials', () => {
    const env = { ...REQUIRED, CP_AI_GATEWAY_API_URL: 'http://localhost:4000/' };
    expect(problemsOf(env)).toEqual([
      'CP_M2M_CLIENT_ID: is required when a sync target (CP_<PRODUCT>_API_URL) is set',
      'CP_M2M_CLIENT_SECRET: is required when a sync target (CP_<PRODUCT>_API_URL) is set',
    ]);
    const config = loadConfig(ControlPlaneConfig, { ...env, CP_M2M_CLIENT_ID: 'control-plane-m2m', CP_M2M_CLIENT_SECRET: 's' });
    expect(config.syncTargets).toEqual({ 'ai-gateway': 'http://localhost:4000' });
  });

  it('allows CORS from the public URL and the suite URLs, and rejects a suite URL that is not a URL', () => {
    const config = loadConfig(ControlPlaneConfig, {
      ...REQUIRED,
      CP_SUITE_CONTROL_PLANE_URL: 'https://arbor.example.com',
      CP_SUITE_AI_GATEWAY_URL: 'https://ai.example.com/ui',
    });
    expect(config.corsOrigins.sort()).toEqual(['http://localhost:8080', 'https://ai.example.com', 'https://arbor.example.com']);
    expect(problemsOf({ ...REQUIRED, CP_SUITE_SHOP_URL: 'shop' })).toEqual(['CP_SUITE_SHOP_URL: must be an http:// or https:// URL']);
  });

  it('knows the products from their suite and API URLs', () => {
    const config = loadConfig(ControlPlaneConfig, {
      ...REQUIRED,
      CP_SUITE_CONTROL_PLANE_URL: 'https://arbor.example.com',
      CP_SUITE_AI_GATEWAY_URL: 'https://ai.example.com',
      CP_MCP_GATEWAY_API_URL: 'http://mcp:4444',
      CP_M2M_CLIENT_ID: 'control-plane-m2m',
      CP_M2M_CLIENT_SECRET: 's',
    });
    expect(config.productKeys).toEqual(['ai-gateway', 'mcp-gateway']);
  });

  it('accepts earlier master keys for a rotation and names a bad one', () => {
    const old = Buffer.alloc(32, 9).toString('base64');
    expect(loadConfig(ControlPlaneConfig, { ...REQUIRED, CP_SECRETS_PREVIOUS_MASTER_KEYS: `${old}, ${KEY}` }).CP_SECRETS_PREVIOUS_MASTER_KEYS).toBeDefined();
    expect(problemsOf({ ...REQUIRED, CP_SECRETS_PREVIOUS_MASTER_KEYS: `${old},short` })).toEqual([
      'CP_SECRETS_PREVIOUS_MASTER_KEYS: must be a comma-separated list of base64 keys of exactly 32 bytes each',
    ]);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(ControlPlaneConfig, { ...REQUIRED, CP_LISTEN_ADDR: '' }).listen.port).toBe(8080);
  });
});
