import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { NewMcpApiKey, paths } from '../api/mcp-gateway-api';

const KEYS = ['mcp-gateway', 'keys'];

/** The gateway API keys of the projects the person operates. */
export function useMcpKeys(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({ queryKey: KEYS, enabled, queryFn: async () => (await answer(api.GET('/api/v1/keys'))).keys });
}

/** Answers the new key with its secret, shown once. */
export function useCreateMcpKey() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewMcpApiKey) => answer(api.POST('/api/v1/keys', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS }),
  });
}

export function useRevokeMcpKey() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answer(api.DELETE('/api/v1/keys/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS }),
  });
}
