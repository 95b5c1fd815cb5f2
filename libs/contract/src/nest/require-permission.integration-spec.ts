// @RequirePermission's ways of finding the project, several roles, a product's own credential
// and a product running without the suite: a small product app against the built control plane,
// real PostgreSQL and dev-idp tokens.
import { Body, Controller, Get, Injectable, INestApplication, Module, Param, Patch, Post, Req } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { IncomingMessage } from 'node:http';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test code, left out of the built package (tsconfig.lib.json), which imports nothing of ours
import { personToken, testIssuer } from '@arbor/testing';
import request from 'supertest';
import { ContractHttpError } from '../errors/contract-http-error';
import { BuiltControlPlane, provision, startBuiltControlPlane } from '../testing/built-control-plane';
import { ControlPlaneModule } from './control-plane.module';
import type { GuardedRequest, ProjectResolver, RouteProject } from './control-plane.options';
import { PermissionGuard } from './permission.guard';
import { projectInBody, projectInQuery } from './project-locators';
import { CurrentCaller, PermittedProjects, RequirePermission } from './require-permission.decorator';

const REPORTS: Record<string, string> = { r1: 'alpha', r2: 'beta' };
const OWN_KEY = 'product-master-key';

/** A resource id to its project, as a product's own store would say. */
@Injectable()
class ReportProject implements ProjectResolver {
  projectOf(request: GuardedRequest): RouteProject {
    const project = REPORTS[request.params?.['id'] ?? ''];
    if (!project) throw new ContractHttpError(404, 'report_not_found', 'No such report.');
    return { slug: project };
  }
}

@Controller('reports')
class ReportsController {
  constructor(private readonly permissions: PermissionGuard) {}

  @Get()
  @RequirePermission('ai-gateway', ['viewer', 'operator'], { project: 'any' })
  list(@PermittedProjects() projects: 'all' | string[]) {
    return { projects };
  }

  @Get('spend')
  @RequirePermission('ai-gateway', ['viewer', 'operator'], { project: projectInQuery() })
  spend() {
    return { ok: true };
  }

  @Post()
  @RequirePermission('ai-gateway', 'operator', { project: projectInBody() })
  create(@Body() body: { project: string }) {
    return { created: body.project };
  }

  @Get(':id')
  @RequirePermission('ai-gateway', ['viewer', 'operator'], { project: ReportProject })
  read(@Param('id') id: string, @CurrentCaller() caller?: { subject: string }) {
    return { id, by: caller?.subject ?? 'own credential' };
  }

  @Patch(':id')
  @RequirePermission('ai-gateway', 'operator', { project: ReportProject })
  async move(@Req() request: GuardedRequest, @Body() body: { project: string }) {
    await this.permissions.requireOn(request, 'ai-gateway', 'operator', { slug: body.project });
    return { moved: body.project };
  }
}

const ownCredential = (request: IncomingMessage) => request.headers.authorization === `Bearer ${OWN_KEY}`;

