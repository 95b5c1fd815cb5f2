import { Body, Controller, Get, HttpException, INestApplication, Module, Post } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { IsIn, IsString, MaxLength } from 'class-validator';
import request from 'supertest';
import { ApiError } from './api-error';
import { ErrorEnvelopeFilter } from './error-envelope.filter';
import { edgeValidationPipe } from './validation';

class ThemeDto {
  @IsIn(['light', 'dark', 'system'])
  theme!: string;

  @IsString()
  @MaxLength(5)
  note!: string;
}

class ProjectNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'project_not_found', `No project ${id}`, undefined, { 'x-request-hint': 'check the id' });
  }
}

@Controller()
class SampleController {
  @Post('theme')
  setTheme(@Body() body: ThemeDto) {
    return body;
  }

  @Get('missing')
  missing() {
    throw new ProjectNotFound('p-1');
  }

  @Get('contract')
  contract() {
    // The shape of @arbor/contract's ContractHttpError (its guard's refusals).
    throw Object.assign(new HttpException({ error: { code: 'missing_token', message: 'needs a bearer token' } }, 401), {
      headers: { 'WWW-Authenticate': 'Bearer realm="ai-gateway"' },
    });
  }

  @Get('crash')
  crash() {
    throw new Error('database password is hunter2');
  }
}

@Module({
  controllers: [SampleController],
  providers: [
    { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
    { provide: APP_PIPE, useFactory: edgeValidationPipe },
  ],
})
class SampleModule {}

describe('the error envelope', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [SampleModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(() => app.close());

  it('renders a domain error with its status, code, message and headers', async () => {
    const response = await request(app.getHttpServer()).get('/missing');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'project_not_found', message: 'No project p-1' } });
    expect(response.headers['x-request-hint']).toBe('check the id');
  });

  it("keeps the code and headers of an error already in the envelope (@arbor/contract's)", async () => {
    const response = await request(app.getHttpServer()).get('/contract');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: { code: 'missing_token', message: 'needs a bearer token' } });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="ai-gateway"');
  });

  it('names every invalid field of a body', async () => {
    const response = await request(app.getHttpServer()).post('/theme').send({ theme: 'neon', note: 'far too long', extra: 1 });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(Object.keys(response.body.error.details.fields).sort()).toEqual(['extra', 'note', 'theme']);
  });

  it('answers malformed JSON with 400 in the same shape', async () => {
    const response = await request(app.getHttpServer()).post('/theme').set('content-type', 'application/json').send('{"theme":');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
  });

  it('answers an unknown route with 404 not_found', async () => {
    const response = await request(app.getHttpServer()).delete('/nowhere');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/nowhere') } });
  });

  it('quotes a long unknown URL and a long unknown field only as 64-character excerpts', async () => {
    const long = 'x'.repeat(5000);
    const route = await request(app.getHttpServer()).get(`/nowhere/${long}`);
    expect(route.status).toBe(404);
    expect(route.body.error.message).toContain('/nowhere/');
    expect(route.body.error.message).not.toContain('x'.repeat(65));
    const field = await request(app.getHttpServer())
      .post('/theme')
      .send({ theme: 'dark', note: 'ok', [long]: 1 });
    expect(field.status).toBe(400);
    expect(JSON.stringify(field.body)).not.toContain('x'.repeat(65));
  });

  it('hides the details of an unexpected failure', async () => {
    const response = await request(app.getHttpServer()).get('/crash');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: { code: 'internal_error', message: 'The server failed to handle the request.' } });
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
  });
});
