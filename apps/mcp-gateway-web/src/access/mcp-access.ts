import { useProductAccess, type ProductAccess } from '@arbor/ui-shell';

export const MCP_GATEWAY = 'mcp-gateway';

/**
 * What the signed-in person may do in the MCP gateway, as its API decides it: the admin pages
 * (upstreams, virtual servers, keys, calls) are mcp-gateway.operator's on a project, changing
 * upstreams mcp-gateway.operator's at workspace level; any role lets a person use the servers.
 * Undefined while loading.
 */
export function useMcpAccess(): ProductAccess | undefined {
  return useProductAccess(MCP_GATEWAY);
}
