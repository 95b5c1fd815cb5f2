import { useQuery } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths } from '../api/mcp-gateway-api';

/** Each tool of a virtual server hour by hour over the last day. */
export function useToolCalls(server: string | null) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['mcp-gateway', 'tool-calls', server],
    enabled: server !== null,
    refetchInterval: 30_000,
    queryFn: async () => (await answer(api.GET('/api/v1/servers/{id}/tool-calls', { params: { path: { id: server ?? '' } } }))).hours,
  });
}
