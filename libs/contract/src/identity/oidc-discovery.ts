/** The fields of an OpenID Provider's discovery document this toolkit reads. */
export interface IssuerDocument {
  issuer: string;
  jwks_uri?: string;
  token_endpoint?: string;
  [field: string]: unknown;
}

export interface IssuerMetadataOptions {
  /** Per request, in milliseconds. Default 5 000. */
  timeoutMs?: number;
  /** After a failure, callers within this many milliseconds fail at once instead of each reaching a down issuer. Default 0. */
  retryDelayMs?: number;
  fetch?: typeof fetch;
}

/**
 * An issuer's discovery document (`<issuer>/.well-known/openid-configuration`), read on first use
 * (so a service starts while its identity provider is down), checked to name that issuer (OIDC
 * Discovery §4.3), kept once read; a failure is tried again by a later caller.
 */
export class IssuerMetadata {
  private document?: Promise<IssuerDocument>;
  private lastFailure?: { at: number; error: Error };

  constructor(
    readonly issuer: string,
    private readonly options: IssuerMetadataOptions = {},
  ) {}

  get url(): string {
    return `${this.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  }

  read(): Promise<IssuerDocument> {
    if (this.document) return this.document;
    const failure = this.lastFailure;
    if (failure && Date.now() - failure.at < (this.options.retryDelayMs ?? 0)) return Promise.reject(failure.error);
    this.document = this.fetchDocument().then(
      (document) => {
        this.lastFailure = undefined;
        return document;
      },
      (error: unknown) => {
        this.document = undefined;
        const failed = error instanceof Error ? error : new Error(String(error));
        this.lastFailure = { at: Date.now(), error: failed };
        throw failed;
      },
    );
    return this.document;
  }

  async jwksUri(): Promise<string> {
    const document = await this.read();
    if (typeof document.jwks_uri !== 'string') throw new Error(`${this.url} names no jwks_uri`);
    return document.jwks_uri;
  }

  async tokenEndpoint(): Promise<string> {
    const document = await this.read();
    if (typeof document.token_endpoint !== 'string') throw new Error(`${this.url} names no token_endpoint`);
    return document.token_endpoint;
  }

  private async fetchDocument(): Promise<IssuerDocument> {
    const url = this.url;
    const response = await (this.options.fetch ?? fetch)(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
    });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    const document = (await response.json()) as Partial<IssuerDocument>;
    if (document.issuer !== this.issuer) throw new Error(`${url} names issuer ${JSON.stringify(document.issuer)}`);
    return document as IssuerDocument;
  }
}
