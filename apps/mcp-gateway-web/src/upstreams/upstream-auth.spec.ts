import { authBody, authDraftOf, authSummary } from './upstream-auth';

describe("an upstream's auth as its form edits it", () => {
  it('sends a token exchange with its audience and scope, trimmed, and nothing of the other types', () => {
    const draft = { ...authDraftOf(undefined), type: 'token_exchange' as const, audience: ' arbor-tool-server ', scope: '', clientId: 'left over' };
    expect(authBody(draft)).toEqual({ type: 'token_exchange', audience: 'arbor-tool-server' });
  });

  it("lets the gateway register its own OAuth client, or sends the configured one's id, secret and client-credentials grant", () => {
    const oauth = { ...authDraftOf(undefined), type: 'oauth' as const, scope: 'wiki:read', clientId: 'wiki', clientSecret: 's3cret', clientCredentials: true };
    expect(authBody(oauth)).toEqual({ type: 'oauth', scope: 'wiki:read' });
    expect(authBody({ ...oauth, client: 'configured' })).toEqual({ type: 'oauth', scope: 'wiki:read', client_id: 'wiki', client_secret: 's3cret', client_credentials: true });
  });

  it('leaves a stored client secret out when none is typed (the API keeps it for the same client id), and never shows it', () => {
    const shown = { type: 'oauth' as const, client_id: 'wiki', has_client_secret: true, client_credentials: false };
    const draft = authDraftOf(shown);
    expect(draft).toMatchObject({ type: 'oauth', client: 'configured', clientId: 'wiki', clientSecret: '' });
    expect(authBody(draft)).toEqual({ type: 'oauth', client_id: 'wiki' });
    expect(authSummary(shown)).toBe("each person's own account (OAuth, client wiki)");
  });
});
