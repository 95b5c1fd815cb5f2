import { Injectable } from '@nestjs/common';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The requests a stateless gateway is answering, so that a client's `notifications/cancelled`
 * (a POST of its own, with no session to tie it to) reaches the one it names: the same principal,
 * on the same endpoint, with that request id. A cancellation meant for another replica's request
 * finds nothing here and is taken as a late one.
 */
@Injectable()
export class StatelessCalls {
  private readonly running = new Map<string, () => void>();

  /** Keeps `cancel` for the request until the returned function is called (when it is answered). */
  track(principal: string, serverId: string | null, id: RequestId, cancel: () => void): () => void {
    const key = keyOf(principal, serverId, id);
    this.running.set(key, cancel);
    return () => {
      if (this.running.get(key) === cancel) this.running.delete(key);
    };
  }

  /** A `notifications/cancelled` from this principal on this endpoint: cancels the request it names. */
  cancel(principal: string, serverId: string | null, id: RequestId): boolean {
    const cancel = this.running.get(keyOf(principal, serverId, id));
    cancel?.();
    return cancel !== undefined;
  }
}

function keyOf(principal: string, serverId: string | null, id: RequestId): string {
  return `${principal}\u0000${serverId ?? ''}\u0000${typeof id}:${String(id)}`;
}
