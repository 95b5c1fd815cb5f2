import { Controller, Get, HttpException, INestApplication, Logger, Query } from '@nestjs/common';
import request from 'supertest';
import { startObservedApp, CapturedLog } from '../testing/observed-app';
import { errorFields } from './error-fields';

const INCOMING_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_PARENT_ID = '00f067aa0ba902b7';
const INCOMING_TRACEPARENT = `00-${INCOMING_TRACE_ID}-${INCOMING_PARENT_ID}-01`;

@Controller()
class WorkController {
  private readonly outbox = new Logger('outbox');
  private readonly outboxClaim = new Logger('outbox::claim');
  private readonly billing = new Logger('billing');

  @Get('work')
  work(): { ok: true } {
    this.outbox.debug('outbox debug line');
    this.outboxClaim.verbose('outbox claim trace line');
    this.outboxClaim.debug('outbox claim debug line');
    this.billing.log('billing info line');
    this.billing.warn('billing warn line');
    return { ok: true };
  }

  @Get('secrets')
  secrets(@Query('q') _q?: string): { ok: true } {
    new Logger('auth').warn('exchanging credentials', {
      client_secret: 'client-secret-value',
      nested: { deeper: [{ password: 'password-value', apiKey: 'api-key-value' }] },
      usage: { prompt_tokens: 12 },
    });
    new Logger('auth').log({ refresh_token: 'refresh-token-value', subject: 'alice' });
    return { ok: true };
  }

  @Get('crash')
  crash(): { ok: true } {
    const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021', parameters: ['client-data-value'] });
    new Logger('http').error('unhandled error', { err: errorFields(new TypeError('query failed', { cause })) });
    return { ok: true };
  }

  @Get('fail')
  fail(): never {
    throw new HttpException('upstream broke', 502);
  }
}

