import type { ServerResponse } from 'node:http';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DirectRoutes } from '@arbor/platform';
import { McpAccessPolicy } from '../access/mcp-access';
import { ServerRegistry } from '../registry/server-registry';
import { MCP_RUNTIME_OPTIONS, ResolvedRuntimeOptions } from '../runtime-options';

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
    @Inject(MCP_RUNTIME_OPTIONS) private readonly options: ResolvedRuntimeOptions,
  ) {}

  onModuleInit(): void {
    this.routes.add({
      route: `${WELL_KNOWN}/*`,
      endpoints: [
        { methods: ['GET'], path: `${WELL_KNOWN}/mcp` },
        { methods: ['GET'], path: `${WELL_KNOWN}/servers/{id}/mcp` },
      ],
      matches: (method, path) => method === 'GET' && METADATA_PATH.test(path),
      handle: (_req, res, path) => this.serve(res, path),
    });
  }

  private serve(res: ServerResponse, path: string): void {
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
      resource: resourceUrl(this.options.publicUrl, serverId),
      authorization_servers: authorizationServers,
      // A person signs in: their identity is what the gateway asks the control plane about.
      scopes_supported: PERSON_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: server?.name ?? 'Arbor MCP gateway',
    });
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300', 'content-length': Buffer.byteLength(body) }).end(body);
  }
}

/**
 * The MCP endpoint for `serverId` or `/mcp` at the gateway's public URL (MCPGW_PUBLIC_URL), never
 * at the request's Host: a forged Host would otherwise point clients' sign-in somewhere else.
 */
export function resourceUrl(publicUrl: string, serverId: string | null): string {
  const { origin, path } = publicParts(publicUrl);
  return `${origin}${path}${endpointPath(serverId)}`;
}

/** Where the metadata of that endpoint is (RFC 9728 §3.1: the well-known path, then the resource's path). */
export function metadataUrl(publicUrl: string, serverId: string | null): string {
  const { origin, path } = publicParts(publicUrl);
  return `${origin}${WELL_KNOWN}${path}${endpointPath(serverId)}`;
}

function endpointPath(serverId: string | null): string {
  return serverId === null ? '/mcp' : `/servers/${encodeURIComponent(serverId)}/mcp`;
}

function publicParts(publicUrl: string): { origin: string; path: string } {
  const url = new URL(publicUrl);
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
}

function notFound(res: ServerResponse): void {
  const body = JSON.stringify({ error: 'not_found', error_description: 'No such protected resource' });
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}
