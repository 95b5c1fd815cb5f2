import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths, ServerBody, NewServerBody } from '../api/mcp-gateway-api';

const SERVERS = ['mcp-gateway', 'servers'];

/** The virtual servers of the projects the person operates. */
export function useServers(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({ queryKey: SERVERS, enabled, queryFn: async () => (await answer(api.GET('/api/v1/servers'))).servers });
}

export function useSaveServer() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    // A new one's form fills in its id, project and upstreams; the API's 400 names any left out.
    mutationFn: ({ id, body }: { id: string | null; body: ServerBody }) =>
      id === null ? answer(api.POST('/api/v1/servers', { body: body as NewServerBody })) : answer(api.PATCH('/api/v1/servers/{id}', { params: { path: { id } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['mcp-gateway'] }),
  });
}

export function useDeleteServer() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/api/v1/servers/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['mcp-gateway'] }),
  });
}

/** Every tool each upstream offers now, for choosing a server's tools. */
export function useCatalogue(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({ queryKey: ['mcp-gateway', 'catalogue'], enabled, queryFn: async () => (await answer(api.GET('/api/v1/tools'))).items });
}
