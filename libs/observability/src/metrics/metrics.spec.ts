import { Controller, Get, Injectable, INestApplication, Module, NotFoundException, Param } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Counter } from 'prom-client';
import request from 'supertest';
import { startObservedApp } from '../testing/observed-app';
import { MetricsRegistry } from './metrics-registry';
import { MetricsModule } from './metrics.module';

@Injectable()
class DeliveryCounter {
  readonly delivered: Counter<'product'>;
  constructor(registry: MetricsRegistry) {
    this.delivered = new Counter({ name: 'outbox_deliveries_total', help: 'Deliveries.', labelNames: ['product'], registers: [registry] });
  }
}

@Controller('projects')
class ProjectsController {
  constructor(private readonly deliveries: DeliveryCounter) {}

  @Get(':id')
  get(@Param('id') id: string): { id: string } {
    if (id === 'missing') throw new NotFoundException();
    this.deliveries.delivered.inc({ product: 'ai-gateway' });
    return { id };
  }
}

function histogramCount(body: string, labels: string): number {
  const line = body.split('\n').find((l) => l.startsWith('http_server_request_duration_seconds_count{') && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('metrics', () => {
  let app: INestApplication;

  beforeAll(async () => {
    ({ app } = await startObservedApp({ serviceName: 'control-plane', controllers: [ProjectsController], providers: [DeliveryCounter] }));
  });
  afterAll(() => app.close());

  it('serves Prometheus text at /metrics', async () => {
    const response = await request(app.getHttpServer()).get('/metrics').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.text).toContain('# TYPE arbor_process_cpu_seconds_total counter');
    expect(response.text).toContain('arbor_nodejs_eventloop_lag_seconds{service="control-plane"}');
  });

  it('records request durations by method, route pattern and status code', async () => {
    await request(app.getHttpServer()).get('/projects/42').expect(200);
    await request(app.getHttpServer()).get('/projects/43').expect(200);
    await request(app.getHttpServer()).get('/projects/missing').expect(404);
    await request(app.getHttpServer()).get('/no/such/route/7').expect(404);

    const body = (await request(app.getHttpServer()).get('/metrics').expect(200)).text;
    expect(body).toContain('# TYPE http_server_request_duration_seconds histogram');
    expect(histogramCount(body, 'method="GET",route="/projects/:id",status_code="200"')).toBe(2);
    expect(histogramCount(body, 'method="GET",route="/projects/:id",status_code="404"')).toBe(1);
    expect(histogramCount(body, 'route="unmatched",status_code="404"')).toBe(1);
    expect(body).toMatch(/http_server_request_duration_seconds_bucket\{le="0.005",service="control-plane",method="GET",route="\/projects\/:id",status_code="200"\} \d+/);
    expect(body).not.toContain('/projects/42');
    expect(body).not.toContain('/no/such/route');
  });

  it('lets features register their own metrics on the injected registry', async () => {
    const body = (await request(app.getHttpServer()).get('/metrics').expect(200)).text;
    const line = body.split('\n').find((l) => l.startsWith('outbox_deliveries_total{'));
    expect(line).toContain('product="ai-gateway"');
    expect(line).toContain('service="control-plane"');
    expect(Number(line?.split(' ').pop())).toBeGreaterThan(0);
  });

  it('stays at /metrics under a global prefix, and labels prefixed routes with their full pattern', async () => {
    const { app: prefixed } = await startObservedApp({
      controllers: [ProjectsController],
      providers: [DeliveryCounter],
      beforeInit: (nest) => nest.setGlobalPrefix('api/v1'),
    });
    try {
      await request(prefixed.getHttpServer()).get('/api/v1/projects/7').expect(200);
      await request(prefixed.getHttpServer()).get('/api/v1/nothing/here').expect(404);
      const body = (await request(prefixed.getHttpServer()).get('/metrics').expect(200)).text;
      expect(histogramCount(body, 'route="/api/v1/projects/:id",status_code="200"')).toBe(1);
      expect(histogramCount(body, 'route="unmatched",status_code="404"')).toBe(1);
      expect(body).not.toContain('/api/v1/nothing');
    } finally {
      await prefixed.close();
    }
  });

  it('keeps a registry per application, so two apps do not collide', async () => {
    @Module({ imports: [MetricsModule.forRoot({ serviceName: 'second' })], controllers: [ProjectsController], providers: [DeliveryCounter] })
    class SecondModule {}
    const moduleRef = await Test.createTestingModule({ imports: [SecondModule] }).compile();
    const second = await moduleRef.createNestApplication({ logger: false }).init();
    try {
      const body = (await request(second.getHttpServer()).get('/metrics').expect(200)).text;
      expect(body).toContain('service="second"');
      expect(body).not.toContain('service="control-plane"');
      expect(histogramCount(body, 'route="/projects/:id"')).toBe(0);
    } finally {
      await second.close();
    }
  });
});
