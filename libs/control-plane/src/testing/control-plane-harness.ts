// Test-only (not exported): the real control plane on real HTTP, a fresh PostgreSQL database,
// and real tokens from the dev identity provider the jest run started.
import { ControlPlaneConfig } from '@arbor/config';
import { RunningService, startService } from '@arbor/platform';
import { createTestDatabase, machineToken, personToken, testIssuer, TestDatabase } from '@arbor/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { controlPlaneService } from '../control-plane-api.module';

export const TEST_MASTER_KEY = Buffer.alloc(32, 42).toString('base64');

export interface ControlPlaneHarness {
  url: string;
  service: RunningService<ControlPlaneConfig>;
  /** The service's own connection, for reading rows directly. */
  dataSource: DataSource;
  database: TestDatabase;
  /** A bearer token of a demo person (admin, alice, bob, carol). */
  person(username: string): Promise<string>;
  /** A bearer token of a machine client (ai-gateway-m2m, mcp-gateway-m2m, control-plane-m2m). */
  machine(clientId?: string): Promise<string>;
  /** The control plane user id of a demo person (provisioned by a first call if needed). */
  userId(username: string): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /**
   * Run on this database instead of a fresh one, e.g. to restart the service on the data an
   * earlier harness left; close() then leaves it for its owner to drop.
   */
  database?: TestDatabase;
}

export async function startControlPlane(env: Record<string, string> = {}, options: HarnessOptions = {}): Promise<ControlPlaneHarness> {
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await createTestDatabase());
  const service = await startService(controlPlaneService, {
    CP_DATABASE_URL: database.url,
    CP_OIDC_ISSUER_URL: testIssuer(),
    CP_OIDC_AUDIENCE: 'control-plane',
    CP_SECRETS_MASTER_KEY: TEST_MASTER_KEY,
    CP_LISTEN_ADDR: '127.0.0.1:0',
    CP_LOG: 'off',
    LOG_FORMAT: 'json',
    CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
    CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
    ...env,
  });
  const tokens = new Map<string, Promise<string>>();
  const cached = (key: string, fetch: () => Promise<string>) => {
    const token = tokens.get(key) ?? fetch();
    tokens.set(key, token);
    return token;
  };
  const harness: ControlPlaneHarness = {
    url: service.url,
    service,
    dataSource: service.app.get(DataSource),
    database,
    person: (username) => cached(`person:${username}`, () => personToken(username)),
    machine: (clientId = 'ai-gateway-m2m') => cached(`machine:${clientId}`, () => machineToken(clientId)),
    userId: async (username) => {
      const response = await request(service.url)
        .get('/api/v1/me')
        .auth(await harness.person(username), { type: 'bearer' });
      if (response.status !== 200) throw new Error(`GET /api/v1/me for ${username} answered ${response.status}`);
      return (response.body as { id: string }).id;
    },
    close: async () => {
      await service.close();
      if (ownsDatabase) await database.drop();
    },
  };
  return harness;
}
