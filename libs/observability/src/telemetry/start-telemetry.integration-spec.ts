import { ChildProcess, fork } from 'node:child_process';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { parseTraceparent } from '../tracing/traceparent';
import { startTelemetry } from './start-telemetry';

// If startTelemetry loaded the SDK without the variable, these factories would throw.
jest.mock('@opentelemetry/sdk-node', () => {
  throw new Error('the OpenTelemetry SDK was loaded');
});
jest.mock('@opentelemetry/exporter-trace-otlp-http', () => {
  throw new Error('an OTLP exporter was loaded');
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

interface Collected {
  method: string;
  path: string;
  body: string;
}

/** A stand-in OTLP/HTTP collector that records what the exporters send. */
async function startCollector(): Promise<{ server: Server; url: string; received: Collected[] }> {
  const received: Collected[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  name: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

interface OtlpTraces {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

describe('startTelemetry', () => {
  const savedEndpoint = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  afterEach(() => {
    if (savedEndpoint === undefined) delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    else process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = savedEndpoint;
  });

  it('is a no-op that loads none of the SDK when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
    delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    const telemetry = startTelemetry({ serviceName: 'control-plane' });
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = '';
    await expect(startTelemetry({ serviceName: 'control-plane' }).shutdown()).resolves.toBeUndefined();
  });

  // Instrumentation hooks Node's module loader, which jest replaces: the service runs as a real process.
  it('exports a traced request to <endpoint>/v1/traces when OTEL_EXPORTER_OTLP_ENDPOINT is set', async () => {
    const collector = await startCollector();
    const service = fork(join(__dirname, 'fixtures/traced-service.ts'), [], {
      execArgv: ['--require', join(__dirname, 'fixtures/register-typescript.cjs')],
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, TRACED_SERVICE_NAME: 'sync-dispatcher' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const output: string[] = [];
    service.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    service.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    let outgoingTraceparent: string;
    try {
      const { port } = await nextMessage<{ port: number }>(service, output);
      const response = await request(`http://127.0.0.1:${port}`).get('/traced').set('traceparent', `00-${TRACE_ID}-${PARENT_ID}-01`).expect(200);
      outgoingTraceparent = response.body.traceparent;
      await request(`http://127.0.0.1:${port}`).get('/metrics').expect(200);
      service.send('stop'); // shutdown flushes the exporters
      await nextMessage(service, output);
    } finally {
      service.kill();
      collector.server.close();
    }

    const traceExports = collector.received.filter((r) => r.path === '/v1/traces');
    expect(traceExports.length).toBeGreaterThan(0);
    expect(traceExports.every((r) => r.method === 'POST')).toBe(true);
    const exported = traceExports.flatMap((r) => (JSON.parse(r.body) as OtlpTraces).resourceSpans);
    expect(exported[0].resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'sync-dispatcher' } });

    const spans = exported.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, scope: s.scope.name }))));
    const serverSpan = spans.find((span) => span.kind === 2 && span.scope === '@opentelemetry/instrumentation-http');
    expect(serverSpan).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID });
    // Express is imported as ESM by Nest 12; its spans show the loader hook works.
    expect(spans.some((span) => span.scope === '@opentelemetry/instrumentation-express')).toBe(true);
    // Probes and scrapes are not traced.
    expect(spans.some((span) => span.attributes.some((a) => a.key === 'url.path' && a.value.stringValue === '/metrics'))).toBe(false);

    // With OpenTelemetry on, logs and outgoing calls use its spans instead of ids of our own:
    // the request line the server span, lines and calls inside the handler the active span.
    const lines = output
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line['msg'] === 'request completed' && (line['req'] as { url: string }).url === '/traced')).toMatchObject({
      trace_id: TRACE_ID,
      span_id: serverSpan!.spanId,
    });
    const handlerSpanId = parseTraceparent(outgoingTraceparent)?.parentId;
    expect(parseTraceparent(outgoingTraceparent)?.traceId).toBe(TRACE_ID);
    expect(spans.filter((span) => span.traceId === TRACE_ID).map((span) => span.spanId)).toContain(handlerSpanId);
    expect(lines.find((line) => line['msg'] === 'inside the traced request')).toMatchObject({ trace_id: TRACE_ID, span_id: handlerSpanId });
    const logExports = collector.received.filter((r) => r.path === '/v1/logs').map((r) => r.body);
    expect(logExports.join('')).toContain('inside the traced request');
  });
});

function nextMessage<T>(child: ChildProcess, output: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`traced service exited with ${code}:\n${output.join('')}`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}
