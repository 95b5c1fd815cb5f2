import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { FederatedSession } from '../federation/federated-session';
import { McpMetrics } from '../metrics/mcp-metrics';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import { SessionOwners } from './session-owners';

export interface DownstreamSession<T extends Transport = Transport> {
  id: string;
  /** The virtual server, or null for the union endpoints. */
  serverId: string | null;
  federated: FederatedSession;
  transport: T;
  lastUsed: number;
  /** Ended after sessionIdleMs unused; SSE and WebSocket sessions end with their connection instead. */
  expires: boolean;
}

/**
 * The live downstream sessions (stateful Streamable HTTP, SSE, WebSocket), each bound to the
 * principal and server that opened it; sessions left idle are ended.
 */
@Injectable()
export class DownstreamSessions implements OnModuleDestroy {
  private readonly sessions = new Map<string, DownstreamSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
    metrics: McpMetrics,
    private readonly owners: SessionOwners,
  ) {
    metrics.observeSessions(() => this.sessions.size);
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, options.sessionIdleMs));
    this.sweeper.unref();
  }

  add(session: DownstreamSession): void {
    this.sessions.set(session.id, session);
    this.owners.claim(session.id);
  }

  /** The session, if it exists and belongs to this principal on this server. */
  find<T extends Transport>(id: string, principal: string, serverId: string | null, kind: new (...args: never[]) => T): DownstreamSession<T> | undefined {
    const session = this.sessions.get(id);
    if (!session || session.federated.principal !== principal || session.serverId !== serverId || !(session.transport instanceof kind)) return undefined;
    session.lastUsed = Date.now();
    this.owners.renew(id);
    return session as DownstreamSession<T>;
  }

  /** Forgets the session and closes its server and its upstream sessions. */
  async end(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.owners.release(id);
    await session.federated.close();
  }

  get size(): number {
    return this.sessions.size;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id)));
  }

  private sweep(): void {
    const cutoff = Date.now() - this.options.sessionIdleMs;
    for (const session of this.sessions.values()) if (session.expires && session.lastUsed < cutoff) void this.end(session.id);
  }
}
