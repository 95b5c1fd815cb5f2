import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { CreateKeyBody, GatewayKey, KeySettings, paths } from '../api/gateway-api';

const KEYS = ['ai-gateway', 'keys'];

/** The keys of every project the person may read (the gateway decides which). */
export function useKeys(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({ queryKey: KEYS, enabled, queryFn: async () => (await answer(api.GET('/api/v1/keys'))).keys });
}

function useKeyMutation<V>(call: (variables: V) => Promise<GatewayKey | undefined>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: call, onSuccess: () => client.invalidateQueries({ queryKey: KEYS }) });
}

/** Answers the new key with its secret, shown once. */
export function useCreateKey() {
  const api = useApiClient<paths>();
  return useKeyMutation((body: CreateKeyBody) => answer(api.POST('/api/v1/keys', { body })));
}

export function useUpdateKey() {
  const api = useApiClient<paths>();
  return useKeyMutation(({ id, settings }: { id: string; settings: KeySettings }) => answer(api.PATCH('/api/v1/keys/{id}', { params: { path: { id } }, body: settings })));
}

/** Answers the key with its new secret, shown once; the old one stops working at once. */
export function useRotateKey() {
  const api = useApiClient<paths>();
  return useKeyMutation((id: string) => answer(api.POST('/api/v1/keys/{id}/rotate', { params: { path: { id } } })));
}

export function useSetKeyBlocked() {
  const api = useApiClient<paths>();
  return useKeyMutation(({ id, blocked }: { id: string; blocked: boolean }) =>
    answer(api.POST(blocked ? '/api/v1/keys/{id}/block' : '/api/v1/keys/{id}/unblock', { params: { path: { id } } })),
  );
}

export function useDeleteKey() {
  const api = useApiClient<paths>();
  return useKeyMutation(async (id: string) => {
    await answer(api.DELETE('/api/v1/keys/{id}', { params: { path: { id } } }));
    return undefined;
  });
}
