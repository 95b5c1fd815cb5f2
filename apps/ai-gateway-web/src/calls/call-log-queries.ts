import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { CallRecord, paths } from '../api/gateway-api';

export const CALLS_PER_PAGE = 50;

/** A page of a project's last calls, newest first (the gateway writes the last second of calls first). */
export function useCallLog(project: string | null, page: number) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['ai-gateway', 'call-log', project, page],
    enabled: project !== null,
    placeholderData: keepPreviousData,
    // /spend/logs answers daily totals or single calls; summarize=false always asks for the calls.
    queryFn: async (): Promise<CallRecord[]> =>
      (await answer(api.GET('/spend/logs', { params: { query: { team_id: project ?? '', summarize: false, page, page_size: CALLS_PER_PAGE } } }))) as CallRecord[],
  });
}

/** Whether the gateway keeps calls' content (general_settings.store_prompts_in_spend_logs), read once: it changes only with the config. */
export function useCallLogSettings() {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: ['ai-gateway', 'call-log', 'settings'],
    staleTime: Infinity,
    queryFn: () => answer(api.GET('/api/v1/call-log/settings')),
  });
}
