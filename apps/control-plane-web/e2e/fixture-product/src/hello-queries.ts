import { useQuery } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths } from './fixture-api';

/** The product's API's view of the signed-in person, through the shell's client (the person's token). */
export function useHello(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({ queryKey: ['fixture-product', 'hello'], enabled, queryFn: () => answer(api.GET('/api/v1/hello')) });
}
