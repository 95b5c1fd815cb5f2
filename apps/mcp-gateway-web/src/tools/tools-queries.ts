import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths } from '../api/mcp-gateway-api';

/** A virtual server's tools as the person's MCP client would list them. */
export function useServerTools(server: string | null) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['mcp-gateway', 'server-tools', server],
    enabled: server !== null,
    queryFn: async () => (await answer(api.GET('/api/v1/servers/{id}/tools', { params: { path: { id: server ?? '' } } }))).tools,
  });
}

/** The tools of several virtual servers (the same cache as useServerTools), asked for only while `enabled`. */
export function useToolsOfServers(servers: string[], enabled: boolean) {
  const api = useApiClient<paths>();
  return useQueries({
    queries: servers.map((server) => ({
      queryKey: ['mcp-gateway', 'server-tools', server],
      enabled,
      queryFn: async () => (await answer(api.GET('/api/v1/servers/{id}/tools', { params: { path: { id: server } } }))).tools,
    })),
  });
}

/** Calls a tool as the person, through the server's catalogue (its access rules and guardrails). */
export function useCallTool(server: string, tool: string) {
  const api = useApiClient<paths>();
  return useMutation({
    mutationFn: (args: Record<string, unknown>) =>
      answer(api.POST('/api/v1/servers/{id}/tools/{tool}/call', { params: { path: { id: server, tool } }, body: { arguments: args } })),
  });
}
