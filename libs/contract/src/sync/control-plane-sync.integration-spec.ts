// The sync receiver in small product apps on real HTTP, with real tokens from the dev identity provider.
import { spawn, ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CanActivate, Controller, ExecutionContext, Get, INestApplication, Inject, Injectable, Module, ModuleMetadata, Req, Type, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test code, left out of the built package (tsconfig.lib.json), which imports nothing of ours
import { edgeValidationPipe, ErrorEnvelopeFilter } from '@arbor/platform';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test code, left out of the built package (tsconfig.lib.json), which imports nothing of ours
import { machineToken, personToken, testIssuer } from '@arbor/testing';
import request from 'supertest';
import { ControlPlaneSyncModule, ControlPlaneSyncOptions, OnProjectsChanged, ProjectSyncContext, TokenVerifier, VerifiedCaller } from '../index';

const CUSTOM_PATH = '/admin/sync/control-plane/projects';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

interface Product {
  url: string;
  calls: { slugs: string[]; context: ProjectSyncContext }[];
  close(): Promise<void>;
}

interface ProductSetup {
  sync: Omit<ControlPlaneSyncOptions, 'handler'> & Partial<Pick<ControlPlaneSyncOptions, 'handler'>>;
  /** The product's own modules (its own authentication, the module that provides a handler class…). */
  imports?: ModuleMetadata['imports'];
  /** As an Arbor service: the platform's error envelope and its edge validation pipe (whitelist, forbid unknown fields). */
  arborPlatform?: boolean;
  /** Import the receiver before the product's own modules (global modules bind in import order). */
  receiverFirst?: boolean;
}

/** A product app on a free port; without a handler of its own it records every call. */
async function startProduct(setup: ProductSetup): Promise<Product & { app: INestApplication }> {
  const calls: Product['calls'] = [];
  const handler = setup.sync.handler ?? ((slugs: string[], context: ProjectSyncContext) => void calls.push({ slugs, context }));

  const receiver = ControlPlaneSyncModule.forRoot({ ...setup.sync, handler });
  const own = setup.imports ?? [];

  @Module({ imports: setup.receiverFirst ? [receiver, ...own] : [...own, receiver] })
  class ProductModule {}

  const app = await NestFactory.create(ProductModule, { logger: false, abortOnError: false });
  if (setup.arborPlatform) {
    app.useGlobalFilters(new ErrorEnvelopeFilter());
    app.useGlobalPipes(edgeValidationPipe());
  }
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, calls, close: () => app.close() };
}

function post(product: { url: string }, route: string, token: string | undefined, body: unknown) {
  const call = request(product.url).post(route).set('traceparent', TRACEPARENT);
  if (token !== undefined) call.auth(token, { type: 'bearer' });
  return call.send(body as object);
}

const OWN_VERIFIER = Symbol('product-own-verifier');
type OwnRequest = { headers: Record<string, string | undefined>; ownCaller?: VerifiedCaller };

/** The product's own authentication: a verifier of its own, for its own audience, on its own routes. */
@Injectable()
class ProductOwnGuard implements CanActivate {
  constructor(@Inject(OWN_VERIFIER) private readonly verifier: TokenVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<OwnRequest>();
    request.ownCaller = await this.verifier.authenticate(request);
    return true;
  }
}

@Controller('own')
class ProductOwnController {
  @Get()
  @UseGuards(ProductOwnGuard)
  whoAmI(@Req() request: OwnRequest): { client_id?: string } {
    return { client_id: request.ownCaller?.clientId };
  }
}

/** The product's own API, for tokens of `audience`. */
function productOwnModule(audience: string): Type<unknown> {
  @Module({ controllers: [ProductOwnController], providers: [{ provide: OWN_VERIFIER, useValue: new TokenVerifier({ issuer: testIssuer(), audience }) }, ProductOwnGuard] })
  class ProductOwnModule {}
  return ProductOwnModule;
}

/** A product service the handler class depends on, as a real product's would. */
@Injectable()
class ProjectStore {
  readonly reread: string[][] = [];
}

