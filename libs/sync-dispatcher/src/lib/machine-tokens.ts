import { Clock, timeoutSignal } from './clock';

/** Bearer tokens for calling products. */
export interface AccessTokens {
  /** A token valid for a while yet; one request to the identity provider serves every caller waiting. */
  get(): Promise<string>;
  /** A product refused `token` (401): forget it, so the next get() asks for a new one. */
  invalidate(token: string): void;
}

export interface ClientCredentialsOptions {
  /** The OIDC issuer; its discovery document names the token endpoint. */
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  clock: Clock;
  /** Bound on each call to the identity provider. */
  timeoutMs: number;
}

interface CachedToken {
  token: string;
  /** When to ask for the next one: shortly before this one expires. */
  refreshAt: number;
}

/** Seconds assumed when the identity provider does not say how long a token lives. */
const DEFAULT_LIFETIME_S = 60;

/**
 * The client-credentials grant of the control plane's machine client (`control-plane-m2m`):
 * token endpoint from the issuer's discovery document, client authentication with HTTP Basic
 * (RFC 6749 §2.3.1), the token kept until 10 % of its lifetime (at most 30 s) is left.
 */
export class ClientCredentialsTokens implements AccessTokens {
  private tokenEndpoint?: Promise<string>;
  private cached?: CachedToken;
  private requesting?: Promise<string>;

  constructor(private readonly options: ClientCredentialsOptions) {}

  get(): Promise<string> {
    if (this.cached && this.options.clock.now() < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    this.requesting ??= this.requestToken().finally(() => (this.requesting = undefined));
    return this.requesting;
  }

  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async requestToken(): Promise<string> {
    const endpoint = await this.discoverTokenEndpoint();
    const form = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    const credentials = Buffer.from(`${form(this.options.clientId)}:${form(this.options.clientSecret)}`).toString('base64');
    const body = await this.fetchJson(endpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
    });
    const token = body['access_token'];
    if (typeof token !== 'string' || token === '') throw new Error(`the token endpoint ${endpoint} answered without an access_token`);
    const lifetimeMs = (typeof body['expires_in'] === 'number' && body['expires_in'] > 0 ? body['expires_in'] : DEFAULT_LIFETIME_S) * 1000;
    const obtainedAt = this.options.clock.now();
    this.cached = { token, refreshAt: obtainedAt + lifetimeMs - Math.min(30_000, lifetimeMs / 10) };
    return token;
  }

  private discoverTokenEndpoint(): Promise<string> {
    const discovery = `${this.options.issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    this.tokenEndpoint ??= this.fetchJson(discovery, { headers: { accept: 'application/json' } }).then((document) => {
      const endpoint = document['token_endpoint'];
      if (typeof endpoint !== 'string') throw new Error(`${discovery} names no token_endpoint`);
      return endpoint;
    });
    // A failed discovery is tried again by the next caller, not remembered.
    this.tokenEndpoint.catch(() => (this.tokenEndpoint = undefined));
    return this.tokenEndpoint;
  }

  private async fetchJson(url: string, init: RequestInit): Promise<Record<string, unknown>> {
    const deadline = timeoutSignal(this.options.clock, this.options.timeoutMs, `${url} did not answer within ${this.options.timeoutMs} ms`);
    try {
      const response = await fetch(url, { ...init, signal: deadline.signal, redirect: 'error' });
      const text = await response.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // reported below with the status
      }
      if (!response.ok) {
        const reason = typeof body['error'] === 'string' ? `${body['error']}${body['error_description'] ? `: ${String(body['error_description'])}` : ''}` : text.slice(0, 200);
        throw new Error(`${url} answered ${response.status} ${reason}`.trim());
      }
      return body;
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.signal.reason as Error;
      throw error;
    } finally {
      deadline.cancel();
    }
  }
}
