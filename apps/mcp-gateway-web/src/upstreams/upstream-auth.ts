import type { UpstreamAuth, UpstreamAuthBody } from '../api/mcp-gateway-api';

/** An upstream's `auth` as its form edits it: every field as typed, whichever type is chosen. */
export interface AuthDraft {
  type: UpstreamAuth['type'];
  audience: string;
  scope: string;
  /** oauth: the gateway registers a client itself (RFC 7591), or uses the one given. */
  client: 'registered' | 'configured';
  clientId: string;
  /** Write-only: empty keeps a stored secret of the same client id. */
  clientSecret: string;
  clientCredentials: boolean;
}

export function authDraftOf(auth: UpstreamAuth | undefined): AuthDraft {
  const draft: AuthDraft = { type: 'static', audience: '', scope: '', client: 'registered', clientId: '', clientSecret: '', clientCredentials: false };
  if (!auth || auth.type === 'static') return draft;
  if (auth.type === 'token_exchange') return { ...draft, type: 'token_exchange', audience: auth.audience, scope: auth.scope ?? '' };
  return {
    ...draft,
    type: 'oauth',
    scope: auth.scope ?? '',
    client: auth.client_id !== undefined ? 'configured' : 'registered',
    clientId: auth.client_id ?? '',
    clientCredentials: auth.client_credentials,
  };
}

/** The draft as the admin API takes it (its checks, such as a required audience, answer for the fields). */
export function authBody(draft: AuthDraft): UpstreamAuthBody {
  const scope = draft.scope.trim() ? { scope: draft.scope.trim() } : {};
  if (draft.type === 'static') return { type: 'static' };
  if (draft.type === 'token_exchange') return { type: 'token_exchange', audience: draft.audience.trim(), ...scope };
  if (draft.client === 'registered') return { type: 'oauth', ...scope };
  return {
    type: 'oauth',
    ...scope,
    client_id: draft.clientId.trim(),
    ...(draft.clientSecret !== '' ? { client_secret: draft.clientSecret } : {}),
    ...(draft.clientCredentials ? { client_credentials: true } : {}),
  };
}

/** One line on how each call is authenticated, for the upstream list. */
export function authSummary(auth: UpstreamAuth): string {
  if (auth.type === 'static') return 'its headers, whoever calls';
  if (auth.type === 'token_exchange') return `the calling person, by token exchange for ${auth.audience}`;
  const client = auth.client_id === undefined ? 'a client it registered' : `client ${auth.client_id}`;
  return `each person's own account (OAuth, ${client}${auth.client_credentials ? '; API keys by client credentials' : ''})`;
}
