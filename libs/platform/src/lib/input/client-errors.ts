import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

const MESSAGES: Record<number, { code: string; message: string }> = {
  400: { code: 'malformed_request', message: 'The request is not valid HTTP/1.1.' },
  408: { code: 'request_timeout', message: 'The request was not received in time.' },
  431: {
    code: 'request_header_fields_too_large',
    message: 'The request headers are too large: at most 16 KiB of headers in all (Node.js --max-http-header-size).',
  },
};

/**
 * Requests Node's HTTP parser refuses before any route sees them (headers over the size limit,
 * malformed HTTP) are answered in JSON like every other error, instead of Node's bare status
 * line. The route is not known yet, so the body is one every API family of the suite reads: the
 * platform's `error.code`/`error.message`, OpenAI's `error.type`/`error.param` and Anthropic's
 * top-level `"type": "error"` together.
 */
export function answerClientErrorsInJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const { code, message } = MESSAGES[status];
    answerOnSocket(socket, status, { type: 'error', error: { type: 'invalid_request_error', code, message, param: null } });
  });
}

/**
 * A JSON answer written straight to a socket no HTTP response object owns (a refused WebSocket
 * upgrade, a request Node's parser refused), closing the connection.
 */
export function answerOnSocket(socket: Duplex, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    ...Object.entries({ ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), connection: 'close' }).map(
      ([name, value]) => `${name}: ${value}`,
    ),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
}
