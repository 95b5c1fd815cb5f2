import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ClientCapabilities,
  ClientRequest,
  Notification,
  PromptListChangedNotificationSchema,
  Request,
  RequestId,
  ResourceListChangedNotificationSchema,
  Result,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ForwardOptions, UpstreamCaller, UpstreamPool } from './upstream-pool';
import { UpstreamLink } from './upstream-link';
import type { CredentialCaller } from '../credentials/credential-caller';

/** The downstream client of a session, as its upstream sessions reach it. */
export interface DownstreamPeer {
  /** What the client declared at initialize (sampling, elicitation, roots). */
  capabilities(): ClientCapabilities;
  /** A request an upstream sends the client (sampling, elicitation, roots), answered by the client. */
  request(upstream: string, request: Request, signal: AbortSignal, relatedRequestId?: RequestId): Promise<Result>;
  /** A notification an upstream sends the client (logging, resource updated, …). */
  notify(upstream: string, notification: Notification, relatedRequestId?: RequestId): Promise<void>;
}

export interface SessionForwardOptions extends ForwardOptions {
  /** The downstream request this call serves: what the upstream sends meanwhile is related to it. */
  relatedRequestId?: RequestId;
}

/**
 * The upstream sessions of one downstream session: opened on first use, reused for every call of
 * that session, closed with it. They declare the client's own capabilities, so upstream
 * requests (sampling, elicitation, roots) and notifications reach that client and no other.
 */
export class UpstreamSessions implements UpstreamCaller {
  /** Per upstream: the session's own link, and the headers it was opened with (per-caller credentials change when renewed). */
  private readonly links = new Map<string, { link: UpstreamLink; definition: ConstructorParameters<typeof UpstreamLink>[0] }>();
  /** Downstream requests in flight per upstream, latest last: where upstream messages belong. */
  private readonly inflight = new Map<string, RequestId[]>();
  /** Notifications being relayed to the client, by the downstream request they belong to. */
  private readonly relaying = new Map<RequestId, Promise<void>[]>();
  private closed = false;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly peer: DownstreamPeer,
    /** Whom the session's calls are for, as of its latest request (upstreams with per-caller auth see that caller). */
    private readonly caller?: () => CredentialCaller,
  ) {}

  /** Upstreams this session has talked to. */
  get opened(): readonly Client[] {
    return [...this.links.values()].flatMap(({ link }) => (link.current ? [link.current] : []));
  }

  async forward(upstream: string, request: ClientRequest, options: SessionForwardOptions = {}): Promise<Result> {
    const related = options.relatedRequestId;
    const stack = this.inflight.get(upstream) ?? [];
    if (related !== undefined) {
      stack.push(related);
      this.inflight.set(upstream, stack);
      if (!this.relaying.has(related)) this.relaying.set(related, []);
    }
    try {
      const caller = options.caller ?? this.caller?.();
      return await this.pool.forwardOn(upstream, (up) => this.link(upstream, up), request, caller ? { ...options, caller } : options);
    } finally {
      if (related !== undefined) {
        stack.splice(stack.lastIndexOf(related), 1);
        if (stack.length === 0) this.inflight.delete(upstream);
        // What the upstream sent during the call reaches the client before the call's answer.
        const relays = this.relaying.get(related);
        this.relaying.delete(related);
        if (relays && relays.length > 0) await Promise.allSettled(relays);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map(({ link }) => link.close()));
  }

  private link(upstream: string, up: { definition: ConstructorParameters<typeof UpstreamLink>[0]; shared: UpstreamLink }): UpstreamLink {
    // A session that has ended has no sessions of its own left: stray calls use the shared one.
    if (this.closed) return up.shared;
    const existing = this.links.get(upstream);
    if (existing && (existing.definition === up.definition || sameHeaders(existing.definition.headers, up.definition.headers))) return existing.link;
    // The caller's credentials were renewed: a new upstream session carries the new ones.
    if (existing) setTimeout(() => void existing.link.close(), up.definition.timeoutMs).unref();
    const link = new UpstreamLink(up.definition, {
      capabilities: clientSide(this.peer.capabilities()),
      configure: (client) => this.relay(upstream, client),
      allowLinkLocal: this.pool.allowLinkLocal,
    });
    this.links.set(upstream, { link, definition: up.definition });
    return link;
  }

  private relay(upstream: string, client: Client): void {
    const related = () => this.inflight.get(upstream)?.at(-1);
    // List changes refresh the shared catalogue, which tells every session whose view it touches.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.pool.refresh(upstream, 'tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => this.pool.refresh(upstream, 'resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => this.pool.refresh(upstream, 'prompts'));
    client.fallbackNotificationHandler = (notification) => {
      const relatedId = related();
      const relay = this.peer.notify(upstream, notification, relatedId);
      if (relatedId !== undefined) this.relaying.get(relatedId)?.push(relay);
      return relay;
    };
    client.fallbackRequestHandler = (request, extra) => this.peer.request(upstream, { method: request.method, params: request.params }, extra.signal, related());
  }
}

function sameHeaders(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

/** The client-side capabilities worth declaring upstream: those the gateway can relay. */
function clientSide(capabilities: ClientCapabilities): ClientCapabilities {
  return {
    ...(capabilities.sampling ? { sampling: capabilities.sampling } : {}),
    ...(capabilities.elicitation ? { elicitation: capabilities.elicitation } : {}),
    ...(capabilities.roots ? { roots: capabilities.roots } : {}),
    ...(capabilities.experimental ? { experimental: capabilities.experimental } : {}),
  };
}