@Injectable()
class ProjectResync implements OnProjectsChanged {
  constructor(private readonly store: ProjectStore) {}

  projectsChanged(slugs: string[]): void {
    this.store.reread.push(slugs);
  }
}

@Module({ providers: [ProjectStore, ProjectResync] })
class ProjectsFeatureModule {}

describe('ControlPlaneSyncModule (the product side of project sync)', () => {
  let controlPlane: string;
  let aiGatewayM2m: string;
  let alice: string;
  let aiGateway: Product;
  let mcpGateway: Product & { app: INestApplication };

  beforeAll(async () => {
    [controlPlane, aiGatewayM2m, alice] = await Promise.all([machineToken('control-plane-m2m'), machineToken('ai-gateway-m2m'), personToken('alice')]);
    // An Arbor product: its own authentication for the same audience, the platform's envelope and pipe, the default path.
    aiGateway = await startProduct({
      sync: { issuer: testIssuer(), audience: 'ai-gateway' },
      imports: [productOwnModule('ai-gateway'), ProjectsFeatureModule],
      arborPlatform: true,
    });
    // A plain Nest app of another team: no authentication of its own, a handler class, the other path.
    mcpGateway = await startProduct({
      sync: { issuer: testIssuer(), audience: 'mcp-gateway', path: CUSTOM_PATH, handler: ProjectResync },
      imports: [ProjectsFeatureModule],
    });
  });

  afterAll(async () => {
    await Promise.all([aiGateway?.close(), mcpGateway?.close()]);
  });

  beforeEach(() => {
    aiGateway.calls.length = 0;
  });

  it("accepts the control plane's token on the default path, answers 204 and hands the slugs and trace context to the handler", async () => {
    const response = await post(aiGateway, '/api/v1/sync/control-plane/projects', controlPlane, { slugs: ['payments', 'search'] });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(aiGateway.calls).toEqual([{ slugs: ['payments', 'search'], context: { clientId: 'control-plane-m2m', traceparent: TRACEPARENT } }]);
  });

  it('serves a custom path instead of the default one, calling a handler class the product provides', async () => {
    const store = mcpGateway.app.get(ProjectStore, { strict: false });
    const response = await post(mcpGateway, CUSTOM_PATH, controlPlane, { slugs: ['payments'] });
    expect(response.status).toBe(204);
    expect(store.reread).toEqual([['payments']]);
    expect((await post(mcpGateway, '/api/v1/sync/control-plane/projects', controlPlane, { slugs: ['payments'] })).status).toBe(404);
    expect(store.reread).toHaveLength(1);
  });

  it('refuses a missing token and a token for another audience with 401, before reading the body', async () => {
    const missing = await post(aiGateway, '/api/v1/sync/control-plane/projects', undefined, { slugs: ['payments'] });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('missing_token');
    // ai-gateway-m2m's token is meant for the control plane (aud control-plane), not for a product.
    const wrongAudience = await post(aiGateway, '/api/v1/sync/control-plane/projects', aiGatewayM2m, { slugs: ['payments'] });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.body.error).toMatchObject({ code: 'invalid_token', message: expect.stringMatching(/audience/) });
    expect((await post(aiGateway, '/api/v1/sync/control-plane/projects', undefined, { slugs: 'not a list' })).status).toBe(401);
    expect((await post(mcpGateway, CUSTOM_PATH, aiGatewayM2m, { slugs: ['payments'] })).status).toBe(401);
    expect(aiGateway.calls).toEqual([]);
  });

  it("refuses a valid token of this product's audience from any client but the control plane's with 403", async () => {
    // alice's dev-cli token carries aud ai-gateway and mcp-gateway (the dashboard call), so only the client check stops it.
    const person = await post(aiGateway, '/api/v1/sync/control-plane/projects', alice, { slugs: ['payments'] });
    expect(person.status).toBe(403);
    expect(person.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('control-plane-m2m') });
    expect((await post(mcpGateway, CUSTOM_PATH, alice, { slugs: ['payments'] })).status).toBe(403);
    expect(aiGateway.calls).toEqual([]);
  });

  it('refuses a body that is not {"slugs": [strings]} with 400 naming the field', async () => {
    const bad: [unknown, string][] = [
      [{}, 'slugs'],
      [{ slugs: 'payments' }, 'slugs'],
      [{ slugs: ['payments', 3] }, 'slugs'],
      [{ slugs: [''] }, 'slugs'],
      [['payments'], 'body'],
    ];
    for (const [body, field] of bad) {
      const response = await post(aiGateway, '/api/v1/sync/control-plane/projects', controlPlane, body);
      expect({ body, status: response.status, code: response.body.error?.code }).toEqual({ body, status: 400, code: 'invalid_request' });
      expect(Object.keys(response.body.error.details.fields)).toEqual([field]);
    }
    const notJson = await request(aiGateway.url).post('/api/v1/sync/control-plane/projects').auth(controlPlane, { type: 'bearer' }).type('text/plain').send('payments');
    expect(notJson.status).toBe(400);
    // A plain Nest app without Arbor's error envelope answers 400 too.
    expect((await post(mcpGateway, CUSTOM_PATH, controlPlane, { slugs: [1] })).status).toBe(400);
    expect(aiGateway.calls).toEqual([]);
  });

  it('ignores fields it does not know (even under a pipe that forbids them), passes each slug once, and skips an empty list', async () => {
    const extended = await post(aiGateway, '/api/v1/sync/control-plane/projects', controlPlane, { slugs: ['search', 'payments', 'search'], reason: 'renamed' });
    expect(extended.status).toBe(204);
    const empty = await post(aiGateway, '/api/v1/sync/control-plane/projects', controlPlane, { slugs: [] });
    expect(empty.status).toBe(204);
    expect(aiGateway.calls.map(({ slugs }) => slugs)).toEqual([['search', 'payments']]);
  });

  it.each([false, true])(
    "leaves the product's own authentication alone, and is not swayed by it, when their audiences differ (receiver imported first: %s)",
    async (receiverFirst) => {
      // The product's API is for `control-plane` tokens (an odd product, but it tells the two verifiers apart).
      const product = await startProduct({
        receiverFirst,
        sync: { issuer: testIssuer(), audience: 'ai-gateway' },
        imports: [productOwnModule('control-plane')],
      });
      try {
        expect((await post(product, '/api/v1/sync/control-plane/projects', controlPlane, { slugs: ['payments'] })).status).toBe(204);
        expect((await post(product, '/api/v1/sync/control-plane/projects', aiGatewayM2m, { slugs: ['payments'] })).status).toBe(401);
        const own = await request(product.url).get('/own').auth(aiGatewayM2m, { type: 'bearer' });
        expect(own.status).toBe(200);
        expect(own.body).toEqual({ client_id: 'ai-gateway-m2m' });
        expect((await request(product.url).get('/own').auth(controlPlane, { type: 'bearer' })).status).toBe(401);
        expect(product.calls).toHaveLength(1);
      } finally {
        await product.close();
      }
    },
  );
});

