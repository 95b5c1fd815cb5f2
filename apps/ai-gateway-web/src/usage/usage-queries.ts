import { useQuery } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { paths } from '../api/gateway-api';
import type { UsagePeriod } from './usage-series';

/** A project's spend over the period (the gateway writes the last second of calls first). */
export function useProjectSpend(project: string | null, period: UsagePeriod) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['ai-gateway', 'spend', project, period.from, period.to],
    enabled: project !== null,
    queryFn: () => answer(api.GET('/api/v1/spend', { params: { query: { project: project ?? '', from: period.from, to: period.to } } })),
  });
}
