import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
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

/** The audit of a virtual server's tool calls, newest first, a page at a time (older pages by `before_id`). */
export function useToolCallAudit(server: string | null) {
  const api = useApiClient<paths>();
  return useInfiniteQuery({
    queryKey: ['mcp-gateway', 'tool-call-audit', server],
    enabled: server !== null,
    refetchInterval: 30_000,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => answer(api.GET('/api/v1/tool-calls', { params: { query: { server: server ?? '', limit: 50, ...(pageParam ? { before_id: pageParam } : {}) } } })),
    getNextPageParam: (page) => page.next_before_id ?? undefined,
  });
}
