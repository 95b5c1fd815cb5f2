import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ClientCapabilities, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamDefinition } from '../registry/server-registry';
import { checkUpstreamUrl, UpstreamUrlRefused } from '../registry/upstream-url-guard';
import { probeDiscoverFirst, DiscoverFirstUpstreamTransport } from './discover-first-upstream';
import { SseUpstreamTransport } from './sse-upstream';
import { StreamableHttpUpstreamTransport } from './streamable-http-upstream';
import { UpstreamConnectionError } from './upstream-http';
import type { UpstreamTransport } from './upstream-transport';

const GATEWAY_CLIENT = { name: 'arbor-mcp-gateway', version: '1.0.0' };
/** Shared: each client would otherwise build its own (a millisecond per session). */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** How a link's clients are made: what they declare and which handlers they carry. */
export interface LinkSetup {
  capabilities: ClientCapabilities;
  /** Installs notification and request handlers on each new client, before it connects. */
  configure?(client: Client): void;
  /** A new session is open, on a transport of this kind. */
  onOpen?(client: Client, transport: UpstreamTransport): void;
  /** The connection broke (not called after close()). */
  onLost?(error: unknown): void;
  /** MCPGW_ALLOW_LINK_LOCAL_UPSTREAMS: otherwise link-local and metadata addresses are refused at connect time. */
  allowLinkLocal: boolean;
}

/**
 * One MCP session to one upstream, opened on first use and reopened after it is lost (upstream
 * restarted, session expired, stream dropped). A call that fails because the session was lost is
 * retried once on a fresh session: it never reached a live session, so it did not run twice.
 */
export class UpstreamLink {
  private client?: Client;
  private opening?: Promise<Client>;
  /** The protocol version spoken with the upstream on the current session. */
  version?: string;
  private closed = false;

  constructor(
    private readonly definition: UpstreamDefinition,
    private readonly setup: LinkSetup,
  ) {}

  /** The open client, if any. */
  get current(): Client | undefined {
    return this.client;
  }

  open(): Promise<Client> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    if (this.client) return Promise.resolve(this.client);
    this.opening ??= this.connect().finally(() => (this.opening = undefined));
    return this.opening;
  }

  async use<T>(call: (client: Client, transport: UpstreamTransport) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const client = await this.open();
    try {
      return await call(client, this.transportOf(client));
    } catch (error) {
      if (signal?.aborted || !isConnectionLoss(error)) throw error;
      this.lost(client, error);
      const fresh = await this.open();
      return call(fresh, this.transportOf(fresh));
    }
  }

  /** Forgets the current session (after a failed ping): the next use opens a new one. */
  drop(error: unknown): void {
    if (this.client) this.lost(this.client, error);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.opening?.catch(() => undefined));
    const transport = client && this.transportOf(client);
    this.client = undefined;
    if (!client) return;
    // Tell the upstream the session is over, so it frees it now rather than at its timeout.
    await transport?.endSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = new Client(GATEWAY_CLIENT, { capabilities: this.setup.capabilities, jsonSchemaValidator: SCHEMA_VALIDATOR });
    this.setup.configure?.(client);
    // The registry checked the URL when it was written; what it resolves to now is what counts.
    await checkUpstreamUrl(this.definition.url, { allowLinkLocal: this.setup.allowLinkLocal });
    const transport = await upstreamTransport(this.definition, this.setup.allowLinkLocal);
    const setVersion = transport.setProtocolVersion?.bind(transport);
    // The version the SDK client agreed on at initialize; a discover-first upstream's is fixed by discovery.
    this.version = transport.discoveredVersion;
    transport.setProtocolVersion = (version) => {
      if (transport.discoveredVersion === undefined) this.version = version;
      setVersion?.(version);
    };
    // Only a session still in use is lost: one closed on purpose needs no error (a stack trace per session).
    client.onclose = () => {
      if (this.client === client) this.lost(client, new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    };
    // An SSE upstream's session lives and dies with its event stream.
    client.onerror = (error) => {
      if (transport.traits.sessionIsStream && isConnectionLoss(error)) this.lost(client, error);
    };
    try {
      await client.connect(transport, { timeout: this.definition.timeoutMs });
    } catch (error) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
    }
    this.client = client;
    this.setup.onOpen?.(client, transport);
    return client;
  }

  /** The transport a client of this link is connected on: connect() gives every one an UpstreamTransport. */
  private transportOf(client: Client): UpstreamTransport {
    return client.transport as UpstreamTransport;
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.close().catch(() => undefined);
    if (!this.closed) this.setup.onLost?.(error);
  }
}

/**
 * The newest era the upstream speaks: a Streamable HTTP upstream is probed with `server/discover`
 * and reached in the 2026-07-28 revision when it answers, with `initialize` otherwise; SSE is of
 * the older versions only.
 */
async function upstreamTransport(definition: UpstreamDefinition, allowLinkLocal: boolean): Promise<UpstreamTransport> {
  const url = new URL(definition.url);
  if (definition.transport === 'sse') return new SseUpstreamTransport(url, definition.headers, allowLinkLocal);
  const discovered = await probeDiscoverFirst(url, definition.headers, allowLinkLocal, definition.timeoutMs);
  return discovered
    ? new DiscoverFirstUpstreamTransport(url, definition.headers, allowLinkLocal, discovered)
    : new StreamableHttpUpstreamTransport(url, definition.headers, allowLinkLocal);
}

/** The session is gone (not the call refused): worth one retry on a new session. */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404;
  if (error instanceof SseError) return true;
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof UpstreamConnectionError) return true; // refused, reset
  if (error instanceof TypeError) return true; // the SSE client's fetch failed: refused, reset
  // The SSE client's POST to an endpoint whose session the restarted upstream no longer knows.
  return error instanceof Error && (error.message === 'Not connected' || /^Error POSTing to endpoint \(HTTP 40[04]\)/.test(error.message));
}

/** Why an upstream failed, in words safe for health and errors (no URL, header or body text). */
export function describeFailure(error: unknown): string {
  if (error instanceof UpstreamUrlRefused) return `address refused (${error.reason})`;
  const refused = error instanceof Error ? findCause(error, UpstreamUrlRefused) : undefined;
  if (refused) return `address refused (${refused.reason})`;
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return error.code !== undefined && error.code > 0 ? `HTTP ${error.code}` : 'unreachable';
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'timed out';
    if (error.code === ErrorCode.ConnectionClosed) return 'connection closed';
    return `MCP error ${error.code}`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code) return `network error ${code}`;
  const http = error instanceof Error ? /\(HTTP (\d{3})\)/.exec(error.message) : null;
  return http ? `HTTP ${http[1]}` : 'unreachable';
}

/** The error, or one of its causes, of a class: a refused address arrives wrapped by fetch or the transport. */
function findCause<T extends Error>(error: Error, type: new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}
