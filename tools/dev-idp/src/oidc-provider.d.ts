// oidc-provider ships no type declarations and @types/oidc-provider is not installed; these
// cover only what the dev identity provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type { JsonWebKey } from 'node:crypto';

  export type AdapterPayload = Record<string, unknown> & {
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  };

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post';
    grant_types: string[];
    response_types: string[];
    redirect_uris: string[];
    post_logout_redirect_uris: string[];
  }

  export interface Client {
    readonly clientId: string;
    readonly clientAuthMethod: string;
    readonly redirectUris: string[];
    readonly postLogoutRedirectUris: string[];
    grantTypeAllowed(type: string): boolean;
    redirectUriAllowed(value: string): boolean;
    postLogoutRedirectUriAllowed(value: string): boolean;
  }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg?: string; kid?: string } };
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>>;
  }

  /** An access token (authorization code, refresh, password grant) or a client-credentials token. */
  export interface IssuedToken {
    readonly kind: string;
    readonly clientId: string;
    readonly accountId?: string;
    /** The grant that issued it (`password`, `token_exchange`, …). */
    readonly gty?: string;
    readonly resourceServer?: { readonly audience?: string };
    scope?: string;
  }

  export interface StructuredToken {
    header?: Record<string, unknown>;
    payload: Record<string, unknown>;
  }

  export interface OIDCContext {
    readonly provider: Provider;
    readonly client?: Client;
    readonly params: Record<string, string | undefined>;
    entity(key: string, value: unknown): void;
  }

  /** The Koa context oidc-provider hands to helpers and grant handlers. */
  export interface KoaContextWithOIDC {
    readonly oidc: OIDCContext;
    readonly host: string;
    body: unknown;
    type: string;
    status: number;
  }

  export interface Interaction {
    readonly uid: string;
    readonly prompt: {
      name: string;
      reasons: string[];
      details: {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
    };
    readonly params: Record<string, unknown>;
    readonly session?: { accountId: string };
    readonly grantId?: string;
  }

  export type InteractionResults = { login: { accountId: string; remember?: boolean } } | { consent: { grantId: string } } | { error: string; error_description?: string };

  export interface Configuration {
    adapter?: (modelName: string) => Adapter;
    clients?: ClientMetadata[];
    jwks?: { keys: JsonWebKey[] };
    cookies?: {
      names?: { session: string; interaction: string; resume: string };
      long?: { httpOnly: boolean; sameSite: 'lax' | 'strict' | 'none'; path?: string };
      keys?: string[];
    };
    claims?: Record<string, string[] | null>;
    responseTypes?: string[];
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    routes?: Record<string, string>;
    ttl?: Record<string, number>;
    pkce?: { required: (ctx: KoaContextWithOIDC, client: Client) => boolean };
    clientBasedCORS?: (ctx: KoaContextWithOIDC, origin: string, client: Client) => boolean;
    findAccount?: (ctx: KoaContextWithOIDC, sub: string) => Promise<Account | undefined>;
    issueRefreshToken?: (ctx: KoaContextWithOIDC, client: Client) => Promise<boolean>;
    interactions?: { url: (ctx: KoaContextWithOIDC, interaction: Interaction) => Promise<string> };
    renderError?: (ctx: KoaContextWithOIDC, out: Record<string, string>, error: Error) => Promise<void>;
    formats?: {
      customizers?: {
        jwt?: (ctx: KoaContextWithOIDC, token: IssuedToken, jwt: StructuredToken) => Promise<void>;
      };
    };
    features?: {
      devInteractions?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      pushedAuthorizationRequests?: { enabled: boolean };
      revocation?: { enabled: boolean };
      userinfo?: { enabled: boolean };
      rpInitiatedLogout?: {
        enabled: boolean;
        logoutSource?: (ctx: KoaContextWithOIDC, form: string) => Promise<void>;
        postLogoutSuccessSource?: (ctx: KoaContextWithOIDC) => Promise<void>;
      };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: KoaContextWithOIDC, client: Client, oneOf?: string[]) => Promise<string | string[]>;
        useGrantedResource?: (ctx: KoaContextWithOIDC, model: unknown) => Promise<boolean>;
        getResourceServerInfo?: (ctx: KoaContextWithOIDC, resourceIndicator: string, client: Client) => Promise<ResourceServerInfo>;
      };
    };
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export class ResourceServer {
    constructor(identifier: string, info: ResourceServerInfo);
  }

  export class AccessToken {
    constructor(properties: { accountId: string; client: Client; gty: string; scope: string });
    resourceServer: ResourceServer;
    readonly expiration: number;
    save(): Promise<string>;
  }

  export class IdToken {
    constructor(claims: Record<string, unknown>, options: { ctx: KoaContextWithOIDC });
    scope: string;
    set(claim: string, value: unknown): void;
    issue(options: { use: 'idtoken' }): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Configuration);
    readonly issuer: string;
    readonly Client: { prototype: Client };
    readonly Grant: typeof Grant;
    readonly AccessToken: typeof AccessToken;
    readonly IdToken: typeof IdToken;
    readonly ResourceServer: typeof ResourceServer;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResults): Promise<void>;
    registerGrantType(name: string, handler: (ctx: KoaContextWithOIDC) => Promise<void>, parameters: string[]): void;
    on(event: 'server_error', listener: (ctx: KoaContextWithOIDC, error: Error) => void): this;
  }

  type ErrorClass = new (description?: string) => Error;

  export const errors: {
    InvalidRequest: ErrorClass;
    InvalidTarget: ErrorClass;
    SessionNotFound: ErrorClass;
    CustomOIDCProviderError: new (error: string, description: string) => Error;
  };

  export default Provider;
}