describe('ControlPlaneSyncModule handlers', () => {
  let controlPlane: string;

  beforeAll(async () => {
    controlPlane = await machineToken('control-plane-m2m');
  });

  it('answers 500 sync_handler_failed when the handler throws or rejects, so that the control plane delivers again', async () => {
    const product = await startProduct({
      sync: {
        issuer: testIssuer(),
        audience: 'ai-gateway',
        handler: async (slugs) => {
          if (slugs.includes('throws')) throw new Error('database down');
          await new Promise((_, reject) => setTimeout(() => reject(new Error('timed out re-reading')), 10));
        },
      },
      arborPlatform: true,
    });
    try {
      for (const slugs of [['throws'], ['rejects']]) {
        const response = await post(product, '/api/v1/sync/control-plane/projects', controlPlane, { slugs });
        expect(response.status).toBe(500);
        // The cause stays in the product's log, not in the answer.
        expect(response.body.error).toEqual({ code: 'sync_handler_failed', message: expect.not.stringMatching(/database|timed out/) });
      }
    } finally {
      await product.close();
    }
  });

  it('answers only once the handler has finished', async () => {
    let finished = false;
    const product = await startProduct({
      sync: {
        issuer: testIssuer(),
        audience: 'ai-gateway',
        handler: async () => {
          await new Promise((resolve) => setTimeout(resolve, 150));
          finished = true;
        },
      },
    });
    try {
      const response = await post(product, '/api/v1/sync/control-plane/projects', controlPlane, { slugs: ['payments'] });
      expect(response.status).toBe(204);
      expect(finished).toBe(true);
    } finally {
      await product.close();
    }
  });

  it('refuses to start when the handler class is not provided by the app, or an option is bad', async () => {
    await expect(startProduct({ sync: { issuer: testIssuer(), audience: 'ai-gateway', handler: ProjectResync } })).rejects.toThrow(
      /handler ProjectResync is not a provider of this application/,
    );
    const bad = () => ControlPlaneSyncModule.forRoot({ issuer: 'not a url', audience: '', path: '/api/:id', controlPlaneClientId: ' ', handler: () => undefined });
    expect(bad).toThrow(/^ControlPlaneSyncModule\.forRoot: path must be .*; controlPlaneClientId must be .*; issuer must be .*; audience must be/);
  });
});

