import type { CredentialCaller } from './credential-caller';
import { CredentialsUnavailable } from './credentials.exception';
import { type CredentialStrategy, type PerCallerUpstream, UpstreamCredentials } from './upstream-credentials';

/** The credentials module as the gateway runs it: each per-caller `auth` type served by its strategy. */
export class StrategyCredentials extends UpstreamCredentials {
  constructor(private readonly strategies: Partial<Record<PerCallerUpstream['auth']['type'], CredentialStrategy>>) {
    super();
  }

  headersFor(upstream: PerCallerUpstream, caller: CredentialCaller | undefined): Promise<Record<string, string>> {
    const strategy = this.strategies[upstream.auth.type];
    if (!strategy) {
      const code = upstream.auth.type === 'oauth' ? 'oauth_not_configured' : 'token_exchange_not_configured';
      return Promise.reject(new CredentialsUnavailable(code, upstream.name, `Upstream "${upstream.name}" needs ${upstream.auth.type} auth, which this gateway is not set up for`));
    }
    return strategy.headersFor(upstream, caller);
  }
}
