import type { CredentialCaller } from './credential-caller';
import type { OAuthAuth, TokenExchangeAuth } from './upstream-auth';

/** An upstream whose callers are each authenticated as themselves (an MCP server, an A2A agent). */
export interface PerCallerUpstream {
  name: string;
  url: string;
  auth: TokenExchangeAuth | OAuthAuth;
}

/** One `auth` type's way of getting a caller's credentials for an upstream. */
export interface CredentialStrategy {
  /** The headers that authenticate `caller` at `upstream`; throws CredentialsUnavailable. */
  headersFor(upstream: PerCallerUpstream, caller: CredentialCaller | undefined): Promise<Record<string, string>>;
}

/**
 * The one credentials module of the suite's upstreams (tool servers and agents): the headers that
 * authenticate a caller at an upstream whose `auth` is per caller. The values live for the
 * request they are made for: never logged, and stored only sealed (OAuth tokens). Throws
 * CredentialsUnavailable when there are none to be had: a call is never made without them.
 */
export abstract class UpstreamCredentials {
  abstract headersFor(upstream: PerCallerUpstream, caller: CredentialCaller | undefined): Promise<Record<string, string>>;
}