/** A second dev identity provider whose control-plane-m2m client has the audience mcp-gateway only. */
function startSingleAudienceIdp(): Promise<{ issuer: string; stop(): void }> {
  const root = path.resolve(__dirname, '../../../..');
  const realm = JSON.parse(readFileSync(path.join(root, 'deploy/keycloak/realm-export.json'), 'utf8')) as {
    clients: { clientId: string; protocolMappers?: { protocolMapper: string; config?: Record<string, string> }[] }[];
  };
  const m2m = realm.clients.find((client) => client.clientId === 'control-plane-m2m')!;
  m2m.protocolMappers = m2m.protocolMappers!.filter((mapper) => !(mapper.protocolMapper === 'oidc-audience-mapper' && Object.values(mapper.config ?? {}).includes('ai-gateway')));
  const dir = mkdtempSync(path.join(tmpdir(), 'arbor-contract-realm-'));
  writeFileSync(path.join(dir, 'realm.json'), JSON.stringify(realm));
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'tools/dev-idp/src/main.ts')], {
    cwd: root,
    env: { ...process.env, DEV_IDP_PORT: '0', DEV_IDP_REALM_FILE: path.join(dir, 'realm.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`dev-idp exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /dev-idp ready at (\S+)/.exec(chunk.toString());
      if (match) resolve({ issuer: match[1], stop });
    });
  });
}

describe('two receivers in one process', () => {
  let idp: { issuer: string; stop(): void };
  let aiGateway: Product;
  let mcpGateway: Product;

  beforeAll(async () => {
    idp = await startSingleAudienceIdp();
    aiGateway = await startProduct({ sync: { issuer: idp.issuer, audience: 'ai-gateway' } });
    mcpGateway = await startProduct({ sync: { issuer: idp.issuer, audience: 'mcp-gateway', path: CUSTOM_PATH } });
  });

  afterAll(async () => {
    await Promise.all([aiGateway?.close(), mcpGateway?.close()]);
    idp?.stop();
  });

  it('each enforce their own audience', async () => {
    const response = await fetch(`${idp.issuer}/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'control-plane-m2m', client_secret: 'dev-control-plane-m2m-secret' }),
    });
    const { access_token: mcpOnly } = (await response.json()) as { access_token: string };
    expect(JSON.parse(Buffer.from(mcpOnly.split('.')[1], 'base64url').toString()).aud).toBe('mcp-gateway');

    expect((await post(mcpGateway, CUSTOM_PATH, mcpOnly, { slugs: ['payments'] })).status).toBe(204);
    expect((await post(aiGateway, '/api/v1/sync/control-plane/projects', mcpOnly, { slugs: ['payments'] })).status).toBe(401);
    expect(mcpGateway.calls.map(({ slugs }) => slugs)).toEqual([['payments']]);
    expect(aiGateway.calls).toEqual([]);
  });
});
