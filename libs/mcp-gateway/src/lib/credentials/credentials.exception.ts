import { ApiError } from '@arbor/platform';

/** Why the gateway cannot authenticate a caller at an upstream; stable codes for clients and the UI. */
export type CredentialsProblem =
  'person_required' | 'token_exchange_not_configured' | 'token_exchange_failed' | 'oauth_not_configured' | 'oauth_connection_required' | 'oauth_failed';

/**
 * The caller cannot be authenticated at the upstream, so the call is not made (never made without
 * credentials, nor with anyone else's). The message is for the person: it names the upstream and
 * what to do, never a token or secret. `connectUrl`: where a person connects their account.
 */
export class CredentialsUnavailable extends Error {
  constructor(
    readonly code: CredentialsProblem,
    readonly upstream: string,
    message: string,
    readonly connectUrl?: string,
  ) {
    super(message);
    this.name = 'CredentialsUnavailable';
  }
}

/** A change of an auth that is valid only with what is stored, and that is missing; answered as the admin API's validation errors are. */
export class UpstreamAuthInvalid extends ApiError {
  constructor(problem: string) {
    super(400, 'invalid_request', `Invalid auth: ${problem}`, { fields: { auth: [problem] } });
  }
}
