// Streamable HTTP in stateful mode, byte for byte: the hot path's answers on a session (its own SSE
// streams beside the SDK transport's) against the session's SDK server answering the same request
// (sent as a batch of one, which the hot path leaves to it), messages relayed mid-call included,
// and a hot call's stream resumed with Last-Event-ID.
import { HotPath } from './hot-path';
import { northAndSouthRegistry, startGateway, TestGateway } from './testing/test-gateway';
import { SseUpstream, StreamableUpstream } from './testing/test-upstreams';

interface SseEvent {
  event?: string;
  id?: string;
  data: string;
}

/** A raw SSE reader over a fetch Response: `until` says when enough events came; the stream is then let go. */
async function readEvents(response: Response, until: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      if (block.startsWith(':')) continue; // keep-alive comment
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      events.push({ event: field('event'), id: field('id'), data: field('data') ?? '' });
    }
  }
  await reader.cancel();
  return events;
}

const answers = (id: number) => (events: SseEvent[]) => events.some((e) => e.data && (JSON.parse(e.data) as { id?: unknown }).id === id && !('method' in JSON.parse(e.data)));

/**
 * What must be the same on both paths: each event's kind, whether it has an id on the response's
 * own stream, and its message, the JSON-RPC ids (the request's, and those the gateway numbers its
 * own requests with) replaced by placeholders.
 */
function comparable(events: SseEvent[]): unknown[] {
  const streams = new Set(events.map((e) => e.id?.slice(0, e.id.lastIndexOf(':'))));
  expect(streams.size).toBe(1);
  return events.map((e) => {
    expect(e.id).toMatch(/^[0-9a-f-]{36}:\d+$/);
    if (!e.data) return { event: e.event, priming: true };
    const message = JSON.parse(e.data) as { id?: unknown; method?: string };
    return { event: e.event, message: { ...message, ...(message.id !== undefined ? { id: message.method ? 'server request' : 'request' } : {}) } };
  });
}

/** The headers but the framing, which on both paths depends on whether the answer came within a moment. */
function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!['date', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
  });
  return headers;
}

