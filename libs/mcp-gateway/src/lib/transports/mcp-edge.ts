import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { answerOnSocket, excerpt, nestingProblem, readRequestBody } from '@arbor/platform';
import { ErrorCode, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { McpAccessError, McpAccessGrant, McpAccessPolicy } from '../access/mcp-access';
import { metadataUrl } from '../oauth/protected-resource';
import { ServerRegistry } from '../registry/server-registry';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';
import { isSupportedVersion, negotiateInitialize, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/protocol-versions';

/** The revision's UnsupportedProtocolVersionError code, answered to both eras (an older client reads the 400 and the list). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An HTTP answer refusing a request, with a JSON-RPC error body. */
export interface Refusal {
  status: number;
  headers?: Record<string, string>;
  body: { jsonrpc: '2.0'; error: { code: number; message: string; data?: unknown }; id: RequestId | null };
}

export type Admission = { grant: McpAccessGrant; body?: unknown } | { refusal: Refusal };

/** An HTTP request as it reaches a route: Nest's body parser may have read the body already. */
export type McpHttpRequest = IncomingMessage & { body?: unknown; originalUrl?: string };

export function refusal(status: number, message: string, data?: unknown, code: number = ErrorCode.ConnectionClosed): Refusal {
  return { status, body: { jsonrpc: '2.0', error: { code, message, ...(data !== undefined ? { data } : {}) }, id: null } };
}

/** 400 naming the versions the gateway speaks: what every era's client is told for a version it does not. */
export function unsupportedVersion(requested: string, id: RequestId | null = null): Refusal {
  // What the client sent is echoed bounded: a header can be long.
  const message = `Bad Request: Unsupported protocol version: ${excerpt(requested)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
  return {
    status: 400,
    body: { jsonrpc: '2.0', error: { code: UNSUPPORTED_PROTOCOL_VERSION, message, data: { supported: [...SUPPORTED_PROTOCOL_VERSIONS], requested: excerpt(requested) } }, id },
  };
}

export function sendRefusal(res: ServerResponse, { status, headers, body }: Refusal): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The id of a single JSON-RPC request, null for anything else. */
function requestIdIn(body: unknown): RequestId | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The same answer on a socket being upgraded to WebSocket. */
export function sendRefusalOnSocket(socket: Duplex, { status, headers, body }: Refusal): void {
  answerOnSocket(socket, status, body, headers);
}

/**
 * What every MCP request passes before a transport sees it, in this order: the Origin check
 * (DNS rebinding), the body size, the caller's access to the server, the protocol version header,
 * and the body itself (JSON, already parsed by Nest or read here).
 */
@Injectable()
export class McpEdge {
  private readonly logger = new Logger('McpEdge');

  constructor(
    private readonly policy: McpAccessPolicy,
    private readonly registry: ServerRegistry,
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
  ) {}

  async admit(req: McpHttpRequest, serverId: string | null, withBody: boolean): Promise<Admission> {
    const origin = this.checkOrigin(req);
    if (origin) return { refusal: origin };
    if (Number(req.headers['content-length'] ?? 0) > this.options.maxBodyBytes) return { refusal: this.tooLarge() };
    const access = await this.authorize(req, serverId);
    if ('refusal' in access) return access;
    const version = req.headers['mcp-protocol-version'];
    const unsupported = typeof version === 'string' && !isSupportedVersion(version) ? version : undefined;
    if (!withBody) return unsupported === undefined ? access : { refusal: unsupportedVersion(unsupported) };
    const body = await this.body(req);
    if ('refusal' in body) return body;
    // Read first, so that the refusal answers the request by its id.
    if (unsupported !== undefined) return { refusal: unsupportedVersion(unsupported, requestIdIn(body.value)) };
    return { grant: access.grant, body: negotiateInitialize(body.value) };
  }

  /**
   * DNS-rebinding protection. No Origin (a non-browser client) is fine; a browser's Origin must be
   * listed in allowedOrigins, or be the request's own host when that host is a loopback name. A page
   * on a site whose name was rebound to the gateway's address sends its own name in both Origin
   * and Host, so "the same host" alone would let it through.
   */
  checkOrigin(req: IncomingMessage): Refusal | undefined {
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    if (this.options.allowedOrigins.includes(origin)) return undefined;
    try {
      const { host, hostname } = new URL(origin);
      if (host === req.headers.host && LOOPBACK_NAMES.has(hostname)) return undefined;
    } catch {
      // 'null' and other opaque origins are foreign.
    }
    return refusal(403, `Forbidden: origin ${excerpt(origin)} is not allowed`);
  }

  async authorize(req: IncomingMessage, serverId: string | null): Promise<{ grant: McpAccessGrant } | { refusal: Refusal }> {
    let grant: McpAccessGrant;
    try {
      grant = await this.policy.authorize(req, serverId);
    } catch (error) {
      if (error instanceof McpAccessError) {
        return { refusal: { ...refusal(error.status, error.message, { code: error.code }), headers: this.challenge(serverId, error) } };
      }
      this.logger.error(`access check failed: ${error instanceof Error ? error.message : String(error)}`);
      return { refusal: refusal(500, 'Internal error while checking access', undefined, ErrorCode.InternalError) };
    }
    if (serverId !== null) {
      if (!this.registry.server(serverId)) return { refusal: refusal(404, `Server ${excerpt(serverId)} not found`) };
      if (!grant.servers.includes(serverId)) return { refusal: refusal(403, `Forbidden: no access to server ${excerpt(serverId)}`) };
    }
    return { grant };
  }

  /**
   * A 401's headers, its Bearer challenge naming the protected resource metadata (RFC 9728 §5.1)
   * when there is an identity provider to sign in with, so an MCP client finds where to.
   */
  private challenge(serverId: string | null, error: McpAccessError): Record<string, string> {
    const challenge = error.headers['www-authenticate'];
    if (error.status !== 401 || !challenge?.startsWith('Bearer') || !this.policy.authorizationServers()) return error.headers;
    return { ...error.headers, 'www-authenticate': `${challenge}, resource_metadata="${metadataUrl(this.options.publicUrl, serverId)}"` };
  }

  private async body(req: McpHttpRequest): Promise<{ value: unknown } | { refusal: Refusal }> {
    // Nest's JSON parser ran before the route: its result is the body.
    if (req.readableEnded) {
      if (req.body !== undefined && Buffer.byteLength(JSON.stringify(req.body)) > this.options.maxBodyBytes) {
        return { refusal: this.tooLarge() };
      }
      return { value: req.body };
    }
    const raw = await readRequestBody(req, this.options.maxBodyBytes);
    if ('refused' in raw) {
      return {
        refusal: raw.refused === 'too_large' ? this.tooLarge() : refusal(415, `Unsupported Media Type: content-encoding "${excerpt(raw.encoding)}"; send the body uncompressed`),
      };
    }
    let value: unknown;
    try {
      value = JSON.parse(raw.bytes.toString('utf8'));
    } catch {
      return { refusal: refusal(400, 'Parse error', undefined, ErrorCode.ParseError) };
    }
    // Arguments are the tool's business, but the SDK's schemas walk them recursively.
    const tooDeep = nestingProblem(value, 'body');
    if (tooDeep) return { refusal: refusal(400, `Invalid Request: ${tooDeep.field} ${tooDeep.problem}`, undefined, ErrorCode.InvalidRequest) };
    return { value };
  }

  private tooLarge(): Refusal {
    return refusal(413, `Payload Too Large: request body must not exceed ${this.options.maxBodyBytes} bytes`);
  }
}
