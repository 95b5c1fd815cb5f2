import { IssuerMetadata } from './oidc-discovery';

export interface ClientCredentialsOptions {
  /** The OIDC issuer; its discovery document names the token endpoint. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The token endpoint, if you would rather not use discovery. */
  tokenEndpoint?: string;
  /** Bound on each call to the identity provider, in milliseconds. Default 5 000. */
  timeoutMs?: number;
  /** Milliseconds since the epoch (tests drive it). Default Date.now. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** The identity provider gave no token: its status and OAuth error code when it answered. Never carries the secret. */
export class ClientCredentialsError extends Error {
  constructor(
    message: string,
    /** The token endpoint's status; absent when it (or discovery) could not be reached. */
    readonly status?: number,
    /** OAuth's `error` (`invalid_client`…), when sent. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ClientCredentialsError';
  }
}

/** Seconds assumed when the identity provider does not say how long a token lives. */
const DEFAULT_LIFETIME_S = 60;

/**
 * The client-credentials grant (RFC 6749 §4.4) of one machine client: token endpoint from the
 * issuer's discovery document, client authentication with HTTP Basic (§2.3.1, which every
 * authorization server must support), the token kept until 10 % of its lifetime (at most 30 s)
 * is left; concurrent callers share one request; `invalidate` after a 401 gets a new one.
 */
export class ClientCredentials {
  private readonly metadata: IssuerMetadata;
  private cached?: { token: string; refreshAt: number };
  private requesting?: Promise<string>;

  constructor(private readonly options: ClientCredentialsOptions) {
    this.metadata = new IssuerMetadata(options.issuer, { timeoutMs: this.timeoutMs, ...(options.fetch ? { fetch: options.fetch } : {}) });
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 5_000;
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  /** A token valid for a while yet; rejects with ClientCredentialsError. */
  get(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    this.requesting ??= this.requestToken().finally(() => (this.requesting = undefined));
    return this.requesting;
  }

  /** A server refused `token` (401): forget it, so the next get() asks for a new one. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async requestToken(): Promise<string> {
    let endpoint: string;
    try {
      endpoint = this.options.tokenEndpoint ?? (await this.metadata.tokenEndpoint());
    } catch (error) {
      throw new ClientCredentialsError(`the identity provider's discovery document could not be read: ${errorText(error)}`);
    }
    const form = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    const credentials = Buffer.from(`${form(this.options.clientId)}:${form(this.options.clientSecret)}`).toString('base64');
    let response: Response;
    let text: string;
    try {
      response = await (this.options.fetch ?? fetch)(endpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new ClientCredentialsError(`the token endpoint ${endpoint} could not be reached: ${errorText(error)}`);
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // reported below with the status
    }
    const code = typeof body['error'] === 'string' ? body['error'] : undefined;
    if (!response.ok) {
      const reason = code !== undefined ? `${code}${body['error_description'] ? `: ${String(body['error_description'])}` : ''}` : text.slice(0, 200);
      throw new ClientCredentialsError(`${endpoint} answered ${response.status} ${reason}`.trim(), response.status, code);
    }
    const token = body['access_token'];
    if (typeof token !== 'string' || token === '') throw new ClientCredentialsError(`the token endpoint ${endpoint} answered without an access_token`, response.status);
    const lifetimeMs = (typeof body['expires_in'] === 'number' && body['expires_in'] > 0 ? body['expires_in'] : DEFAULT_LIFETIME_S) * 1000;
    this.cached = { token, refreshAt: this.now() + lifetimeMs - Math.min(30_000, lifetimeMs / 10) };
    return token;
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