async function productApp(controlPlane: ReturnType<typeof ControlPlaneModule.forRoot>): Promise<INestApplication> {
  @Module({ imports: [controlPlane], controllers: [ReportsController], providers: [ReportProject] })
  class ProductModule {}
  const moduleRef = await Test.createTestingModule({ imports: [ProductModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  return app;
}

describe('@RequirePermission options (the contract guard both Arbor gateways use)', () => {
  let cp: BuiltControlPlane;
  let app: INestApplication;
  const tokens = { alice: '', bob: '', carol: '' };

  beforeAll(async () => {
    cp = await startBuiltControlPlane();
    [tokens.alice, tokens.bob, tokens.carol] = await Promise.all([personToken('alice'), personToken('bob'), personToken('carol')]);
    const ids = { alice: await provision(cp.url, tokens.alice), bob: await provision(cp.url, tokens.bob), carol: await provision(cp.url, tokens.carol) };
    for (const slug of ['alpha', 'beta']) await cp.admin('POST', '/api/v1/projects', { slug, name: slug });
    await cp.admin('PUT', `/api/v1/users/${ids.alice}/permissions`, { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    await cp.admin('PUT', `/api/v1/users/${ids.bob}/permissions`, { workspace: ['ai-gateway'], projects: { beta: ['ai-gateway.viewer'] } });
    await cp.admin('PUT', `/api/v1/users/${ids.carol}/permissions`, { workspace: ['ai-gateway', 'ai-gateway.viewer'], projects: {} });
    app = await productApp(
      ControlPlaneModule.forRoot({
        baseUrl: cp.url,
        issuer: testIssuer(),
        clientId: 'ai-gateway-m2m',
        clientSecret: 'dev-ai-gateway-m2m-secret',
        audience: 'ai-gateway',
        projectIdParams: [],
        authorizeOwnCredential: ownCredential,
      }),
    );
  });

  afterAll(async () => {
    await app?.close();
    await cp?.close();
  });

  const get = (path: string, token: string) => request(app.getHttpServer()).get(path).auth(token, { type: 'bearer' });

  it("names, on a list route, only the projects where one of the roles counts ('all' workspace-wide), and refuses nowhere", async () => {
    expect((await get('/reports', tokens.alice)).body).toEqual({ projects: ['alpha'] });
    expect((await get('/reports', tokens.bob)).body).toEqual({ projects: ['beta'] });
    expect((await get('/reports', tokens.carol)).body).toEqual({ projects: 'all' });
    const nobody = await get('/reports', await personToken('admin'));
    expect(nobody.status).toBe(403);
    expect(nobody.body.error.code).toBe('forbidden');
  });

  it('finds the project through a resolver of the product, its own 404 included', async () => {
    expect((await get('/reports/r1', tokens.alice)).status).toBe(200);
    expect((await get('/reports/r2', tokens.alice)).status).toBe(403);
    expect((await get('/reports/r2', tokens.bob)).status).toBe(200);
    const unknown = await get('/reports/r9', tokens.alice);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('report_not_found');
  });

  it('finds the project in the query or the body; a body without one is a workspace question', async () => {
    expect((await get('/reports/spend?project=beta', tokens.bob)).status).toBe(200);
    expect((await get('/reports/spend?project=alpha', tokens.bob)).status).toBe(403);
    const create = (token: string, body: object) => request(app.getHttpServer()).post('/reports').auth(token, { type: 'bearer' }).send(body);
    expect((await create(tokens.alice, { project: 'alpha' })).status).toBe(201);
    const refused = await create(tokens.alice, { project: 'beta' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('This needs the permission ai-gateway.operator on project beta (together with ai-gateway).');
    expect((await create(tokens.alice, {})).body.error.message).toContain('at workspace level');
  });

  it('decides a second project of the same request with requireOn()', async () => {
    const move = (token: string, id: string, project: string) => request(app.getHttpServer()).patch(`/reports/${id}`).auth(token, { type: 'bearer' }).send({ project });
    expect((await move(tokens.alice, 'r1', 'alpha')).status).toBe(200);
    expect((await move(tokens.alice, 'r1', 'beta')).status).toBe(403);
    expect((await move(OWN_KEY, 'r1', 'beta')).status).toBe(200);
  });

  it("lets the product's own credential through everywhere, with every project permitted", async () => {
    expect((await get('/reports', OWN_KEY)).body).toEqual({ projects: 'all' });
    expect((await get('/reports/r2', OWN_KEY)).body).toEqual({ id: 'r2', by: 'own credential' });
  });
});

describe('ControlPlaneModule.notConfigured (a product running without the suite)', () => {
  it("serves the product's own credential and tells a person's token why not", async () => {
    const app = await productApp(
      ControlPlaneModule.notConfigured({ message: 'Set CONTROL_PLANE_URL to let persons in.', details: { missing: ['CONTROL_PLANE_URL'] }, authorizeOwnCredential: ownCredential }),
    );
    try {
      expect((await request(app.getHttpServer()).get('/reports').auth(OWN_KEY, { type: 'bearer' })).body).toEqual({ projects: 'all' });
      const person = await request(app.getHttpServer())
        .get('/reports')
        .auth(await personToken('alice'), { type: 'bearer' });
      expect(person.status).toBe(503);
      expect(person.body.error).toEqual({ code: 'control_plane_not_configured', message: 'Set CONTROL_PLANE_URL to let persons in.', details: { missing: ['CONTROL_PLANE_URL'] } });
      expect((await request(app.getHttpServer()).get('/reports')).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});
