import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { Controller, Get, INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { currentTraceContext, ObservabilityModule } from '@arbor/observability';
import { DirectRoutes, readRequestBody } from './direct-routes';

@Controller()
class FrameworkController {
  @Get('framework')
  framework() {
    return { servedBy: 'nest' };
  }
}

const INCOMING_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('direct routes', () => {
  let app: INestApplication;
  let baseUrl: string;
  const logged: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logged.push(...chunk.toString().split('\n').filter(Boolean));
        callback();
      },
    });
    const moduleRef = await Test.createTestingModule({
      imports: [ObservabilityModule.forRoot({ serviceName: 'direct-test', logFilter: 'info', logFormat: 'json', destination })],
      controllers: [FrameworkController],
      providers: [DirectRoutes],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    const routes = app.get(DirectRoutes);
    routes.install(app.getHttpServer() as Server);
    routes.add(
      {
        route: '/hot/:id',
        endpoints: [{ methods: ['POST'], path: '/hot/{id}' }],
        matches: (method, path) => method === 'POST' && path.startsWith('/hot/'),
        handle: (_request, response, path) => {
          // Served inside the request's trace context, as a Nest handler would be.
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path, traceId: currentTraceContext()?.traceId }));
        },
      },
      {
        route: '/broken',
        endpoints: [{ methods: ['*'], path: '/broken' }],
        matches: (_method, path) => path === '/broken',
        handle: async () => {
          throw new Error('the handler broke');
        },
      },
    );
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(() => app.close());

  it('answers its requests before Express, in their trace context, and logs them under target http', async () => {
    const response = await fetch(`${baseUrl}/hot/7/?verbose=1`, { method: 'POST', headers: { traceparent: `00-${INCOMING_TRACE_ID}-00f067aa0ba902b7-01` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-powered-by')).toBeNull(); // Express never saw it
    expect(await response.json()).toEqual({ path: '/hot/7', traceId: INCOMING_TRACE_ID });

    const line = await waitForLine(logged, (entry) => entry['context'] === 'http' && (entry['req'] as { url?: string }).url === '/hot/7/?verbose=1');
    expect(line).toMatchObject({ msg: 'request completed', trace_id: INCOMING_TRACE_ID, res: { statusCode: 200 } });
  });

  it('leaves every other request to the framework', async () => {
    const response = await fetch(`${baseUrl}/framework`);
    expect(await response.json()).toEqual({ servedBy: 'nest' });
    const notDirect = await fetch(`${baseUrl}/hot/7`); // GET: the direct route serves POST only
    expect(notDirect.status).toBe(404);
  });

  it('serves only the paths a route declares, whatever its matcher takes, and lists them for the route table', async () => {
    // `/hot/7/extra` passes the matcher (a prefix test) but is no declared endpoint: not the route's.
    expect((await fetch(`${baseUrl}/hot/7/extra`, { method: 'POST' })).status).toBe(404);
    expect(app.get(DirectRoutes).table()).toEqual([
      { router: 'direct', methods: ['POST'], path: '/hot/{id}', route: '/hot/:id' },
      { router: 'direct', methods: ['*'], path: '/broken', route: '/broken' },
    ]);
  });

  it('measures them under their route pattern', async () => {
    await fetch(`${baseUrl}/hot/8`, { method: 'POST' });
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/http_server_request_duration_seconds_count\{[^}]*route="\/hot\/:id"[^}]*status_code="200"[^}]*\} [1-9]/);
  });

  it('refuses a NUL or bad percent-encoding in the path or query string with 400 naming the field, before the route sees it', async () => {
    for (const [target, field] of [
      ['/hot/a%00b', 'path'],
      ['/hot/%ED%A0%80', 'path'],
      ['/hot/%E0%A4%A', 'path'],
      ['/hot/7?purpose=a%00b', 'purpose'],
      ['/hot/7?%00=1', 'query'],
      ['/hot/7?q=%ff', 'q'],
    ]) {
      const response = await fetch(`${baseUrl}${target}`, { method: 'POST' });
      expect({ target, status: response.status }).toEqual({ target, status: 400 });
      // Read by every API family: the suite's code and details, OpenAI's type and param, Anthropic's type.
      expect(await response.json()).toMatchObject({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          code: 'invalid_request',
          param: field,
          message: expect.stringMatching(/^Invalid /),
          details: { fields: { [field]: [expect.any(String)] } },
        },
      });
    }
    expect((await fetch(`${baseUrl}/hot/a%20b?q=a%20b+c`, { method: 'POST' })).status).toBe(200);
  });

  it('turns a handler that throws into a 500 in the error envelope', async () => {
    const response = await fetch(`${baseUrl}/broken`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'internal_error', message: 'The server failed to handle the request.' } });
  });
});

async function waitForLine(lines: string[], predicate: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find(predicate);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no matching log line in:\n${lines.join('\n')}`);
}

describe('readRequestBody (both gateways read bodies this way)', () => {
  let server: import('node:http').Server;
  let url: string;

  beforeAll(async () => {
    const { createServer } = await import('node:http');
    server = createServer((request, response) => {
      readRequestBody(request, 16).then((body) => response.end(JSON.stringify('bytes' in body ? { bytes: body.bytes.toString() } : body)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}/`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = async (body: string | Uint8Array, headers: Record<string, string> = {}) => (await fetch(url, { method: 'POST', body, headers })).json();

  it('reads a body within the limit', async () => {
    expect(await send('{"a":1}')).toEqual({ bytes: '{"a":1}' });
  });

  it('refuses a body over the limit, announced or not', async () => {
    expect(await send('x'.repeat(17))).toEqual({ refused: 'too_large' });
    const chunked = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode('y'.repeat(40))), controller.close()) });
    expect(await (await fetch(url, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit)).json()).toEqual({ refused: 'too_large' });
  });

  it('refuses a compressed body unread, naming its encoding', async () => {
    expect(await send(new Uint8Array([0x1f, 0x8b]), { 'content-encoding': 'gzip' })).toEqual({ refused: 'unsupported_encoding', encoding: 'gzip' });
    expect(await send('ok', { 'content-encoding': 'identity' })).toEqual({ bytes: 'ok' });
  });
});
