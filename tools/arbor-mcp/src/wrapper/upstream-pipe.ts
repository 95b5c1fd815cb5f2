// One URL: every JSON-RPC message passes unchanged in both directions (ids, cursors, `_meta`,
// progress tokens, cancellations, server→client requests), so the stdio client sees the upstream
// exactly as an HTTP client would. Only `initialize` is looked at, to open the upstream with it.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeUrl, messageOf, openUpstream } from '../upstream/open-upstream.ts';
import { errorResponse, type Bridge, type BridgeEvents } from './bridge.ts';

export function pipeToUpstream(client: Transport, url: URL, authorization: string | undefined, events: BridgeEvents): Bridge {
  let upstream: Transport | undefined;
  let opening = false;

  const toClient = (message: JSONRPCMessage): void => {
    client.send(message).catch((error: unknown) => events.log(`could not write to stdout: ${messageOf(error)}`));
  };

  client.onmessage = (message) => {
    if (upstream) {
      upstream.send(message).catch((error: unknown) => {
        if (isJSONRPCRequest(message)) toClient(errorResponse(message.id, messageOf(error)));
        else events.log(`could not forward ${'method' in message ? message.method : 'a response'}: ${messageOf(error)}`);
      });
      return;
    }
    if (isJSONRPCRequest(message) && isInitializeRequest(message) && !opening) {
      opening = true;
      openUpstream(url, authorization, message).then(
        (open) => {
          upstream = open.transport;
          upstream.onmessage = toClient;
          upstream.onerror = (error) => events.log(messageOf(error));
          upstream.onclose = () => events.ended(`${describeUrl(url)} closed the connection`);
          open.earlier.forEach(toClient);
          toClient(open.initializeResponse);
        },
        (error: unknown) => {
          opening = false;
          events.log(messageOf(error));
          toClient(errorResponse(message.id, messageOf(error)));
        },
      );
      return;
    }
    if (isJSONRPCRequest(message) && message.method === 'ping') toClient({ jsonrpc: '2.0', id: message.id, result: {} });
    else if (isJSONRPCRequest(message)) toClient(errorResponse(message.id, 'the upstream is not connected yet: send initialize first'));
  };

  return {
    async close() {
      const open = upstream;
      upstream = undefined;
      if (!open) return;
      open.onclose = undefined;
      // Ending the upstream session frees it on the gateway at once rather than at its idle timeout.
      if (open instanceof StreamableHTTPClientTransport) await open.terminateSession().catch(() => undefined);
      await open.close();
    },
  };
}
