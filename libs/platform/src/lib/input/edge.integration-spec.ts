// What every service's framework routes do with hostile input, on a service started as main.ts starts one.
import { connect } from 'node:net';
import { Body, CanActivate, Controller, ExecutionContext, Get, Injectable, Module, Param, Post, Query, UseGuards } from '@nestjs/common';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { listenAddress, ServiceConfig } from '@arbor/config';
import { PlatformModule } from '../bootstrap/platform.module';
import { RunningService, startService } from '../bootstrap/run-service';

class EdgeTestConfig extends ServiceConfig {
  readonly serviceName = 'edge-test';
  readonly listenVariable = 'EDGE_TEST_LISTEN_ADDR';
  get listen() {
    return listenAddress('127.0.0.1:0');
  }
  get logFilter() {
    return 'off';
  }
}

class ThingDto {
  @IsString()
  @MaxLength(100)
  name!: string;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

const received: unknown[] = [];

/** A route's own guard that reads a path parameter, as a permission guard looking up the project of `:id` does. */
@Injectable()
class ParamReadingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    received.push(`guard saw ${context.switchToHttp().getRequest<{ params: Record<string, string> }>().params['id']}`);
    return true;
  }
}

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: ThingDto) {
    received.push(body);
    return body;
  }

  @Post('opaque')
  opaque(@Body() body: Record<string, unknown>) {
    received.push(body);
    return { ok: true };
  }

  @Get('search')
  search(@Query('q') q?: string) {
    received.push(q);
    return { q };
  }

  @Get('files/*path')
  file(@Param('path') path: string[]) {
    received.push(path);
    return { path };
  }

  @Get('guarded/:id')
  @UseGuards(ParamReadingGuard)
  guarded(@Param('id') id: string) {
    received.push(id);
    return { id };
  }

  @Get(':id')
  one(@Param('id') id: string) {
    received.push(id);
    return { id };
  }
}

describe('the edge of every service', () => {
  let service: RunningService<EdgeTestConfig>;

  beforeAll(async () => {
    service = await startService(
      {
        schema: EdgeTestConfig,
        module: (config) => {
          @Module({ imports: [PlatformModule.forService(config, { readiness: 'static' })], controllers: [ThingsController] })
          class EdgeTestModule {}
          return { module: EdgeTestModule };
        },
        corsOrigins: () => ['http://ui.example'],
        opaqueBody: (path) => path === '/things/opaque',
      },
      {},
    );
  });

  afterAll(() => service.close());
  beforeEach(() => (received.length = 0));

  async function send(method: string, path: string, body?: string, contentType = 'application/json') {
    const response = await fetch(`${service.url}${path}`, { method, ...(body === undefined ? {} : { body, headers: { 'content-type': contentType } }) });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text) as { error: { code: string; message: string; details?: { fields?: Record<string, string[]> } } } };
  }

  it.each([
    ['a NUL in a field', '{"name":"a\\u0000b"}', 'name', /NUL/],
    ['a NUL in a nested value', '{"name":"ok","metadata":{"team":["x","\\u0000"]}}', 'metadata.team[1]', /NUL/],
    ['a lone surrogate', '{"name":"\\ud800"}', 'name', /lone UTF-16 surrogate/],
    ['a lone surrogate in a key', '{"name":"ok","metadata":{"\\udfff":1}}', 'metadata.\\udfff', /key/],
  ])('%s in a JSON body is a 400 invalid_request naming the field, and the handler never runs', async (_name, body, field, problem) => {
    const answer = await send('POST', '/things', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(Object.keys(answer.body.error.details?.fields ?? {})).toEqual([field]);
    expect(answer.body.error.message).toMatch(problem);
    expect(received).toEqual([]);
  });

  it('JSON nested 5 000 deep (30 KB, under the size limit) is a 400 naming the limit', async () => {
    const answer = await send('POST', '/things', `{"name":"deep","metadata":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/nested too deeply: JSON may nest at most 64/);
    expect(received).toEqual([]);
  });

  it('a body that is not UTF-8 is a 400, never stored with U+FFFD in place of its bytes', async () => {
    const response = await fetch(`${service.url}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/not valid UTF-8/);
    expect(received).toEqual([]);
  });

  it('a NUL or bad percent-encoding in the query string is a 400 naming the parameter', async () => {
    for (const query of ['q=%00', 'q=%ED%A0%80', 'q=%E0%A4%A']) {
      const answer = await send('GET', `/things/search?${query}`);
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.error.details?.fields ?? {})).toEqual(['q']);
    }
    expect(received).toEqual([]);
  });

  it('a NUL in a path parameter is a 400 naming the parameter', async () => {
    const answer = await send('GET', '/things/%00');
    expect(answer.status).toBe(400);
    expect(answer.body.error.details?.fields).toEqual({ id: ['id must not contain the NUL character (U+0000)'] });
    expect(received).toEqual([]);
  });

  it("refuses a NUL in a path parameter before the route's own guard reads it", async () => {
    const answer = await send('GET', '/things/guarded/a%00b');
    expect(answer.status).toBe(400);
    expect(answer.body.error.details?.fields).toEqual({ id: ['id must not contain the NUL character (U+0000)'] });
    expect(received).toEqual([]);
    expect((await send('GET', '/things/guarded/ab')).status).toBe(200);
    expect(received).toEqual(['guard saw ab', 'ab']);
  });

  it('refuses a NUL in any segment of a wildcard path parameter', async () => {
    const answer = await send('GET', '/things/files/a/b%00c');
    expect(answer.status).toBe(400);
    expect(answer.body.error.details?.fields).toEqual({ path: ['path must not contain the NUL character (U+0000)'] });
    expect(received).toEqual([]);
    expect((await send('GET', '/things/files/a/b')).body).toEqual({ path: ['a', 'b'] });
  });

  it("passes a route's opaque body text on as sent (a tool's arguments), still refusing deep nesting", async () => {
    const text = 'bytes\u0000and\ud800as sent';
    const answer = await send('POST', '/things/opaque', JSON.stringify({ arguments: { text } }));
    expect(answer.status).toBe(201);
    expect(received).toEqual([{ arguments: { text } }]);
    const deep = await send('POST', '/things/opaque', `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    expect(deep.status).toBe(400);
  });

  it('ordinary text passes untouched: emoji, CJK, tabs, astral characters', async () => {
    const name = 'Team 木 🌳\twith "quotes"';
    const answer = await send('POST', '/things', JSON.stringify({ name, metadata: { note: 'ok' } }));
    expect(answer.status).toBe(201);
    expect(received).toEqual([{ name, metadata: { note: 'ok' } }]);
  });

  it('lets a browser app of an allowed origin read ETag (and the other headers it acts on)', async () => {
    const response = await fetch(`${service.url}/things/1`, { headers: { origin: 'http://ui.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('http://ui.example');
    expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(['ETag', 'Location', 'Retry-After', 'WWW-Authenticate']);
  });

  it('headers over the size limit get a JSON 431 that every API family reads, not a bare status line', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      socket.write(`GET /things/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'request_header_fields_too_large', message: expect.stringMatching(/16 KiB/), param: null },
    });
  });
});
