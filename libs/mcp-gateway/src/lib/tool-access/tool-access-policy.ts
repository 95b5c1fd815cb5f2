import { Injectable } from '@nestjs/common';
import type { McpAccessGrant } from '../access/mcp-access';
import { CatalogueAccess, CatalogueCaller, CatalogueItemRef } from '../catalogue/catalogue-access';
import { prefixName, prefixUri } from '../catalogue/catalogue-view';
import { selects } from '../registry/registry-rules';
import { ItemRole, ServerRegistry, UpstreamSelection, VirtualServerDefinition } from '../registry/server-registry';

/**
 * Tool roles and key scopes, as a policy of the one catalogue (so every era and transport gets
 * them): a tool, resource or prompt a virtual server names in `tool_roles`, `resource_roles` or
 * `prompt_roles` needs that role on the server's project; one it does not name needs any role,
 * except a tool whose annotations say `destructiveHint: true`, which needs `operator`. An API key
 * scoped to tools sees and calls only those. Names are those the server exposes; the prefixed form
 * (`<upstream>__<tool>`, `mcpgw://<upstream>/<uri>`) names an item too. On `/mcp` an item is the
 * caller's when one of its servers that selects the item lets the caller use it there (that server
 * would serve the same call).
 */
@Injectable()
export class ToolAccessPolicy extends CatalogueAccess {
  constructor(private readonly registry: ServerRegistry) {
    super();
  }

  permits(caller: CatalogueCaller, item: CatalogueItemRef): boolean {
    const { grant } = caller;
    if (item.kind === 'tool' && grant.tools && !named(grant.tools, item)) return false;
    if (caller.serverId !== null) return this.permitsOn(this.registry.server(caller.serverId), grant, item);
    for (const id of grant.servers) {
      const server = this.registry.server(id);
      if (server?.selections.some((selection) => selectsItem(selection, item)) && this.permitsOn(server, grant, item)) return true;
    }
    return false;
  }

  private permitsOn(server: VirtualServerDefinition | undefined, grant: McpAccessGrant, item: CatalogueItemRef): boolean {
    if (!server) return false;
    return roleNeededOn(server, item) === 'viewer' || grant.operates?.has(server.id) === true;
  }
}

/** The role an item needs on a server (the admin API shows it beside each item). */
export function roleNeededOn(server: VirtualServerDefinition, item: CatalogueItemRef): ItemRole {
  return neededRole(item.kind === 'tool' ? server.toolRoles : item.kind === 'prompt' ? server.promptRoles : server.resourceRoles, item);
}

/** The role an item needs: as named (by its own name or URI, then its template's), else the default. */
function neededRole(roles: Readonly<Record<string, ItemRole>> | undefined, item: CatalogueItemRef): ItemRole {
  const named = roles && (roleOf(roles, item, item.name) ?? (item.template !== undefined ? roleOf(roles, item, item.template) : undefined));
  return named ?? (item.destructive ? 'operator' : 'viewer');
}

function roleOf(roles: Readonly<Record<string, ItemRole>>, item: CatalogueItemRef, name: string): ItemRole | undefined {
  const prefixed = item.kind === 'tool' || item.kind === 'prompt' ? prefixName(item.upstream, name) : prefixUri(item.upstream, name);
  return Object.hasOwn(roles, prefixed) ? roles[prefixed] : Object.hasOwn(roles, name) ? roles[name] : undefined;
}

/** Whether a selection takes the item: a resource read through a template, when it takes the template. */
function selectsItem(selection: UpstreamSelection, item: CatalogueItemRef): boolean {
  if (selects(selection, item)) return true;
  return item.template !== undefined && selects(selection, { upstream: item.upstream, kind: 'resource-template', name: item.template });
}

/** Whether a key's tool scope names the tool, as exposed or prefixed. */
function named(tools: ReadonlySet<string>, item: CatalogueItemRef): boolean {
  return tools.has(item.name) || tools.has(prefixName(item.upstream, item.name));
}
