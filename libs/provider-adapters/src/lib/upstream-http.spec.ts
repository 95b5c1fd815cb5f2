import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readBody, sendUpstream } from './upstream-http';

/**
 * A raw HTTP/1.1 upstream that answers the first request on each connection with keep-alive and
 * resets the connection when a second request arrives on it — what a real upstream's keep-alive
 * timeout looks like to a client that reuses the connection at that very moment.
 */
function closingUpstream(): Promise<{ url: string; close: () => void; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let served = false;
    socket.on('data', () => {
      if (served) {
        socket.resetAndDestroy();
        return;
      }
      served = true;
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`,
        // The gateway's pool keeps the last connection open: end it too, or nothing lets the process exit.
        close: () => {
          for (const socket of sockets) socket.destroy();
          server.close();
        },
        connections: () => connections,
      }),
    ),
  );
}

describe('sending to an upstream over the keep-alive pool', () => {
  it('sends a request again on a fresh connection when the reused one was closed under it', async () => {
    const upstream = await closingUpstream();
    try {
      const send = () =>
        sendUpstream({ url: new URL(upstream.url), method: 'POST', headers: {}, body: Buffer.from('{}'), signal: new AbortController().signal, timeoutMs: 5_000 });
      expect(await readBody((await send()).body)).toBe('{}');
      // Let the first answer settle, so that its connection is back in the pool and reused.
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The pooled connection is reused, reset by the upstream, and the request goes out again.
      const second = await send();
      expect(second.statusCode).toBe(200);
      expect(await readBody(second.body)).toBe('{}');
      expect(upstream.connections()).toBe(2);
    } finally {
      upstream.close();
    }
  });

  it('answers 502 when the upstream cannot be reached at all', async () => {
    const send = sendUpstream({ url: new URL('http://127.0.0.1:9/v1/x'), method: 'GET', headers: {}, signal: new AbortController().signal, timeoutMs: 5_000 });
    await expect(send).rejects.toMatchObject({ status: 502, code: 'upstream_unreachable' });
  });
});
