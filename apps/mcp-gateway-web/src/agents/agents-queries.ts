import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, useApiClient } from '@arbor/ui-shell';
import type { AgentBody, NewAgentBody, paths } from '../api/mcp-gateway-api';

const AGENTS = ['mcp-gateway', 'agents'];

/** The agents of the person's projects with their health, which changes by the minute, so it is read again often. */
export function useAgents(enabled: boolean) {
  const api = useApiClient<paths>();
  return useQuery({ queryKey: AGENTS, enabled, refetchInterval: 15_000, queryFn: async () => (await answer(api.GET('/api/v1/agents'))).agents });
}

/** One agent's calls by A2A method hour by hour over the last day. */
export function useAgentCalls(name: string | null) {
  const api = useApiClient<paths>();
  return useQuery({
    queryKey: [...AGENTS, name, 'calls'],
    enabled: name !== null,
    refetchInterval: 30_000,
    queryFn: async () => (await answer(api.GET('/api/v1/agents/{name}/calls', { params: { path: { name: name ?? '' } } }))).hours,
  });
}

export function useSaveAgent() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    // A new one's form fills in its name and address; the API's 400 names any left out.
    mutationFn: ({ name, body }: { name: string | null; body: AgentBody }) =>
      name === null ? answer(api.POST('/api/v1/agents', { body: body as NewAgentBody })) : answer(api.PATCH('/api/v1/agents/{name}', { params: { path: { name } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['mcp-gateway'] }),
  });
}

/** Reads the agent's card again now (up, or down with why). */
export function useRefreshAgent() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => answer(api.POST('/api/v1/agents/{name}/refresh', { params: { path: { name } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: AGENTS }),
  });
}

export function useDeleteAgent() {
  const api = useApiClient<paths>();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => answer(api.DELETE('/api/v1/agents/{name}', { params: { path: { name } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['mcp-gateway'] }),
  });
}
