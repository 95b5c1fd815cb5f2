// What an operator sees when a built service cannot have its address or its database: one line
// naming the variable to change, exit code 1, no stack (it is a setting, not a bug).
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:net';
import { createTestDatabase, freePort, runBuiltApp, TestDatabase } from '@arbor/testing';

interface BuiltService {
  app: string;
  listenVariable: string;
  databaseVariable: string;
  /** What else the service needs to start. */
  env: Record<string, string>;
}

const SERVICES: BuiltService[] = [
  {
    app: 'control-plane-api',
    listenVariable: 'CP_LISTEN_ADDR',
    databaseVariable: 'CP_DATABASE_URL',
    env: { CP_OIDC_ISSUER_URL: 'http://127.0.0.1:9/realms/test', CP_OIDC_AUDIENCE: 'control-plane', CP_SECRETS_MASTER_KEY: randomBytes(32).toString('base64') },
  },
  { app: 'sync-dispatcher', listenVariable: 'CP_DISPATCHER_LISTEN_ADDR', databaseVariable: 'CP_DATABASE_URL', env: {} },
  { app: 'ai-gateway', listenVariable: 'AIGW_LISTEN_ADDR', databaseVariable: 'AIGW_DATABASE_URL', env: {} },
  { app: 'mcp-gateway', listenVariable: 'MCPGW_LISTEN_ADDR', databaseVariable: 'MCPGW_DATABASE_URL', env: {} },
];

/** Every line a failed start wrote, on either stream. */
function linesOf(result: { stdout: string; stderr: string }): string[] {
  return `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
}

describe('a service that cannot start', () => {
  let database: TestDatabase;
  let squatter: Server;
  let takenPort: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    takenPort = (squatter.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => squatter.close(resolve));
    await database.drop();
  });

  describe.each(SERVICES)('$app', (service) => {
    it('on a taken port names its listen variable in one line, exits 1, no stack', async () => {
      const result = await runBuiltApp(service.app, {
        ...service.env,
        [service.databaseVariable]: database.url,
        [service.listenVariable]: `127.0.0.1:${takenPort}`,
        LOG_FORMAT: 'json',
      });
      expect(result.code).toBe(1);
      const problem = linesOf(result).filter((line) => /EADDRINUSE|in use/.test(line));
      expect(problem).toEqual([`failed to start: ${service.listenVariable}: 127.0.0.1:${takenPort} is already in use; set ${service.listenVariable} to a free address`]);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });

    it('with an unreachable database names its database variable in one line, exits 1, no stack', async () => {
      const nobody = await freePort();
      const result = await runBuiltApp(service.app, {
        ...service.env,
        [service.databaseVariable]: `postgres://arbor:secret-password@127.0.0.1:${nobody}/arbor`,
        [service.listenVariable]: '127.0.0.1:0',
        LOG_FORMAT: 'json',
      });
      expect(result.code).toBe(1);
      const problem = linesOf(result).filter((line) => /ECONNREFUSED|database/i.test(line) && !/"level":"info"/.test(line));
      expect(problem).toEqual([
        `failed to start: ${service.databaseVariable}: cannot connect to the database at 127.0.0.1:${nobody}/arbor: connect ECONNREFUSED 127.0.0.1:${nobody}`,
      ]);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at |secret-password/m);
    });
  });
});
