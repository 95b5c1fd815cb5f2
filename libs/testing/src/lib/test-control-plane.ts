import { BuiltService, startBuiltService } from './built-app';
import { personToken, testIssuer } from './dev-idp-tokens';
import { createTestDatabase, TestDatabase } from './test-database';

/** A person's grants in the shape of PUT /api/v1/users/{id}/permissions. */
export interface TestGrants {
  workspace: string[];
  projects: Record<string, string[]>;
}

export interface TestControlPlane {
  url: string;
  /** Its database, for tests that look at what it stored. */
  databaseUrl: string;
  /** The file its route table is in (BuiltService.routeTable). */
  routeTable: string;
  /** Dev-idp access tokens of the demo users, each signed in (provisioned) once. */
  tokens: Record<'admin' | 'alice' | 'bob' | 'carol', string>;
  /** The control plane's user ids of the demo users (what a product names a person by). */
  ids: Record<'alice' | 'bob' | 'carol', string>;
  /** Grants a demo user exactly these permissions. */
  grant(user: 'alice' | 'bob' | 'carol', grants: TestGrants): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The BUILT control plane (dist/apps/control-plane-api; the test target must build it first) on a
 * fresh database, knowing the ai-gateway and mcp-gateway products, with `projects` created and
 * the demo users signed in — what a product's tests need to have permissions decided for real.
 */
export async function startTestControlPlane(projects: readonly string[] = ['alpha', 'beta']): Promise<TestControlPlane> {
  const database: TestDatabase = await createTestDatabase('arbor_cp');
  let service: BuiltService;
  try {
    service = await startBuiltService('control-plane-api', 'CP_LISTEN_ADDR', {
      CP_DATABASE_URL: database.url,
      CP_OIDC_ISSUER_URL: testIssuer(),
      CP_OIDC_AUDIENCE: 'control-plane',
      CP_SECRETS_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
      CP_LOG: 'off',
      // Products with a suite URL are known to the control plane, so their keys can be granted.
      CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
      CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const call = async (method: string, route: string, token: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${service.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`control plane: ${method} ${route} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const [admin, alice, bob, carol] = await Promise.all(['admin', 'alice', 'bob', 'carol'].map((name) => personToken(name)));
  const tokens = { admin: admin as string, alice: alice as string, bob: bob as string, carol: carol as string };
  // GET /api/v1/me signs a person in (links the IdP subject to a user) and tells their id.
  const ids = Object.fromEntries(
    await Promise.all((['alice', 'bob', 'carol'] as const).map(async (user) => [user, (await call('GET', '/api/v1/me', tokens[user]))['id'] as string])),
  ) as Record<'alice' | 'bob' | 'carol', string>;
  for (const slug of projects) await call('POST', '/api/v1/projects', tokens.admin, { slug, name: slug });
  let stopped: Promise<void> | undefined;
  return {
    url: service.url,
    databaseUrl: database.url,
    routeTable: service.routeTable,
    tokens,
    ids,
    grant: async (user, grants) => {
      await call('PUT', `/api/v1/users/${ids[user]}/permissions`, tokens.admin, grants);
    },
    // Also mid-test (the control plane going away); later calls wait for the first.
    stop: () =>
      (stopped ??= (async () => {
        await service.kill('SIGTERM');
        await database.drop();
      })()),
  };
}
