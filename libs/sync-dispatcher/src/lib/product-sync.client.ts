import { Clock, DeadlineExceeded, timeoutSignal } from './clock';
import { describeFetchError } from './fetch-error';
import type { ClientCredentials } from '@arbor/contract';

/** What came of one sync call; everything but `delivered` is retried. */
export type SyncOutcome =
  | { kind: 'delivered'; status: number }
  /** The product answered, but not 2xx. */
  | { kind: 'rejected'; status: number; error: string }
  /** No answer in time. */
  | { kind: 'timeout'; error: string }
  /** No connection: refused, DNS, reset. */
  | { kind: 'unreachable'; error: string }
  /** No token from the identity provider, so no call. */
  | { kind: 'no_token'; error: string };

export interface SyncCall {
  url: string;
  slugs: string[];
  traceparent: string;
  /** Nothing may be sent after this time (the claim's lease, less a margin). */
  deadline: number;
}

/** The longest error text kept from a product's answer. */
const ERROR_BODY_LIMIT = 300;

/**
 * POSTs `{"slugs": [...]}` to a product with the machine token and the trace context, within the
 * request timeout and the claim's deadline. A 401 gets one retry with a fresh token.
 */
export class ProductSyncClient {
  constructor(
    private readonly tokens: Pick<ClientCredentials, 'get' | 'invalidate'>,
    private readonly clock: Clock,
    private readonly requestTimeoutMs: number,
  ) {}

  async send(call: SyncCall): Promise<SyncOutcome> {
    const body = JSON.stringify({ slugs: call.slugs });
    let token: string;
    try {
      token = await this.tokens.get();
    } catch (error) {
      return { kind: 'no_token', error: `no token: ${describeFetchError(error)}` };
    }
    const first = await this.post(call, body, token);
    if (first.kind !== 'rejected' || first.status !== 401) return first;
    // The product may know a newer signing key or have rejected an expired token: one fresh try.
    this.tokens.invalidate(token);
    try {
      token = await this.tokens.get();
    } catch (error) {
      return { kind: 'no_token', error: `no token after a 401: ${describeFetchError(error)}` };
    }
    return this.post(call, body, token);
  }

  private async post(call: SyncCall, body: string, token: string): Promise<SyncOutcome> {
    const budget = Math.min(this.requestTimeoutMs, call.deadline - this.clock.now());
    if (budget <= 0) return { kind: 'timeout', error: 'the claim ran out before the call could be made' };
    const deadline = timeoutSignal(this.clock, budget, `no answer within ${formatSeconds(budget)}`);
    try {
      const response = await fetch(call.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          traceparent: call.traceparent,
          'user-agent': 'arbor-sync-dispatcher',
        },
        body,
        // A redirect is not a success, and the token must not follow it elsewhere.
        redirect: 'manual',
        signal: deadline.signal,
      });
      const text = await response.text();
      if (response.status >= 200 && response.status < 300) return { kind: 'delivered', status: response.status };
      const detail = text.trim().slice(0, ERROR_BODY_LIMIT);
      return { kind: 'rejected', status: response.status, error: `HTTP ${response.status}${detail ? `: ${detail}` : ''}` };
    } catch (error) {
      if (deadline.signal.aborted && deadline.signal.reason instanceof DeadlineExceeded) return { kind: 'timeout', error: deadline.signal.reason.message };
      return { kind: 'unreachable', error: describeFetchError(error) };
    } finally {
      deadline.cancel();
    }
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
