import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BuiltService, freePort, startBuiltService } from './built-app';
import { personToken } from './dev-idp-tokens';
import { createTestDatabase, TestDatabase } from './test-database';

const root = path.resolve(__dirname, '../../../..');
const UI_CLIENT = 'arbor-control-plane';

export interface UiTestStack {
  /** The built control plane serving the built web UI, e.g. http://127.0.0.1:41234. */
  url: string;
  issuer: string;
  /** A demo person's access token through the password grant of this stack's identity provider. */
  token(username: string): Promise<string>;
  /** The control plane's answer to the workspace administrator's call; throws on an answer other than 2xx. */
  asAdmin(method: string, route: string, body?: unknown): Promise<{ id: string }>;
  /** Grants a demo person exactly these permissions (signing them in first, so that the control plane knows them). */
  grant(username: string, grants: { workspace: string[]; projects: Record<string, string[]> }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What a browser test of the web UI needs: the BUILT control-plane-api (with the web UI copied
 * next to it) on a fresh database, and its own dev identity provider whose UI client accepts
 * this control plane's address as a redirect URI (the realm export allows
 * http://localhost:8080/* only). The dev-idp runs as its own process, as under `npm start`.
 * Sets TEST_OIDC_ISSUER_URL so personToken() of this package asks the same provider.
 */
export interface UiTestStackOptions {
  /** Access-token lifetime in seconds (the realm's 300 by default); shorter makes the UI renew soon. */
  accessTokenLifespan?: number;
  /** Other public UI clients of the realm and the origin each one's UI runs at in this test, e.g. `{ 'arbor-ai-gateway': 'http://127.0.0.1:41235' }`. */
  uiClients?: Record<string, string>;
  /**
   * Public UI clients (code + PKCE) that only this test's realm has, e.g. another team's product
   * UI: client id → the origin its UI runs at and the audiences of its tokens (`control-plane`
   * for the shell endpoints, and the product's own).
   */
  testUiClients?: Record<string, { origin: string; audiences: string[] }>;
}

export async function startUiTestStack(env: Record<string, string> = {}, options: UiTestStackOptions = {}): Promise<UiTestStack> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'arbor-ui-realm-'));
  const realmFile = path.join(folder, 'realm.json');
  const realm = JSON.parse(readFileSync(path.join(root, 'deploy/keycloak/realm-export.json'), 'utf8')) as {
    accessTokenLifespan?: number;
    clients: RealmExportClient[];
  };
  for (const [clientId, { origin: clientOrigin, audiences }] of Object.entries(options.testUiClients ?? {})) {
    realm.clients.push(testUiClient(clientId, clientOrigin, audiences));
  }
  for (const [clientId, clientOrigin] of Object.entries({ [UI_CLIENT]: origin, ...options.uiClients })) {
    const client = realm.clients.find((candidate) => candidate.clientId === clientId);
    if (!client) throw new Error(`the realm export has no ${clientId} client`);
    Object.assign(client, { rootUrl: clientOrigin, redirectUris: [`${clientOrigin}/*`], webOrigins: [clientOrigin] });
  }
  if (options.accessTokenLifespan !== undefined) realm.accessTokenLifespan = options.accessTokenLifespan;
  writeFileSync(realmFile, JSON.stringify(realm));

  const stops: (() => Promise<void>)[] = [async () => rmSync(folder, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    const idp = await startIdpProcess(realmFile);
    stops.push(idp.stop);
    process.env['TEST_OIDC_ISSUER_URL'] = idp.issuer;
    const database: TestDatabase = await createTestDatabase('arbor_ui');
    stops.push(() => database.drop());
    const service: BuiltService = await startBuiltService(
      'control-plane-api',
      'CP_LISTEN_ADDR',
      {
        CP_DATABASE_URL: database.url,
        CP_OIDC_ISSUER_URL: idp.issuer,
        CP_OIDC_AUDIENCE: 'control-plane',
        CP_SECRETS_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
        CP_PUBLIC_URL: origin,
        CP_LOG: 'off',
        ...env,
      },
      port,
    );
    stops.push(async () => void (await service.kill('SIGTERM')));
    const asAdmin = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${origin}${route}`, {
        method,
        headers: { authorization: `Bearer ${await personToken('admin')}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    // GET /api/v1/me signs a person in (links the IdP subject to a user) and tells their id.
    const userId = async (username: string) =>
      ((await (await fetch(`${origin}/api/v1/me`, { headers: { authorization: `Bearer ${await personToken(username)}` } })).json()) as { id: string }).id;
    return {
      url: origin,
      issuer: idp.issuer,
      token: (username) => personToken(username),
      asAdmin,
      grant: async (username, grants) => void (await asAdmin('PUT', `/api/v1/users/${await userId(username)}/permissions`, grants)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface RealmExportClient {
  clientId: string;
  redirectUris?: string[];
  webOrigins?: string[];
  rootUrl?: string;
  [field: string]: unknown;
}

/** A public UI client in the realm export's (Keycloak's) shape, as `arbor-ai-gateway` is there. */
function testUiClient(clientId: string, origin: string, audiences: string[]): RealmExportClient {
  return {
    clientId,
    enabled: true,
    protocol: 'openid-connect',
    publicClient: true,
    standardFlowEnabled: true,
    directAccessGrantsEnabled: false,
    serviceAccountsEnabled: false,
    rootUrl: origin,
    baseUrl: '/',
    redirectUris: [`${origin}/*`],
    webOrigins: [origin],
    attributes: { 'pkce.code.challenge.method': 'S256', 'post.logout.redirect.uris': '+' },
    protocolMappers: audiences.map((audience) => ({
      name: `audience ${audience}`,
      protocol: 'openid-connect',
      protocolMapper: 'oidc-audience-mapper',
      config: { 'included.custom.audience': audience, 'id.token.claim': 'false', 'access.token.claim': 'true' },
    })),
  };
}

export interface BuiltMcpGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * The BUILT mcp-gateway serving its built UI beside a UI test stack: its own database, `config` as
 * its MCPGW_CONFIG, the stack's identity provider and control plane, on `port` (the origin the
 * stack registered for `arbor-mcp-gateway`, with `uiClients`); `env` adds or overrides settings.
 */
export async function startBuiltMcpGateway(stack: UiTestStack, options: { port: number; config: string; env?: Record<string, string> }): Promise<BuiltMcpGateway> {
  const folder = mkdtempSync(path.join(tmpdir(), 'arbor-ui-mcpgw-'));
  const configFile = path.join(folder, 'gateway.yaml');
  writeFileSync(configFile, options.config);
  const database = await createTestDatabase('arbor_ui_mcpgw');
  const stop = async (service?: BuiltService) => {
    await service?.kill('SIGTERM');
    await database.drop().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    const service = await startBuiltService(
      'mcp-gateway',
      'MCPGW_LISTEN_ADDR',
      {
        MCPGW_DATABASE_URL: database.url,
        MCPGW_CONFIG: configFile,
        MCPGW_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        MCPGW_LOG: 'off',
        MCPGW_OIDC_ISSUER_URL: stack.issuer,
        MCPGW_CONTROL_PLANE_URL: stack.url,
        MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
        MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
        MCPGW_PUBLIC_URL: `http://127.0.0.1:${options.port}`,
        ...options.env,
      },
      options.port,
    );
    return { url: service.url, stop: () => stop(service) };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startIdpProcess(realmFile: string): Promise<{ issuer: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'tools/dev-idp/src/main.ts')], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', DEV_IDP_PORT: String(port), DEV_IDP_ISSUER: `http://127.0.0.1:${port}/realms/arbor`, DEV_IDP_REALM_FILE: realmFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dev-idp did not start within 15 s:\n${output}`)), 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /dev-idp ready at (\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dev-idp exited with ${code}:\n${output}`));
    });
  });
  return {
    issuer,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
