import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths } from '../api/mcp-gateway-api';

const CONNECTIONS = ['mcp-gateway', 'connections'];

/** The signed-in person's own connections to the upstreams that use each person's account (OAuth); read again when they come back from connecting. */
export function useConnections(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: CONNECTIONS,
    enabled,
    refetchOnWindowFocus: 'always',
    refetchInterval: 5 * 60_000,
    queryFn: async () => (await answer(api.GET('/api/v1/me/connections'))).connections,
  });
}

/** Revokes the person's tokens of one upstream: their next call there asks them to connect again. */
export function useDisconnect() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (upstream: string) => answer(api.DELETE('/api/v1/me/connections/{upstream}', { params: { path: { upstream } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: CONNECTIONS }),
  });
}
