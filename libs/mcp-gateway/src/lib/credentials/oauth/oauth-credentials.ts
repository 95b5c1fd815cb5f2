import { Logger } from '@nestjs/common';
import { SealedSecret } from '@arbor/contract';
import { excerpt } from '@arbor/platform';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import type { HeaderCipher } from '../../registry/header-cipher';
import type { CredentialCaller } from '../credential-caller';
import { CredentialsUnavailable } from '../credentials.exception';
import { reasonOf } from '../token-exchange';
import type { OAuthAuth } from '../upstream-auth';
import type { CredentialStrategy, PerCallerUpstream } from '../upstream-credentials';
import { OAuthClient, OAuthConnection } from './oauth-connection.entity';
import { openToken, sealToken } from './sealed-tokens';

/** Where the browser is sent back after a person consents (relative to MCPGW_PUBLIC_URL). */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';
/** Where a person's connect link starts (then redirected to the upstream's authorisation server). */
export const OAUTH_CONNECT_PATH = '/oauth/connect';
/** How long a connect link and a started consent stay good. */
const LINK_LIFETIME_MS = 15 * 60_000;
/** A token is renewed when it expires within this. */
const EXPIRY_MARGIN_MS = 30_000;

export interface OAuthSettings {
  /** MCPGW_PUBLIC_URL: the callback and connect links are built on it. */
  publicUrl: string;
  cipher: HeaderCipher;
  dataSource: DataSource;
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS: the upstream's metadata and authorisation server are reached through the same address guard. */
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
}

interface Tokens {
  access_token: string;
  refresh_token?: string;
}

/** A person's connection as the connections API shows it. */
export interface ConnectionView {
  upstream: string;
  connected: boolean;
  connectedAt?: Date;
  expiresAt?: Date | null;
  scope?: string | null;
  /** Where the person connects (again). */
  connectUrl: string;
}

/** What the consent carries through the authorisation server, sealed: whose connection, to which upstream, and the PKCE verifier. */
interface ConsentState {
  u: string;
  s: string;
  v: string;
  e: number;
}

/**
 * `oauth`: each person connects once, in the browser, to the upstream's own authorisation server
 * (found from the upstream's RFC 9728 metadata, then RFC 8414), with a client the gateway was given
 * or registered there (RFC 7591); authorization code with PKCE through the gateway's callback, the
 * state sealed and bound to the person. Tokens are kept sealed in PostgreSQL, renewed with the
 * refresh token, and removed when the person disconnects. Machine callers use the client-credentials
 * grant where the upstream's auth allows it. openid-client does the OAuth.
 */
