import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { McpAccessPolicy } from '../access/mcp-access';
import { ServerRegistry } from '../registry/server-registry';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const PERSON_SCOPES = ['openid', 'profile', 'email'];
const METADATA_PATH = /^\/\.well-known\/oauth-protected-resource(?:\/servers\/([^/]+))?\/mcp$/i;

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for `/mcp` and each `/servers/{id}/mcp`, at the
 * well-known path with the resource's path inserted (`/.well-known/oauth-protected-resource/servers/{id}/mcp`):
 * the resource and the authorization server that issues tokens for it, which an MCP client reads
 * (pointed there by the 401's `WWW-Authenticate: Bearer resource_metadata="…"`) to sign a person in.
 */
@Injectable()
export class ProtectedResourceMetadata implements OnModuleInit {
  constructor(
    private readonly routes: DirectRoutes,
    private readonly policy: McpAccessPolicy,
    private readonly registry: ServerRegistry,
  ) {}

  onModuleInit(): void {
    this.routes.add({
      route: `${WELL_KNOWN}/*`,
      endpoints: [
        { methods: ['GET'], path: `${WELL_KNOWN}/mcp` },
        { methods: ['GET'], path: `${WELL_KNOWN}/servers/{id}/mcp` },
      ],
      matches: (method, path) => method === 'GET' && METADATA_PATH.test(path),
      handle: (req, res, path) => this.serve(req, res, path),
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    const authorizationServers = this.policy.authorizationServers();
    const encoded = METADATA_PATH.exec(path)?.[1];
    let serverId: string | null = null;
    try {
      serverId = encoded === undefined ? null : decodeURIComponent(encoded);
    } catch {
      return notFound(res);
    }
    const server = serverId === null ? undefined : this.registry.server(serverId);
    if (!authorizationServers || (serverId !== null && !server)) return notFound(res);
    const body = JSON.stringify({
      resource: resourceUrl(req, serverId),
      authorization_servers: authorizationServers,
      // A person signs in: their identity is what the gateway asks the control plane about.
      scopes_supported: PERSON_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: server?.name ?? 'Arbor MCP gateway',
    });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300', 'content-length': Buffer.byteLength(body) }).end(body);
  }
}

/** The MCP endpoint as the client reached it (its own host), for `serverId` or `/mcp`. */
export function resourceUrl(req: IncomingMessage, serverId: string | null): string {
  return `${origin(req)}${serverId === null ? '/mcp' : `/servers/${encodeURIComponent(serverId)}/mcp`}`;
}

/** Where the metadata of that endpoint is (RFC 9728 §3.1: the resource's path after the well-known one). */
export function metadataUrl(req: IncomingMessage, serverId: string | null): string {
  return `${origin(req)}${WELL_KNOWN}${serverId === null ? '/mcp' : `/servers/${encodeURIComponent(serverId)}/mcp`}`;
}

function origin(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-proto'];
  const scheme = (typeof forwarded === 'string' ? forwarded.split(',')[0]?.trim() : undefined) === 'https' ? 'https' : 'http';
  return `${scheme}://${req.headers.host ?? 'localhost'}`;
}

function notFound(res: ServerResponse): void {
  const body = JSON.stringify({ error: 'not_found', error_description: 'No such protected resource' });
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}
