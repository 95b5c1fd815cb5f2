import { randomUUID } from 'node:crypto';
import { CallToolResult, ClientRequest, ErrorCode, McpError, Result, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import type { CredentialsUnavailable } from '../credentials/credentials.exception';

/**
 * A call the caller's credentials could not be had for, never made: a tool call answers a tool
 * error whose text says why (and holds the link a person connects with); a client that takes
 * URL-mode elicitations is asked to open that link instead; any other request is an error.
 */
export function refusedCall(request: ClientRequest, refusal: CredentialsUnavailable, elicitsUrls: boolean): Result {
  const data = { code: refusal.code, upstream: refusal.upstream, ...(refusal.connectUrl ? { connect_url: refusal.connectUrl } : {}) };
  if (refusal.connectUrl && elicitsUrls) {
    throw new UrlElicitationRequiredError(
      [{ mode: 'url', elicitationId: randomUUID(), url: refusal.connectUrl, message: `Connect your account at upstream "${refusal.upstream}" to use it through the gateway.` }],
      refusal.message,
    );
  }
  if (request.method === 'tools/call') {
    const text = refusal.connectUrl ? `${refusal.message}: ${refusal.connectUrl}` : refusal.message;
    return { content: [{ type: 'text', text }], isError: true, _meta: { 'arbor.dev/credentials': data } } as CallToolResult;
  }
  throw new McpError(ErrorCode.InvalidRequest, refusal.connectUrl ? `${refusal.message}: ${refusal.connectUrl}` : refusal.message, data);
}
