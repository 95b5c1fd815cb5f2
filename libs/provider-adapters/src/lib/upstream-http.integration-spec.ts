import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readAll, readBody, sendUpstream } from './upstream-http';

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
      const send = () => sendUpstream({ url: new URL(upstream.url), method: 'POST', headers: {}, body: Buffer.from('{}'), signal: new AbortController().signal, timeoutMs: 5_000 });
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

  describe('answers larger than what waits unread (64 KiB)', () => {
    const MIB = 1024 * 1024;
    let url: string;
    let server: ReturnType<typeof createHttpServer>;
    let requestBytes = 0;
    let answerClosedEarly = false;

    beforeAll(async () => {
      // Echoes the request's size, then sends `?mib=` MiB of 'x' in 64 KiB writes, honouring back-pressure.
      server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
        let received = 0;
        request.on('data', (chunk: Buffer) => (received += chunk.length));
        request.on('end', async () => {
          requestBytes = received;
          const mib = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('mib'));
          response.writeHead(200, { 'content-type': 'application/octet-stream' });
          response.on('close', () => (answerClosedEarly = !response.writableFinished));
          const piece = Buffer.alloc(64 * 1024, 'x');
          for (let sent = 0; sent < mib * MIB && !response.destroyed; sent += piece.length) {
            if (!response.write(piece)) await new Promise((resolve) => response.once('drain', resolve));
          }
          response.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });
    const send = (mib: number, signal = new AbortController().signal, body = Buffer.from('{}')) =>
      sendUpstream({ url: new URL(`${url}?mib=${mib}`), method: 'POST', headers: {}, body, signal, timeoutMs: 10_000 });

    it('reads a large answer whole, sending a large request (a long context, an image)', async () => {
      const answer = await send(8, undefined, Buffer.alloc(4 * MIB, 'a'));
      const bytes = await readAll(answer.body, 64 * MIB);
      expect(requestBytes).toBe(4 * MIB);
      expect(bytes.length).toBe(8 * MIB);
      expect(bytes.every((byte) => byte === 0x78)).toBe(true);
    });

    it('streams a large answer to a slow reader, holding back the upstream rather than buffering it', async () => {
      const answer = await send(4);
      let total = 0;
      let largest = 0;
      for await (const chunk of answer.body) {
        total += chunk.length;
        largest = Math.max(largest, chunk.length);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      expect(total).toBe(4 * MIB);
      // Read 1 ms apart, what waited between two reads stayed near the high-water mark, not megabytes.
      expect(largest).toBeLessThan(1 * MIB);
    });

    it('refuses an answer over the limit and stops the upstream', async () => {
      const answer = await send(8);
      await expect(readAll(answer.body, 1 * MIB)).rejects.toMatchObject({ status: 502, code: 'upstream_answer_too_large' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answerClosedEarly).toBe(true);
    });

    it('stops the upstream when the reader stops early or the caller aborts', async () => {
      answerClosedEarly = false;
      const stopped = await send(8);
      for await (const chunk of stopped.body) if (chunk.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answerClosedEarly).toBe(true);

      answerClosedEarly = false;
      const controller = new AbortController();
      const aborted = await send(8, controller.signal);
      controller.abort(new Error('client disconnected'));
      await expect(readAll(aborted.body, 64 * MIB)).rejects.toThrow('client disconnected');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answerClosedEarly).toBe(true);
    });
  });
});
