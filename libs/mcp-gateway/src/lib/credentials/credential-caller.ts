/**
 * Who an upstream call is made for, as the credentials module and the audit need to know it: a
 * person with their own sign-in token (to exchange), or a machine (an MCP API key) with none.
 * Either way `principal` is the grant's: the OIDC `sub`, or `key:<id>`.
 */
export type CredentialCaller = PersonCaller | MachineCaller;

export interface PersonCaller {
  kind: 'person';
  /** The identity provider's `sub`. */
  principal: string;
  /** The person's own bearer token as presented to the gateway: only ever sent to the identity provider, to exchange. */
  token: string;
}

export interface MachineCaller {
  kind: 'machine';
  /** `key:<id>` and the like. */
  principal: string;
}

/** The key credentials are kept under for this caller: never a token. */
export function callerKey(caller: CredentialCaller): string {
  return caller.kind === 'person' ? `person:${caller.principal}` : caller.principal;
}
