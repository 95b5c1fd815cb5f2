import { useQuery } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths } from '../api/gateway-api';

/** The aliases with their deployments, prices and health; health changes by the minute, so it is read again often. */
export function useAliases(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['ai-gateway', 'aliases'],
    enabled,
    refetchInterval: 30_000,
    queryFn: async () => (await answer(api.GET('/api/v1/aliases'))).aliases,
  });
}
