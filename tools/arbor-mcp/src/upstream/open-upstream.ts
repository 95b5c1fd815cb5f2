// Opens a client transport to an MCP URL by sending the stdio client's own `initialize` through it:
// Streamable HTTP first, legacy HTTP+SSE when the URL ends in /sse or the server answers the
// Streamable HTTP initialize with a 4xx other than 401/403 (the spec's backwards-compatibility rule).
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCResultResponse, type JSONRPCMessage, type JSONRPCRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface OpenUpstream {
  transport: Transport;
  /** The upstream's answer to initialize (a result or a JSON-RPC error), with the caller's id. */
  initializeResponse: JSONRPCMessage;
  /** Messages the upstream sent before answering initialize (e.g. log notifications). */
  earlier: JSONRPCMessage[];
}

/** The URL without query or credentials, for messages on stderr: tokens sometimes ride in query strings. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export async function openUpstream(url: URL, authorization: string | undefined, initialize: JSONRPCRequest): Promise<OpenUpstream> {
  const requestInit: RequestInit = { headers: authorization ? { Authorization: authorization } : {} };
  if (!/\/sse\/?$/.test(url.pathname)) {
    const streamable = new StreamableHTTPClientTransport(url, { requestInit });
    try {
      return await initializeOver(streamable, initialize);
    } catch (error) {
      await streamable.close().catch(() => undefined);
      const status = error instanceof StreamableHTTPError ? (error.code ?? 0) : 0;
      // 401 and 403 are about who is asking, not about the transport: an SSE attempt would only hide them.
      if (status === 401 || status === 403) throw new Error(`${describeUrl(url)}: HTTP ${status}, the credentials were refused (see --auth or MCP_AUTH): ${messageOf(error)}`);
      if (status < 400 || status >= 500) throw upstreamError(url, error);
      try {
        return await initializeOver(new SSEClientTransport(url, { requestInit }), initialize);
      } catch (sseError) {
        throw new Error(`${describeUrl(url)}: Streamable HTTP refused (${messageOf(error)}); legacy SSE failed too (${messageOf(sseError)})`);
      }
    }
  }
  try {
    return await initializeOver(new SSEClientTransport(url, { requestInit }), initialize);
  } catch (error) {
    throw upstreamError(url, error);
  }
}

function initializeOver(transport: Transport, initialize: JSONRPCRequest): Promise<OpenUpstream> {
  return new Promise((resolve, reject) => {
    const earlier: JSONRPCMessage[] = [];
    transport.onmessage = (message) => {
      if (!isResponseTo(message, initialize.id)) {
        earlier.push(message);
        return;
      }
      if (isJSONRPCResultResponse(message)) transport.setProtocolVersion?.(String(message.result['protocolVersion']));
      resolve({ transport, initializeResponse: message, earlier });
    };
    transport.onerror = reject;
    transport.onclose = () => reject(new Error('the connection closed before initialize was answered'));
    transport
      .start()
      .then(() => transport.send(initialize))
      .catch(reject);
  });
}

function isResponseTo(message: JSONRPCMessage, id: RequestId): boolean {
  return !('method' in message) && 'id' in message && message.id === id;
}

function upstreamError(url: URL, error: unknown): Error {
  return new Error(`${describeUrl(url)}: ${messageOf(error)}`);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
