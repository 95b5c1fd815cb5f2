import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';

export interface FakeProduct {
  url: string;
  /** preferred_username of every token the summary was asked with, in order. */
  callers: string[];
  close(): Promise<void>;
}

/**
 * A product that serves the contract's dashboard summary to the control plane's origin (CORS as
 * a real product configures it), answering for whoever's token it was given.
 */
export async function startFakeProduct(product: string, title: string, allowedOrigin: string): Promise<FakeProduct> {
  const callers: string[] = [];
  const server: Server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', allowedOrigin);
    res.setHeader('vary', 'origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-headers': 'authorization', 'access-control-allow-methods': 'GET' }).end();
      return;
    }
    if (req.url !== '/api/v1/dashboard/summary') return void res.writeHead(404).end();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return void res.writeHead(401).end();
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { preferred_username?: string; aud?: string[] | string };
    if (![claims.aud].flat().includes(product)) return void res.writeHead(403).end();
    callers.push(claims.preferred_username ?? '?');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        product,
        title,
        status: 'ok',
        tiles: [
          {
            label: 'Requests today',
            value: 1234,
            unit: 'requests',
            breakdown: [
              { project: 'alpha', value: 1200 },
              { project: 'gamma', value: 34 },
            ],
          },
          // 26 cheap calls, as an exact decimal string and as a float with its noise.
          {
            label: 'Spend today',
            value: '0.0012932500',
            unit: 'USD',
            breakdown: [
              { project: 'alpha', value: 0.0012932500000000001 },
              { project: 'gamma', value: '0.0000432500' },
            ],
          },
          { label: 'Top aliases this month', value: 'claude-sonnet-4-5 ($0.0013), gpt-4o-mini ($0.0001), text-embedding-3-small ($0.0000)', unit: null },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    callers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A product that is down: whatever connects is dropped at once, as by a crashed process's host. */
export async function startDroppingEveryConnection(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createTcpServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
