import { ConfigError } from '../config-error';
import { loadConfig } from '../load-config';
import { AiGatewayConfig } from './ai-gateway.config';
import { McpGatewayConfig } from './mcp-gateway.config';
import { SyncDispatcherConfig } from './sync-dispatcher.config';

function lines(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (error) {
    return (error as ConfigError).lines();
  }
}

describe("the other services' configuration", () => {
  it('gives each gateway its port and audience defaults', () => {
    const ai = loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/ai_gateway' });
    expect(ai.listen.port).toBe(4000);
    expect(ai.AIGW_OIDC_AUDIENCE).toBe('ai-gateway');
    const mcp = loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/mcp_gateway' });
    expect(mcp.listen.port).toBe(4444);
    expect(mcp.statefulSessions).toBe(false);
    expect(loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', USE_STATEFUL_SESSIONS: 'true' }).statefulSessions).toBe(true);
  });

  it('requires each database and names a malformed flag', () => {
    expect(lines(() => loadConfig(AiGatewayConfig, {}))).toEqual([expect.stringMatching(/^AIGW_DATABASE_URL: is required/)]);
    expect(lines(() => loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', USE_STATEFUL_SESSIONS: 'yes' }))).toEqual([
      'USE_STATEFUL_SESSIONS: must be true or false',
    ]);
  });

  it("reads the MCP gateway's repository token hosts and public URL, naming each malformed one", () => {
    const base = { MCPGW_DATABASE_URL: 'postgres://h/m' };
    expect(loadConfig(McpGatewayConfig, base).repositoryTokenHosts).toEqual([]);
    expect(loadConfig(McpGatewayConfig, base).MCPGW_PUBLIC_URL).toBe('http://localhost:4444');
    expect(loadConfig(McpGatewayConfig, { ...base, MCPGW_REPOSITORY_TOKEN_HOSTS: 'git.example.com, 10.0.0.5,[fd12::5]' }).repositoryTokenHosts).toEqual([
      'git.example.com',
      '10.0.0.5',
      '[fd12::5]',
    ]);
    for (const hosts of ['https://git.example.com', 'git.example.com:443', 'git.example.com/api', 'fd12::5', 'user@git.example.com']) {
      expect(lines(() => loadConfig(McpGatewayConfig, { ...base, MCPGW_REPOSITORY_TOKEN_HOSTS: hosts }))).toEqual([
        expect.stringMatching(/^MCPGW_REPOSITORY_TOKEN_HOSTS: must be a comma-separated list of host names/),
      ]);
    }
    expect(lines(() => loadConfig(McpGatewayConfig, { ...base, MCPGW_PUBLIC_URL: 'mcp.example.com' }))).toEqual([expect.stringMatching(/^MCPGW_PUBLIC_URL: must be an http/)]);
  });

  it("reads the AI gateway's upload limit in bytes or with a unit, and names a malformed one", () => {
    expect(loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a' }).maxUploadBytes).toBe(1024 ** 3);
    expect(loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a', AIGW_MAX_UPLOAD_SIZE: '25MB' }).maxUploadBytes).toBe(25_000_000);
    expect(loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a', AIGW_MAX_UPLOAD_SIZE: '2048' }).maxUploadBytes).toBe(2048);
    expect(lines(() => loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a', AIGW_MAX_UPLOAD_SIZE: 'lots' }))).toEqual([
      expect.stringMatching(/^AIGW_MAX_UPLOAD_SIZE: must be a positive size/),
    ]);
  });

  it('has budgets fail closed without their Redis unless AIGW_BUDGETS_WITHOUT_REDIS=open, and names any other value', () => {
    expect(loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a' }).AIGW_BUDGETS_WITHOUT_REDIS).toBe('closed');
    expect(loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a', AIGW_BUDGETS_WITHOUT_REDIS: 'open' }).AIGW_BUDGETS_WITHOUT_REDIS).toBe('open');
    expect(lines(() => loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a', AIGW_BUDGETS_WITHOUT_REDIS: 'maybe' }))).toEqual([
      expect.stringMatching(/^AIGW_BUDGETS_WITHOUT_REDIS: must be closed or open/),
    ]);
  });

  it('requires both halves of an m2m credential, and the rest of the control-plane settings with it', () => {
    expect(lines(() => loadConfig(AiGatewayConfig, { AIGW_DATABASE_URL: 'postgres://h/a', AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m' }))).toEqual([
      expect.stringMatching(/^AIGW_CONTROL_PLANE_URL: is required when the control plane is configured/),
      'AIGW_M2M_CLIENT_SECRET: is required when AIGW_M2M_CLIENT_ID is set',
      expect.stringMatching(/^AIGW_OIDC_ISSUER_URL: is required when the control plane is configured/),
    ]);
    const complete = {
      AIGW_DATABASE_URL: 'postgres://h/a',
      AIGW_OIDC_ISSUER_URL: 'http://idp/realms/arbor',
      AIGW_CONTROL_PLANE_URL: 'http://cp:8080',
      AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
      AIGW_M2M_CLIENT_SECRET: 'secret',
    };
    expect(loadConfig(AiGatewayConfig, complete).AIGW_CONTROL_PLANE_URL).toBe('http://cp:8080');
  });

  it("reads the MCP gateway's origin allowlist and link-local switch, naming a malformed origin", () => {
    const mcp = loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', MCPGW_ALLOWED_ORIGINS: 'https://ide.example.com, http://localhost:5173' });
    expect(mcp.allowedOrigins).toEqual(['https://ide.example.com', 'http://localhost:5173']);
    expect(mcp.allowLinkLocalUpstreams).toBe(false);
    expect(lines(() => loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', MCPGW_ALLOWED_ORIGINS: 'https://ide.example.com/path' }))).toEqual([
      expect.stringMatching(/^MCPGW_ALLOWED_ORIGINS: must be a comma-separated list of origins/),
    ]);
    expect(lines(() => loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', MCPGW_CONTROL_PLANE_URL: 'http://cp' }))).toEqual([
      expect.stringMatching(/^MCPGW_M2M_CLIENT_ID: is required/),
      expect.stringMatching(/^MCPGW_M2M_CLIENT_SECRET: is required/),
      expect.stringMatching(/^MCPGW_OIDC_ISSUER_URL: is required/),
    ]);
  });

  it("wants the MCP gateway's replica address with its Redis, and a Redis URL that is one", () => {
    expect(lines(() => loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', MCPGW_REDIS_URL: 'redis://redis:6379' }))).toEqual([
      expect.stringMatching(/^MCPGW_REPLICA_URL: is required with MCPGW_REDIS_URL/),
    ]);
    expect(lines(() => loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', MCPGW_REDIS_URL: 'http://redis', MCPGW_REPLICA_URL: 'http://10.0.0.7:4444' }))).toEqual(
      [expect.stringMatching(/^MCPGW_REDIS_URL: /)],
    );
    const mcp = loadConfig(McpGatewayConfig, { MCPGW_DATABASE_URL: 'postgres://h/m', MCPGW_REDIS_URL: 'redis://redis:6379', MCPGW_REPLICA_URL: 'http://10.0.0.7:4444' });
    expect([mcp.MCPGW_REDIS_URL, mcp.MCPGW_REPLICA_URL]).toEqual(['redis://redis:6379', 'http://10.0.0.7:4444']);
  });

  it("wants both halves of the MCP gateway's own client at the identity provider, and that provider", () => {
    const base = { MCPGW_DATABASE_URL: 'postgres://h/m' };
    expect(lines(() => loadConfig(McpGatewayConfig, { ...base, MCPGW_OIDC_CLIENT_ID: 'mcp-gateway' }))).toEqual([
      'MCPGW_OIDC_CLIENT_SECRET: is required with MCPGW_OIDC_CLIENT_ID',
      'MCPGW_OIDC_ISSUER_URL: is required with MCPGW_OIDC_CLIENT_ID: the client is there',
    ]);
    expect(lines(() => loadConfig(McpGatewayConfig, { ...base, MCPGW_OIDC_CLIENT_SECRET: 's' }))).toEqual([
      expect.stringMatching(/^MCPGW_OIDC_CLIENT_ID: is required with MCPGW_OIDC_CLIENT_SECRET/),
    ]);
    const config = loadConfig(McpGatewayConfig, {
      ...base,
      MCPGW_OIDC_ISSUER_URL: 'http://localhost:8090/realms/arbor',
      MCPGW_OIDC_CLIENT_ID: 'mcp-gateway',
      MCPGW_OIDC_CLIENT_SECRET: 'dev-mcp-gateway-secret',
    });
    expect([config.MCPGW_OIDC_CLIENT_ID, config.MCPGW_OIDC_CLIENT_SECRET]).toEqual(['mcp-gateway', 'dev-mcp-gateway-secret']);
  });

  it('listens where CP_DISPATCHER_LISTEN_ADDR says and needs the issuer once a target is set', () => {
    expect(loadConfig(SyncDispatcherConfig, { CP_DATABASE_URL: 'postgres://h/cp' }).listen).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(lines(() => loadConfig(SyncDispatcherConfig, { CP_DATABASE_URL: 'postgres://h/cp', CP_SHOP_API_URL: 'http://shop' }))).toEqual([
      expect.stringMatching(/^CP_M2M_CLIENT_ID: is required/),
      expect.stringMatching(/^CP_M2M_CLIENT_SECRET: is required/),
      expect.stringMatching(/^CP_OIDC_ISSUER_URL: is required/),
    ]);
  });
});
