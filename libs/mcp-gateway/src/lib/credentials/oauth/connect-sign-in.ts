import * as oidc from 'openid-client';
import type { HeaderCipher } from '../../registry/header-cipher';
import { CredentialsUnavailable } from '../credentials.exception';
import { reasonOf, type TokenExchangeSettings } from '../token-exchange';
import { openToken, sealToken } from './sealed-tokens';

/** Where the suite's identity provider sends the browser back, having said who it is (relative to MCPGW_PUBLIC_URL). */
export const SIGNED_IN_PATH = '/oauth/signed-in';
const SIGN_IN_LIFETIME_MS = 10 * 60_000;

/** What a sign-in carries through the identity provider, sealed: the connect link it confirms, and the PKCE verifier. */
interface SignInState {
  u: string;
  t: string;
  v: string;
  e: number;
}

/**
 * Who opens a connect link: before the consent at a third party, the browser signs in at the
 * suite's identity provider (authorization code + PKCE, the gateway's own client), and only the
 * person the link was made for goes on. A link passed to someone else would otherwise connect
 * their third-party account to the person who made it.
 */
export class ConnectSignIn {
  private configuration?: Promise<oidc.Configuration>;

  constructor(
    private readonly client: TokenExchangeSettings | undefined,
    private readonly publicUrl: string,
    private readonly cipher: HeaderCipher,
  ) {}

  /** The identity provider's sign-in for the browser that opened `ticket` of `upstream`. */
  async signInUrl(upstream: string, ticket: string): Promise<URL> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = sealToken(this.cipher, { u: upstream, t: ticket, v: verifier, e: Date.now() + SIGN_IN_LIFETIME_MS } satisfies SignInState, 'oauth-sign-in');
    return oidc.buildAuthorizationUrl(await this.config(upstream), {
      redirect_uri: this.callbackUrl(),
      response_type: 'code',
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
  }

  /** The signed-in person (`sub`) and the connect link the sign-in was for. Throws CredentialsUnavailable. */
  async complete(callbackUrl: URL): Promise<{ subject: string; upstream: string; ticket: string }> {
    const state = callbackUrl.searchParams.get('state') ?? '';
    const opened = openToken<SignInState>(this.cipher, state, 'oauth-sign-in');
    if (!opened || opened.e < Date.now()) throw new CredentialsUnavailable('oauth_failed', '', 'This sign-in is not valid or has expired; start again from the connect link');
    let claims: oidc.IDToken | undefined;
    try {
      const answer = await oidc.authorizationCodeGrant(await this.config(opened.u), callbackUrl, { pkceCodeVerifier: opened.v, expectedState: state });
      claims = answer.claims();
    } catch (error) {
      if (error instanceof CredentialsUnavailable) throw error;
      throw new CredentialsUnavailable('oauth_failed', opened.u, `Signing in to confirm who you are failed: ${reasonOf(error)}`);
    }
    if (!claims?.sub) throw new CredentialsUnavailable('oauth_failed', opened.u, 'The identity provider did not say who signed in');
    return { subject: claims.sub, upstream: opened.u, ticket: opened.t };
  }

  callbackUrl(): string {
    return `${this.publicUrl}${SIGNED_IN_PATH}`;
  }

  private config(upstream: string): Promise<oidc.Configuration> {
    const client = this.client;
    if (!client) {
      return Promise.reject(
        new CredentialsUnavailable(
          'oauth_not_configured',
          upstream,
          'Connecting an account needs the gateway to confirm who you are at the identity provider (MCPGW_OIDC_CLIENT_ID, MCPGW_OIDC_CLIENT_SECRET), which it is not set up for',
        ),
      );
    }
    const issuer = new URL(client.issuer);
    this.configuration ??= oidc
      .discovery(issuer, client.clientId, undefined, oidc.ClientSecretBasic(client.clientSecret), issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {})
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw new CredentialsUnavailable('oauth_failed', upstream, `The identity provider cannot be used to confirm who you are: ${reasonOf(error)}`);
      });
    return this.configuration;
  }
}
