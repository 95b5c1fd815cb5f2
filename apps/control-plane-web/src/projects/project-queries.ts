import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { answer, type ControlPlaneSchemas, useControlPlaneApi } from '@arbor/ui-shell';

export type Project = ControlPlaneSchemas['ProjectResponse'];
export type Repository = ControlPlaneSchemas['RepositoryResponse'];

/** Every project, read a page of 500 at a time (the tables page what they show). */
export function useProjects() {
  const api = useControlPlaneApi();
  return useQuery({
    queryKey: ['projects'],
    queryFn: async () => {
      const projects: Project[] = [];
      let after: string | null = null;
      do {
        const page: ControlPlaneSchemas['ProjectListResponse'] = await answer(
          api.GET('/api/v1/projects', { params: { query: { limit: 500, ...(after ? { after_slug: after } : {}) } } }),
        );
        projects.push(...page.projects);
        after = page.next_after_slug;
      } while (after);
      return projects;
    },
  });
}

export function useProject(id: string) {
  const api = useControlPlaneApi();
  return useQuery({ queryKey: ['projects', id], queryFn: () => answer(api.GET('/api/v1/projects/{id}', { params: { path: { id } } })) });
}

/** A project's repositories, read a page of 500 at a time (the table pages what it shows). */
export function useRepositories(projectId: string) {
  const api = useControlPlaneApi();
  return useQuery({
    queryKey: ['projects', projectId, 'repositories'],
    queryFn: async () => {
      const repositories: Repository[] = [];
      let after: string | null = null;
      do {
        const query = { limit: 500, ...(after ? { after_id: after } : {}) };
        const page: ControlPlaneSchemas['RepositoryListResponse'] = await answer(api.GET('/api/v1/projects/{id}/repositories', { params: { path: { id: projectId }, query } }));
        repositories.push(...page.repositories);
        after = page.next_after_id;
      } while (after);
      return repositories;
    },
  });
}

export function useRepositorySecret(projectId: string) {
  const api = useControlPlaneApi();
  return useQuery({
    queryKey: ['projects', projectId, 'secret'],
    queryFn: () => answer(api.GET('/api/v1/projects/{id}/repository-secret', { params: { path: { id: projectId } } })),
  });
}

/** A mutation after which every project query (lists, the project, its repositories, its token state) is read again. */
export function useProjectMutation<V, D>(mutationFn: (variables: V) => Promise<D>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['projects'] }), client.invalidateQueries({ queryKey: ['me'] })]),
  });
}