describe('logging', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start(logFilter: string, logFormat: 'json' | 'text' = 'json'): Promise<CapturedLog> {
    const observed = await startObservedApp({ logFilter, logFormat, controllers: [WorkController] });
    app = observed.app;
    return observed.log;
  }

  describe('filter levels', () => {
    it('warn,outbox=debug: outbox debug lines appear, another module only from warn up', async () => {
      const log = await start('warn,outbox=debug');
      await request(app!.getHttpServer()).get('/work').expect(200);

      const messages = log.lines().map((line) => line['msg']);
      expect(messages).toContain('outbox debug line');
      expect(messages).toContain('outbox claim debug line'); // outbox::claim inherits outbox
      expect(messages).not.toContain('outbox claim trace line');
      expect(messages).toContain('billing warn line');
      expect(messages).not.toContain('billing info line');
      expect(log.lines().find((line) => line['msg'] === 'outbox debug line')).toMatchObject({ level: 'debug', context: 'outbox', service: 'test-service' });
    });

    it('a more specific target overrides its parent', async () => {
      const log = await start('info,outbox=warn,outbox::claim=debug');
      await request(app!.getHttpServer()).get('/work').expect(200);

      const messages = log.lines().map((line) => line['msg']);
      expect(messages).toContain('outbox claim debug line');
      expect(messages).not.toContain('outbox debug line');
      expect(messages).toContain('billing info line');
    });

    it('request lines belong to target http', async () => {
      const quiet = await start('info,http=warn');
      await request(app!.getHttpServer()).get('/work').expect(200);
      await request(app!.getHttpServer()).get('/fail').expect(502);
      await quiet.waitFor((line) => line['msg'] === 'request errored');
      expect(
        quiet
          .lines()
          .filter((line) => line['context'] === 'http')
          .map((line) => line['level']),
      ).toEqual(['error']);
    });

    it('request lines at debug (as npm start logs them) stay out of an info log, errors still show', async () => {
      const observed = await startObservedApp({ logFilter: 'info', logFormat: 'json', requestLevel: 'debug', controllers: [WorkController] });
      app = observed.app;
      await request(app.getHttpServer()).get('/work').expect(200);
      await request(app.getHttpServer()).get('/fail').expect(502);
      await observed.log.waitFor((line) => line['msg'] === 'request errored');
      expect(
        observed.log
          .lines()
          .filter((line) => line['context'] === 'http')
          .map((line) => line['msg']),
      ).toEqual(['request errored']);
      await app.close();

      const verbose = await startObservedApp({ logFilter: 'info,http=debug', logFormat: 'json', requestLevel: 'debug', controllers: [WorkController] });
      app = verbose.app;
      await request(app.getHttpServer()).get('/work').expect(200);
      expect(await verbose.log.waitFor((line) => line['msg'] === 'request completed')).toMatchObject({ level: 'debug', context: 'http' });
    });

    it("Nest's bootstrap contexts are target nest", async () => {
      const chatty = await start('info');
      expect(chatty.lines().some((line) => line['context'] === 'RoutesResolver')).toBe(true);
      await app!.close();

      const quiet = await start('info,nest=warn');
      expect(quiet.lines().some((line) => line['context'] === 'RoutesResolver' || line['context'] === 'InstanceLoader')).toBe(false);
    });

    it('off silences everything', async () => {
      const log = await start('off');
      await request(app!.getHttpServer()).get('/work').expect(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(log.text()).toBe('');
    });
  });

  describe('request log line', () => {
    it('carries the trace id of an incoming traceparent, as do the lines logged while serving it', async () => {
      const log = await start('info,outbox=debug');
      await request(app!.getHttpServer()).get('/work').set('traceparent', INCOMING_TRACEPARENT).expect(200);

      const requestLine = await log.waitFor((line) => line['msg'] === 'request completed');
      expect(requestLine).toMatchObject({ context: 'http', trace_id: INCOMING_TRACE_ID, req: { method: 'GET', url: '/work' }, res: { statusCode: 200 } });
      expect(requestLine['span_id']).toMatch(/^[0-9a-f]{16}$/);
      expect(requestLine['span_id']).not.toBe(INCOMING_PARENT_ID); // our span is a child of the caller's

      const featureLine = log.lines().find((line) => line['msg'] === 'outbox debug line');
      expect(featureLine).toMatchObject({ trace_id: INCOMING_TRACE_ID, span_id: requestLine['span_id'] });
      // Written by hand for speed, in the layout pino gives every other line.
      expect(Object.keys(requestLine).slice(0, 5)).toEqual(['level', 'time', 'service', 'pid', 'hostname']);
      expect(Object.keys(featureLine ?? {}).slice(0, 5)).toEqual(['level', 'time', 'service', 'pid', 'hostname']);
      expect(requestLine).toMatchObject({ level: 'info', service: featureLine?.['service'], pid: process.pid, hostname: featureLine?.['hostname'] });
      expect(Date.parse(String(requestLine['time']))).toBeGreaterThan(Date.now() - 60_000);
      expect(Object.keys(requestLine).at(-1)).toBe('msg');
    });

    it.each([
      ['absent', undefined],
      ['malformed', 'not-a-traceparent'],
      ['all-zero trace id', `00-${'0'.repeat(32)}-${INCOMING_PARENT_ID}-01`],
      ['uppercase hex', INCOMING_TRACEPARENT.toUpperCase()],
    ])('starts a new valid trace when the traceparent is %s', async (_case, header) => {
      const log = await start('info');
      const first = request(app!.getHttpServer()).get('/work');
      await (header === undefined ? first : first.set('traceparent', header)).expect(200);
      await request(app!.getHttpServer()).get('/work').expect(200);

      await log.waitFor((line) => line['msg'] === 'request completed' && line !== log.lines()[0]);
      const traceIds = log
        .lines()
        .filter((line) => line['msg'] === 'request completed')
        .map((line) => line['trace_id']);
      expect(traceIds).toHaveLength(2);
      for (const traceId of traceIds) {
        expect(traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(traceId).not.toBe('0'.repeat(32));
        expect(traceId).not.toBe(INCOMING_TRACE_ID);
      }
      expect(traceIds[0]).not.toBe(traceIds[1]);
    });
  });

  describe('redaction', () => {
    it('never writes credentials from request headers or query strings', async () => {
      const log = await start('info');
      await request(app!.getHttpServer())
        .get('/work?api_key=query-key-value&key=gemini-key-value&page=2')
        .set('Authorization', 'Bearer secret-value')
        .set('Proxy-Authorization', 'Basic proxy-secret-value')
        .set('Cookie', 'session=cookie-value')
        .set('X-Api-Key', 'x-api-key-value')
        .set('X-Custom-Auth', 'custom-credential-value')
        .set('User-Agent', 'redaction-test')
        .set('X-Request-Id', 'req-42')
        .expect(200);

      const requestLine = await log.waitFor((line) => line['msg'] === 'request completed');
      for (const secret of ['secret-value', 'proxy-secret-value', 'cookie-value', 'x-api-key-value', 'query-key-value', 'gemini-key-value', 'custom-credential-value']) {
        expect(log.text()).not.toContain(secret);
      }
      // Only the named headers are logged (also a credential under a name no pattern knows stays out); the query is redacted.
      expect(requestLine['req']).toEqual({
        method: 'GET',
        url: '/work?api_key=[REDACTED]&key=[REDACTED]&page=2',
        headers: { 'user-agent': 'redaction-test', 'x-request-id': 'req-42' },
        remoteAddress: expect.any(String),
      });
    });

    it('replaces sensitive keys at any depth in objects that feature code logs', async () => {
      const log = await start('info');
      await request(app!.getHttpServer()).get('/secrets').expect(200);

      for (const secret of ['client-secret-value', 'password-value', 'api-key-value', 'refresh-token-value']) {
        expect(log.text()).not.toContain(secret);
      }
      const warning = log.lines().find((line) => line['msg'] === 'exchanging credentials');
      expect(warning).toMatchObject({
        context: 'auth',
        params: { client_secret: '[REDACTED]', nested: { deeper: [{ password: '[REDACTED]', apiKey: '[REDACTED]' }] }, usage: { prompt_tokens: 12 } },
      });
      expect(log.lines().find((line) => (line['msg'] as { subject?: string })?.subject === 'alice')).toMatchObject({
        msg: { refresh_token: '[REDACTED]', subject: 'alice' },
      });
    });
  });

  describe('errors', () => {
    it('are logged with class, message, code, stack and cause, never with the data they were working on', async () => {
      const log = await start('info');
      await request(app!.getHttpServer()).get('/crash').expect(200);
      const line = await log.waitFor((candidate) => candidate['msg'] === 'unhandled error');
      expect(line['params']).toEqual({
        err: {
          type: 'TypeError',
          message: 'query failed',
          stack: expect.stringMatching(/^TypeError: query failed\n +at /),
          cause: { type: 'Error', message: 'invalid byte sequence for encoding "UTF8": 0x00', code: '22021', stack: expect.any(String) },
        },
      });
      expect(log.text()).not.toContain('client-data-value');
    });
  });

  describe('text format', () => {
    it('writes human-readable lines instead of JSON', async () => {
      const log = await start('info,outbox=debug', 'text');
      await request(app!.getHttpServer()).get('/work').set('traceparent', INCOMING_TRACEPARENT).expect(200);

      const line = log
        .text()
        .split('\n')
        .find((text) => text.includes('outbox debug line'));
      expect(line).toBeDefined();
      expect(line).toContain('[outbox] outbox debug line');
      expect(line).toContain(INCOMING_TRACE_ID);
      expect(() => JSON.parse(line!)).toThrow();
    });
  });
});