export class OAuthCredentials implements CredentialStrategy {
  private readonly logger = new Logger('OAuthCredentials');
  private readonly configurations = new Map<string, Promise<oidc.Configuration>>();
  /** Client-credentials tokens of the upstreams' own clients (machine callers), until shortly before they expire. */
  private readonly clientTokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly settings: OAuthSettings) {}

  async headersFor(upstream: PerCallerUpstream, caller: CredentialCaller | undefined): Promise<Record<string, string>> {
    const auth = this.authOf(upstream);
    if (caller?.kind !== 'person') {
      if (!auth.clientCredentials) {
        throw new CredentialsUnavailable(
          'person_required',
          upstream.name,
          `Upstream "${upstream.name}" is used with each person's own account (OAuth), and this caller is no person: call it with a person's sign-in token`,
        );
      }
      return { authorization: `Bearer ${await this.clientCredentialsToken(upstream)}` };
    }
    // Read per call (one primary-key row): a disconnect on any replica holds at once.
    const now = Date.now();
    const repository = this.settings.dataSource.getRepository(OAuthConnection);
    const row = await repository.findOneBy({ upstream: upstream.name, subject: caller.principal });
    if (!row) throw this.connectionRequired(upstream, caller.principal, `Connect your account at upstream "${upstream.name}" first`);
    let tokens = this.open(row);
    const expiresAt = row.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    if (expiresAt - EXPIRY_MARGIN_MS <= now) {
      if (!tokens.refresh_token) {
        await repository.delete({ upstream: upstream.name, subject: caller.principal });
        throw this.connectionRequired(upstream, caller.principal, `Your connection to upstream "${upstream.name}" has expired; connect again`);
      }
      try {
        const renewed = await oidc.refreshTokenGrant(await this.configuration(upstream), tokens.refresh_token, { resource: upstream.url });
        tokens = { access_token: renewed.access_token, refresh_token: renewed.refresh_token ?? tokens.refresh_token };
        await this.store(upstream, caller.principal, row.issuer, tokens, renewed.expiresIn(), renewed.scope ?? row.scope ?? undefined);
      } catch (error) {
        if (error instanceof CredentialsUnavailable) throw error;
        if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') {
          await repository.delete({ upstream: upstream.name, subject: caller.principal });
          throw this.connectionRequired(upstream, caller.principal, `Upstream "${upstream.name}" no longer accepts your connection; connect again`);
        }
        throw new CredentialsUnavailable('oauth_failed', upstream.name, `Your connection to upstream "${upstream.name}" could not be renewed: ${authorisationServerReason(error)}`);
      }
    }
    return { authorization: `Bearer ${tokens.access_token}` };
  }

  /** The link a person opens to connect: the gateway's own, which starts the consent when opened. */
  connectUrl(upstream: string, subject: string): string {
    const ticket = sealToken(this.settings.cipher, { u: upstream, s: subject, e: Date.now() + LINK_LIFETIME_MS }, 'oauth-connect');
    return `${this.settings.publicUrl}${OAUTH_CONNECT_PATH}/${encodeURIComponent(upstream)}?ticket=${ticket}`;
  }

  /** The person a connect link was made for; throws CredentialsUnavailable when it is not one of the gateway's, or expired. */
  ticketSubject(upstream: PerCallerUpstream, ticket: string): string {
    const opened = openToken<{ u: string; s: string; e: number }>(this.settings.cipher, ticket, 'oauth-connect');
    if (!opened || opened.u !== upstream.name || opened.e < Date.now()) {
      throw new CredentialsUnavailable('oauth_failed', upstream.name, 'This connect link is not valid or has expired; ask for a new one by calling the tool again');
    }
    return opened.s;
  }

  /** Opens a connect link: the authorisation server's URL to send the person's browser to. Throws CredentialsUnavailable. */
  async authorizationUrl(upstream: PerCallerUpstream, ticket: string): Promise<URL> {
    const auth = this.authOf(upstream);
    const opened = { s: this.ticketSubject(upstream, ticket) };
    const config = await this.configuration(upstream);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = sealToken(this.settings.cipher, { u: upstream.name, s: opened.s, v: verifier, e: Date.now() + LINK_LIFETIME_MS } satisfies ConsentState, 'oauth-state');
    const scope = auth.scope ?? (await this.resourceScopes(upstream));
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.callbackUrl(),
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      // RFC 8707, as MCP's authorization asks: tokens for this upstream only.
      resource: upstream.url,
      ...(scope ? { scope } : {}),
    });
  }

  /** The upstream a callback's state names, if the state is the gateway's and current. */
  stateUpstream(state: string): string | undefined {
    const opened = openToken<ConsentState>(this.settings.cipher, state, 'oauth-state');
    return opened && opened.e >= Date.now() ? opened.u : undefined;
  }

  /** Completes a consent at the callback: the code exchanged, the person's tokens stored. Returns the person's subject. */
  async complete(upstream: PerCallerUpstream, callbackUrl: URL): Promise<string> {
    const state = callbackUrl.searchParams.get('state') ?? '';
    const opened = openToken<ConsentState>(this.settings.cipher, state, 'oauth-state');
    if (!opened || opened.u !== upstream.name || opened.e < Date.now()) {
      throw new CredentialsUnavailable('oauth_failed', upstream.name, 'This consent is not valid or has expired; start again from the connect link');
    }
    const config = await this.configuration(upstream);
    let answer: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
    try {
      answer = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: opened.v, expectedState: state }, { resource: upstream.url });
    } catch (error) {
      throw new CredentialsUnavailable('oauth_failed', upstream.name, `The connection to upstream "${upstream.name}" failed: ${authorisationServerReason(error)}`);
    }
    await this.store(
      upstream,
      opened.s,
      config.serverMetadata().issuer,
      { access_token: answer.access_token, ...(answer.refresh_token ? { refresh_token: answer.refresh_token } : {}) },
      answer.expiresIn(),
      answer.scope,
    );
    return opened.s;
  }

  /** The person's connections to the `oauth` upstreams given. */
  async connections(upstreams: readonly PerCallerUpstream[], subject: string): Promise<ConnectionView[]> {
    const rows = await this.settings.dataSource.getRepository(OAuthConnection).findBy({ subject });
    return upstreams.map((upstream) => {
      const row = rows.find((candidate) => candidate.upstream === upstream.name);
      return {
        upstream: upstream.name,
        connected: row !== undefined,
        ...(row ? { connectedAt: row.createdAt, expiresAt: row.expiresAt, scope: row.scope } : {}),
        connectUrl: this.connectUrl(upstream.name, subject),
      };
    });
  }

  /** Forgets the person's tokens at the upstream, revoking them there where the server offers it; false when there were none. */
  async disconnect(upstream: PerCallerUpstream, subject: string): Promise<boolean> {
    const repository = this.settings.dataSource.getRepository(OAuthConnection);
    const row = await repository.findOneBy({ upstream: upstream.name, subject });
    if (!row) return false;
    await repository.delete({ upstream: upstream.name, subject });
    try {
      const config = await this.configuration(upstream);
      if (config.serverMetadata().revocation_endpoint) {
        const tokens = this.open(row);
        await oidc.tokenRevocation(config, tokens.refresh_token ?? tokens.access_token);
      }
    } catch (error) {
      // Forgotten here either way; the server's own expiry ends what it did not revoke.
      this.logger.warn(`revoking a connection at upstream ${upstream.name} failed: ${authorisationServerReason(error)}`);
    }
    return true;
  }

  private authOf(upstream: PerCallerUpstream): OAuthAuth {
    if (upstream.auth.type !== 'oauth') throw new Error(`upstream ${upstream.name} does not use OAuth`);
    return upstream.auth;
  }

  private connectionRequired(upstream: PerCallerUpstream, subject: string, message: string): CredentialsUnavailable {
    return new CredentialsUnavailable('oauth_connection_required', upstream.name, message, this.connectUrl(upstream.name, subject));
  }

  callbackUrl(): string {
    return `${this.settings.publicUrl}${OAUTH_CALLBACK_PATH}`;
  }

  /** The client-credentials token of the upstream's configured client, cached until shortly before it expires. */
  private async clientCredentialsToken(upstream: PerCallerUpstream): Promise<string> {
    const key = upstream.name;
    const cached = this.clientTokens.get(key);
    if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return cached.token;
    try {
      const answer = await oidc.clientCredentialsGrant(await this.configuration(upstream), {
        resource: upstream.url,
        ...(this.authOf(upstream).scope ? { scope: this.authOf(upstream).scope as string } : {}),
      });
      this.clientTokens.set(key, { token: answer.access_token, expiresAt: Date.now() + (answer.expiresIn() ?? 60) * 1000 });
      return answer.access_token;
    } catch (error) {
      if (error instanceof CredentialsUnavailable) throw error;
      throw new CredentialsUnavailable('oauth_failed', upstream.name, `Upstream "${upstream.name}" gave the gateway's client no token: ${authorisationServerReason(error)}`);
    }
  }

  /** The upstream's authorisation server and the gateway's client there; found (and registered) once per upstream. */
  private configuration(upstream: PerCallerUpstream): Promise<oidc.Configuration> {
    const key = `${upstream.name}\u0000${upstream.url}\u0000${JSON.stringify(upstream.auth)}`;
    let configuration = this.configurations.get(key);
    if (!configuration) {
      configuration = this.discover(upstream).catch((error: unknown) => {
        this.configurations.delete(key);
        if (error instanceof CredentialsUnavailable) throw error;
        throw new CredentialsUnavailable(
          'oauth_failed',
          upstream.name,
          `The authorisation server of upstream "${upstream.name}" cannot be used: ${authorisationServerReason(error)}`,
        );
      });
      this.configurations.set(key, configuration);
    }
    return configuration;
  }

  private async discover(upstream: PerCallerUpstream): Promise<oidc.Configuration> {
    const auth = this.authOf(upstream);
    const issuer = (await this.resourceMetadata(upstream)).authorization_servers?.[0];
    if (!issuer) throw new CredentialsUnavailable('oauth_failed', upstream.name, `Upstream "${upstream.name}" names no authorisation server in its protected resource metadata`);
    const server = new URL(issuer);
    const options = this.requestOptions(server);
    if (auth.clientId) {
      return oidc.discovery(server, auth.clientId, undefined, auth.clientSecret ? oidc.ClientSecretBasic(auth.clientSecret) : oidc.None(), options);
    }
    const clients = this.settings.dataSource.getRepository(OAuthClient);
    const known = await clients.findOneBy({ upstream: upstream.name });
    if (known && known.issuer === issuer) {
      const secret = known.secretKeyId ? this.openSealed(known, 'secret', `oauth-client:${upstream.name}`) : undefined;
      return oidc.discovery(server, known.clientId, undefined, secret ? oidc.ClientSecretBasic(secret) : oidc.None(), options);
    }
    // RFC 7591: a client of the gateway's own at this authorisation server, for this upstream.
    const registered = await oidc.dynamicClientRegistration(
      server,
      {
        client_name: 'Arbor MCP gateway',
        redirect_uris: [this.callbackUrl()],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      undefined,
      options,
    );
    const metadata = registered.clientMetadata();
    const secret = typeof metadata.client_secret === 'string' ? this.settings.cipher.sealValue(metadata.client_secret, `oauth-client:${upstream.name}`) : undefined;
    await clients.save({
      upstream: upstream.name,
      issuer,
      clientId: metadata.client_id,
      secretKeyId: secret?.keyId ?? null,
      secretNonce: secret?.nonce ?? null,
      secretCiphertext: secret?.ciphertext ?? null,
      secretAuthTag: secret?.authTag ?? null,
    });
    return registered;
  }

  /** RFC 9728: the upstream's protected resource metadata, at its well-known URL for the upstream's path. */
  private async resourceMetadata(upstream: PerCallerUpstream): Promise<oauth.ResourceServer> {
    const resource = new URL(upstream.url);
    const response = await oauth.resourceDiscoveryRequest(resource, {
      [oauth.customFetch]: this.settings.fetch,
      ...(resource.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}),
    });
    return oauth.processResourceDiscoveryResponse(resource, response);
  }

  /** Default scope: what the upstream's metadata says it supports. */
  private async resourceScopes(upstream: PerCallerUpstream): Promise<string | undefined> {
    const scopes = (await this.resourceMetadata(upstream).catch(() => undefined))?.scopes_supported;
    return scopes && scopes.length > 0 ? scopes.join(' ') : undefined;
  }

  private requestOptions(server: URL): oidc.DiscoveryRequestOptions {
    return {
      algorithm: 'oauth2',
      [oidc.customFetch]: this.settings.fetch as never,
      ...(server.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
    };
  }

  private async store(
    upstream: PerCallerUpstream,
    subject: string,
    issuer: string,
    tokens: Tokens,
    expiresIn: number | undefined,
    scope: string | undefined,
  ): Promise<OAuthConnection> {
    const sealed = this.settings.cipher.sealValue(JSON.stringify(tokens), `oauth-connection:${upstream.name}:${subject}`);
    const repository = this.settings.dataSource.getRepository(OAuthConnection);
    const row = {
      upstream: upstream.name,
      subject,
      issuer,
      tokensKeyId: sealed.keyId,
      tokensNonce: sealed.nonce,
      tokensCiphertext: sealed.ciphertext,
      tokensAuthTag: sealed.authTag,
      scope: scope ?? null,
      expiresAt: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000),
    };
    await repository.upsert(row, ['upstream', 'subject']);
    return repository.findOneByOrFail({ upstream: upstream.name, subject });
  }

  private open(row: OAuthConnection): Tokens {
    const sealed: SealedSecret = { keyId: row.tokensKeyId, nonce: row.tokensNonce, ciphertext: row.tokensCiphertext, authTag: row.tokensAuthTag };
    return JSON.parse(this.settings.cipher.openValue(sealed, `oauth-connection:${row.upstream}:${row.subject}`)) as Tokens;
  }

  private openSealed(row: OAuthClient, _column: 'secret', context: string): string {
    const sealed: SealedSecret = {
      keyId: row.secretKeyId as string,
      nonce: row.secretNonce as Buffer,
      ciphertext: row.secretCiphertext as Buffer,
      authTag: row.secretAuthTag as Buffer,
    };
    return this.settings.cipher.openValue(sealed, context);
  }
}

/** The authorisation server's words, or what kept it from answering (never a token). */
function authorisationServerReason(error: unknown): string {
  if (error instanceof oauth.OperationProcessingError || error instanceof oidc.ClientError) {
    if (!(error instanceof oidc.ResponseBodyError) && !(error instanceof oidc.WWWAuthenticateChallengeError)) return excerpt(error.message);
  }
  return reasonOf(error).replace('the identity provider', 'the authorisation server');
}
