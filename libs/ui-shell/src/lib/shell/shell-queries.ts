import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, type ControlPlaneSchemas } from '../api/api-client';
import { useControlPlaneApi } from '../api/api-context';

export type Me = ControlPlaneSchemas['MeResponse'];
export type Theme = Me['theme'];

// The shell endpoints of the control plane: theme, default project and time zone agree across the suite's UIs.

/** The signed-in person (GET /api/v1/me, which also provisions them on their first visit). */
export function useMe() {
  const api = useControlPlaneApi();
  return useQuery({ queryKey: ['me'], queryFn: () => answer(api.GET('/api/v1/me')) });
}

/** The projects the person may see, for the project switcher. */
export function useMyProjects() {
  const api = useControlPlaneApi();
  return useQuery({ queryKey: ['me', 'projects'], queryFn: async () => (await answer(api.GET('/api/v1/me/projects'))).projects });
}

export function useWorkspaceSettings() {
  const api = useControlPlaneApi();
  return useQuery({ queryKey: ['workspace'], queryFn: () => answer(api.GET('/api/v1/workspace/settings')) });
}

export function useSetTheme() {
  const api = useControlPlaneApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (theme: Theme) => answer(api.PUT('/api/v1/me/theme', { body: { theme } })),
    onSuccess: (me) => client.setQueryData(['me'], me),
  });
}

export function useSetDefaultProject() {
  const api = useControlPlaneApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string | null) => answer(api.PUT('/api/v1/me/default-project', { body: { project_id: projectId } })),
    onSuccess: (me) => client.setQueryData(['me'], me),
  });
}
