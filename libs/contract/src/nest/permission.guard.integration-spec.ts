// The guard with the control plane unreachable: a product fails closed, answering 503, and never
// lets the request through. Real dev-idp tokens; the control plane is a closed port.
import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test-only: real tokens from the dev identity provider; not part of the package
import { freePort, personToken, testIssuer } from '@arbor/testing';
import request from 'supertest';
import { ControlPlaneModule } from './control-plane.module';
import { RequirePermission } from './require-permission.decorator';

@Controller('projects/:project')
class ReportsController {
  calls = 0;

  @Get('reports')
  @RequirePermission('ai-gateway', 'viewer')
  reports(): { ok: true } {
    this.calls += 1;
    return { ok: true };
  }
}

describe('@RequirePermission when the control plane cannot be reached', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const closedPort = await freePort();
    @Module({
      imports: [
        ControlPlaneModule.forRoot({
          baseUrl: `http://127.0.0.1:${closedPort}`,
          issuer: testIssuer(),
          clientId: 'ai-gateway-m2m',
          clientSecret: 'dev-ai-gateway-m2m-secret',
          audience: 'ai-gateway',
          timeoutMs: 1000,
        }),
      ],
      controllers: [ReportsController],
    })
    class ProductModule {}
    const moduleRef = await Test.createTestingModule({ imports: [ProductModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(() => app.close());

  it('fails closed with 503 control_plane_unavailable and does not run the handler', async () => {
    const response = await request(app.getHttpServer())
      .get('/projects/alpha/reports')
      .auth(await personToken('alice'), { type: 'bearer' });
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('control_plane_unavailable');
    expect(app.get(ReportsController).calls).toBe(0);
  });
});