describe('Streamable HTTP, stateful: the hot path on a session', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;
  const opened: Record<string, string>[] = [];

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), { stateful: true, pageSize: 3 });
  });

  afterAll(async () => {
    await Promise.all(opened.map((headers) => fetch(`${gateway.url}/servers/alpha/mcp`, { method: 'DELETE', headers }).then((r) => r.body?.cancel())));
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  /** A session opened with raw requests, as a client of `version` (no MCP-Protocol-Version header when undefined). */
  async function session(version: string | undefined, path = '/servers/alpha/mcp', person = 'alice'): Promise<(body: unknown) => Promise<Response>> {
    const base: Record<string, string> = { authorization: `Bearer ${person}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: version ?? '2025-03-26', capabilities: { sampling: {}, elicitation: {} }, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    await readEvents(init, answers(0));
    const headers = { ...base, 'mcp-session-id': init.headers.get('mcp-session-id')!, ...(version ? { 'mcp-protocol-version': version } : {}) };
    opened.push(headers);
    const post = (body: unknown) => fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    return post;
  }

  /** One request on the hot path and the same (another id) on the SDK path; what each answered. */
  async function bothWays(post: (body: unknown) => Promise<Response>, request: { method: string; params?: unknown }, id: number) {
    const answer = async (body: unknown, requestId: number) => {
      const response = await post(body);
      expect(response.status).toBe(200);
      return { headers: headersOf(response), events: comparable(await readEvents(response, answers(requestId))) };
    };
    const hot = await answer({ jsonrpc: '2.0', id, ...request }, id);
    const sdk = await answer([{ jsonrpc: '2.0', id: id + 1000, ...request }], id + 1000);
    return { hot, sdk };
  }

  it('answers tools/call, tools/list and ping as the session SDK server does, for clients of each version', async () => {
    const requests = [
      { method: 'ping' },
      { method: 'tools/list' },
      { method: 'tools/list', params: { cursor: 'cDoz' } },
      { method: 'tools/list', params: { cursor: 'not a cursor' } },
      { method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      { method: 'tools/call', params: { name: 'meta', arguments: {}, _meta: { trace: 't' } } },
      { method: 'tools/call', params: { name: 'nowhere', arguments: {} } },
      { method: 'tools/call', params: { name: 'south__echo', arguments: { text: 'x' } } },
      // The upstream logs during the call: the relayed notification comes first, on the call's stream.
      { method: 'tools/call', params: { name: 'log', arguments: {} } },
    ];
    const hotAnswers = jest.spyOn(HotPath.prototype, 'answerInSession');
    for (const version of ['2025-11-25', '2025-06-18', undefined]) {
      const post = await session(version);
      for (const [index, request] of requests.entries()) {
        const { hot, sdk } = await bothWays(post, request, index + 1);
        expect(hot).toEqual(sdk);
        const logs = (request.params as { name?: string } | undefined)?.name === 'log';
        expect(hot.events).toHaveLength((version === '2025-11-25' ? 1 : 0) + (logs ? 1 : 0) + 1); // priming, log, answer
      }
    }
    // Each single request took the hot path, each batch of one the SDK's.
    expect(hotAnswers).toHaveBeenCalledTimes(3 * requests.length);
    hotAnswers.mockRestore();
  });

  it('relays what the upstream asks the client mid-call (sampling) on the call stream and takes the answer back', async () => {
    const post = await session('2025-11-25');
    const run = async (body: unknown, id: number) => {
      const response = await post(body);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      const events: SseEvent[] = [];
      let buffer = '';
      while (!answers(id)(events)) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          const field = (name: string) =>
            block
              .split('\n')
              .find((line) => line.startsWith(`${name}:`))
              ?.slice(name.length + 1)
              .trim();
          const event = { event: field('event'), id: field('id'), data: field('data') ?? '' };
          events.push(event);
          const message = event.data ? (JSON.parse(event.data) as { id?: number; method?: string }) : undefined;
          if (message?.method === 'sampling/createMessage') {
            const reply = await post({ jsonrpc: '2.0', id: message.id, result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'hi' } } });
            expect(reply.status).toBe(202);
          }
        }
      }
      await reader.cancel();
      return comparable(events);
    };
    const hot = await run({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask-model', arguments: {} } }, 1);
    const sdk = await run([{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask-model', arguments: {} } }], 2);
    expect(hot).toEqual(sdk);
    expect(hot.map((e) => (e as { message?: { method?: string; result?: unknown } }).message?.method ?? (e as { message?: { result?: unknown } }).message?.result)).toEqual([
      undefined,
      'sampling/createMessage',
      { content: [{ type: 'text', text: 'model said: hi' }] },
    ]);
  });

  it('resumes a hot call stream with Last-Event-ID after the client lost it, the answer arriving on the resumed stream', async () => {
    const post = await session('2025-11-25');
    const call = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask-model', arguments: {} } });
    const before = await readEvents(call, (events) => events.some((e) => e.data.includes('sampling/createMessage')));
    // The stream is lost (readEvents let it go) while the upstream still waits for the client.
    const [, asked] = before;
    const { id: samplingId } = JSON.parse(asked.data) as { id: number };
    const headers = { ...opened.at(-1)!, accept: 'text/event-stream' };
    const resume = () => fetch(`${gateway.url}/servers/alpha/mcp`, { headers: { ...headers, 'last-event-id': asked.id! } });
    // The gateway may not have seen the lost connection close yet: until it has, the stream is taken (409).
    let resumed = await resume();
    for (let attempt = 0; resumed.status === 409 && attempt < 50; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      resumed = await resume();
    }
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('content-type')).toBe('text/event-stream');
    // A second connection for the same stream is refused, as the SDK transport refuses it.
    expect((await resume()).status).toBe(409);
    await post({ jsonrpc: '2.0', id: samplingId, result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'again' } } });
    const after = await readEvents(resumed, answers(7));
    expect(after.map((e) => JSON.parse(e.data) as unknown)).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'model said: again' }] } }]);
    expect(after[0].id?.startsWith(asked.id!.slice(0, asked.id!.lastIndexOf(':')))).toBe(true);
  });

  it('cancels a hot call upstream when the client sends notifications/cancelled, and answers it no more', async () => {
    const post = await session('2025-11-25');
    const call = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await north.slowStarted;
    const cancelledBefore = north.cancelled.length;
    expect((await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'changed my mind' } })).status).toBe(202);
    const deadline = Date.now() + 5000;
    while (north.cancelled.length === cancelledBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(north.cancelled.length).toBe(cancelledBefore + 1);
    // The stream stays open without an answer (as the SDK leaves a cancelled request's stream): only the priming event came.
    const events = await readEvents(call, (seen) => seen.length >= 1);
    expect(events).toEqual([{ event: undefined, id: expect.any(String), data: '' }]);
  });
});
