// Stateful Streamable HTTP sessions leave nothing behind: a session ended by DELETE, by its idle
// expiry or refused at initialize gives back its entry, its upstream sessions, its catalogue
// listener, and becomes garbage (nothing — map, listener, timer — still reaches it).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FederatedSession, Federation } from '../federation/federated-session';
import { UpstreamPool } from '../upstreams/upstream-pool';
import { DownstreamSessions } from './downstream-sessions';
import { connect, eventually, northAndSouthRegistry, startGateway, TestGateway, textOf } from './testing/test-gateway';
import { SseUpstream, StreamableUpstream } from './testing/test-upstreams';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Whether every referent is collected once nothing but these weak references reaches it. */
async function collected(refs: readonly WeakRef<object>[]): Promise<boolean> {
  for (let attempt = 0; attempt < 20; attempt++) {
    // A WeakRef read in a job keeps its referent to the job's end: collect in a later one.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (refs.every((ref) => ref.deref() === undefined)) return true;
  }
  return false;
}

const HEADERS = { authorization: 'Bearer alice', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('Streamable HTTP, stateful: what a session holds is released when it ends', () => {
  const north = new StreamableUpstream();
  const south = new SseUpstream();
  let gateway: TestGateway;
  let sessions: DownstreamSessions;
  let pool: UpstreamPool;
  /** Every FederatedSession opened while a test runs, weakly. */
  let opened: WeakRef<FederatedSession>[] = [];
  const open = Federation.prototype.open;

  beforeAll(async () => {
    await Promise.all([north.start(), south.start()]);
    gateway = await startGateway(northAndSouthRegistry(north, south), { stateful: true, sessionIdleMs: 1500 });
    sessions = gateway.app.get(DownstreamSessions);
    pool = gateway.app.get(UpstreamPool);
    // The pool's shared upstream sessions are open before any count is taken.
    await eventually(() => pool.health().every((h) => h.state === 'up') && north.openSessions === 1, 'the shared upstream sessions opened');
    // Not a jest spy: its record of results would keep every session alive.
    Federation.prototype.open = async function (this: Federation, ...args: Parameters<Federation['open']>) {
      const session = await open.apply(this, args);
      opened.push(new WeakRef(session));
      return session;
    };
  });

  afterAll(async () => {
    Federation.prototype.open = open;
    await gateway.close();
    await Promise.all([north.stop(), south.stop()]);
  });

  beforeEach(() => {
    opened = [];
  });

  /** Nothing open: no session, no listener, no upstream session of a downstream one (the pool's shared one stays). */
  async function expectNothingHeld(northSessions: number): Promise<void> {
    await eventually(() => sessions.size === 0 && pool.catalogueListeners === 0 && north.openSessions === northSessions, 'the sessions ended');
    expect(opened.length).toBeGreaterThan(0);
    expect(await collected(opened)).toBe(true);
  }

  it('releases sessions ended with DELETE, after hot calls, SDK-path requests and relayed notifications', async () => {
    const shared = north.openSessions;
    const clients = await Promise.all(Array.from({ length: 3 }, () => connect(gateway.url, '/servers/alpha/mcp', 'alice')));
    for (const client of clients) {
      expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
      expect(textOf(await client.callTool({ name: 'south__echo', arguments: { text: 'x' } }))).toBe('south echo: x');
      await client.callTool({ name: 'log', arguments: {} }); // a notification relayed during the call
      await client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress: () => undefined }); // the SDK path, with progress
      await client.listPrompts();
    }
    expect(sessions.size).toBe(3);
    expect(pool.catalogueListeners).toBe(3);
    expect(north.openSessions).toBe(shared + 3);
    for (const client of clients) {
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await client.close();
    }
    await expectNothingHeld(shared);
  });

  it('ends a session abandoned without DELETE once it has been idle for sessionIdleMs', async () => {
    const shared = north.openSessions;
    const init = await fetch(`${gateway.url}/servers/alpha/mcp`, { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(init.status).toBe(200);
    await init.text();
    const headers = { ...HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const post = (body: unknown) => fetch(`${gateway.url}/servers/alpha/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect(await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } })).text()).toContain('"text":"2"');
    expect(sessions.size).toBe(1);
    await expectNothingHeld(shared);
    // The session is gone for its client too.
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(404);
  });

  it('keeps nothing of an initialize the transport refused', async () => {
    const refused = [
      // Accepts JSON only: 406.
      { headers: { ...HEADERS, accept: 'application/json' }, body: INITIALIZE, status: 406 },
      // A member JSON-RPC does not have: 400.
      { headers: HEADERS, body: { ...INITIALIZE, extra: true }, status: 400 },
    ];
    for (const { headers, body, status } of refused) {
      const response = await fetch(`${gateway.url}/servers/alpha/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(response.status).toBe(status);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await response.text();
    }
    await expectNothingHeld(north.openSessions);
  });
});
