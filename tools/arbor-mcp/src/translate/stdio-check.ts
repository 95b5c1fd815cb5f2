// Before `translate --stdio` says it serves a command, the command is run once and must answer an
// `initialize`: a typo in the command or a missing file is then said at start, in one line, rather
// than at a client's first request.
import { LATEST_PROTOCOL_VERSION, isJSONRPCErrorResponse, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { ChildProcessTransport } from './child-process-transport.ts';

/** `npx -y some-server` may download the server first. */
export const CHECK_TIMEOUT_MS = 60_000;

/** Resolves once `command` answers an initialize; rejects with one line saying why it did not. */
export async function checkStdioServer(command: string, timeoutMs = CHECK_TIMEOUT_MS): Promise<void> {
  const child = new ChildProcessTransport(command);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`"${command}" did not answer an MCP initialize within ${timeoutMs / 1000} s`)), timeoutMs);
      child.onmessage = (message) => {
        if (isJSONRPCResultResponse(message) && message.id === 0) resolve();
        else if (isJSONRPCErrorResponse(message) && message.id === 0) reject(new Error(`"${command}" refused an MCP initialize: ${message.error.message}`));
      };
      // The shell's own words (`not found`, node's `Cannot find module`) are on stderr just above.
      child.onclose = () =>
        reject(
          new Error(
            `"${command}" ${child.ended === 'exit code 127' ? 'is not a command the shell finds (exit code 127)' : `exited (${child.ended}) before answering an MCP initialize`}`,
          ),
        );
      child.onerror = () => undefined;
      child
        .start()
        .then(() =>
          child.send({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'arbor-mcp-check', version: '1.0.0' } },
          }),
        )
        .catch((error: unknown) => reject(new Error(`"${command}" could not be started: ${error instanceof Error ? error.message : String(error)}`)));
    });
  } finally {
    clearTimeout(timer);
    child.onclose = undefined;
    await child.close();
  }
}
