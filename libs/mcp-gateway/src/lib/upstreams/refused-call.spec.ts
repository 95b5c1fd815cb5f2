import { ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { CredentialsUnavailable } from '../credentials/credentials.exception';
import { refusedCall } from './refused-call';

const call = { method: 'tools/call', params: { name: 'whoami', arguments: {} } } as const;
const connect = new CredentialsUnavailable(
  'oauth_connection_required',
  'wiki',
  'Connect your account at upstream "wiki" first',
  'https://mcp.example.com/oauth/connect/wiki?ticket=t',
);

describe('a call made without the credentials it needs', () => {
  it('answers a tool call with a tool error whose text holds the connect link and whose _meta says why', () => {
    expect(refusedCall(call, connect, false)).toEqual({
      content: [{ type: 'text', text: 'Connect your account at upstream "wiki" first: https://mcp.example.com/oauth/connect/wiki?ticket=t' }],
      isError: true,
      _meta: { 'arbor.dev/credentials': { code: 'oauth_connection_required', upstream: 'wiki', connect_url: 'https://mcp.example.com/oauth/connect/wiki?ticket=t' } },
    });
  });

  it('asks a client that takes URL elicitations to open the link (error -32042)', () => {
    let thrown: unknown;
    try {
      refusedCall(call, connect, true);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UrlElicitationRequiredError);
    expect((thrown as UrlElicitationRequiredError).code).toBe(-32042);
    expect((thrown as UrlElicitationRequiredError).elicitations).toEqual([
      expect.objectContaining({ mode: 'url', url: 'https://mcp.example.com/oauth/connect/wiki?ticket=t', elicitationId: expect.any(String) }),
    ]);
  });

  it('answers other requests with a JSON-RPC error carrying the same data', () => {
    const refusal = new CredentialsUnavailable('person_required', 'internal', 'Upstream "internal" acts for the person calling');
    expect(() => refusedCall({ method: 'resources/read', params: { uri: 'x://y' } }, refusal, true)).toThrow(
      new McpError(ErrorCode.InvalidRequest, 'Upstream "internal" acts for the person calling', { code: 'person_required', upstream: 'internal' }),
    );
  });
});
