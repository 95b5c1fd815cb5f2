import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths, UpstreamBody, NewUpstreamBody } from '../api/mcp-gateway-api';

/** The upstreams with the runtime's health; health changes by the minute, so it is read again often. */
export function useUpstreams(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['mcp-gateway', 'upstreams'],
    enabled,
    refetchInterval: 15_000,
    queryFn: async () => (await answer(api.GET('/api/v1/upstreams'))).upstreams,
  });
}

export function useSaveUpstream() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    // A new one's form fills in its name and address; the API's 400 names any left out.
    mutationFn: ({ name, body }: { name: string | null; body: UpstreamBody }) =>
      name === null
        ? answer(api.POST('/api/v1/upstreams', { body: body as NewUpstreamBody }))
        : answer(api.PATCH('/api/v1/upstreams/{name}', { params: { path: { name } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['mcp-gateway'] }),
  });
}

export function useDeleteUpstream() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => answer(api.DELETE('/api/v1/upstreams/{name}', { params: { path: { name } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['mcp-gateway'] }),
  });
}
