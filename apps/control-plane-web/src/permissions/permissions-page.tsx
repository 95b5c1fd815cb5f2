import { Alert, Button, Code, Group, Loader, Select, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { answer, useControlPlaneApi } from '@arbor/ui-shell';
import { useProjects } from '../projects/project-queries';
import { useUsers } from '../users/users-page';
import { idleRoleKeys, sameGrants, type GrantSet } from './grant-set';
import { GrantsMatrix } from './grants-matrix';

export function useProducts() {
  const api = useControlPlaneApi();
  return useQuery({ queryKey: ['products'], queryFn: async () => (await answer(api.GET('/api/v1/products'))).products });
}

/** Pick a person, then edit their grants in the matrix and see what they may do. */
export function PermissionsPage() {
  const { userId } = useParams();
  const navigate = useNavigate();
  const users = useUsers();
  return (
    <Stack>
      <Title order={2}>Permissions</Title>
      <Select
        label="Person"
        placeholder="Choose a person"
        searchable
        w={360}
        data={(users.data ?? []).map((user) => ({ value: user.id, label: `${user.display_name} (${user.email ?? user.subject})` }))}
        value={userId ?? null}
        onChange={(id) => id && navigate(`/permissions/${id}`)}
      />
      {userId && <UserGrants key={userId} userId={userId} personName={users.data?.find((user) => user.id === userId)?.display_name || 'the person'} />}
    </Stack>
  );
}

function UserGrants({ userId, personName }: { userId: string; personName: string }) {
  const api = useControlPlaneApi();
  const client = useQueryClient();
  const products = useProducts();
  const projects = useProjects();
  const path = { params: { path: { id: userId } } };
  const stored = useQuery({ queryKey: ['grants', userId], queryFn: () => answer(api.GET('/api/v1/users/{id}/permissions', path)) });
  const effective = useQuery({
    queryKey: ['effective', userId],
    // The answer may be cached for 60 s (Cache-Control: private, max-age=60): revalidate with its ETag instead.
    queryFn: () => answer(api.GET('/api/v1/permissions/effective', { params: { query: { user_id: userId, group: 'projects' } }, cache: 'no-cache' })),
  });
  const [draft, setDraft] = useState<GrantSet | null>(null);
  useEffect(() => {
    if (stored.data) setDraft({ workspace: stored.data.workspace, projects: stored.data.projects });
  }, [stored.data]);
  const save = useMutation({
    // Read-modify-write: the body is what GET answered, changed.
    mutationFn: (grants: GrantSet) => answer(api.PUT('/api/v1/users/{id}/permissions', { ...path, body: { user_id: userId, ...grants } })),
    onSuccess: (saved) => {
      client.setQueryData(['grants', userId], saved);
      notifications.show({ color: 'teal', title: 'Grants saved', message: `The permissions of ${personName} are saved.` });
      return client.invalidateQueries({ queryKey: ['effective', userId] });
    },
  });
  if (stored.isError) return <Alert color="red">{stored.error.message}</Alert>;
  if (!draft || !products.data || !projects.data) return <Loader aria-label="Loading" />;
  const idle = idleRoleKeys(draft, products.data);
  const unchanged = stored.data ? sameGrants(draft, stored.data) : true;
  const view = effective.data as { workspace?: string[]; projects?: Record<string, string[]> } | undefined;
  return (
    <Stack>
      <GrantsMatrix products={products.data} projects={projects.data.map((project) => project.slug)} value={draft} onChange={setDraft} />
      {idle.length > 0 && (
        <Alert color="yellow" title="Roles without the sign-in key count for nothing">
          {idle.join(', ')}
        </Alert>
      )}
      {save.isError && <Alert color="red">{save.error.message}</Alert>}
      <Group>
        <Button onClick={() => save.mutate(draft)} disabled={unchanged} loading={save.isPending}>
          Save grants
        </Button>
        <Button variant="default" disabled={unchanged} onClick={() => stored.data && setDraft({ workspace: stored.data.workspace, projects: stored.data.projects })}>
          Undo changes
        </Button>
      </Group>
      <Stack gap={4} component="section" aria-label="Effective permissions">
        <Title order={3}>Effective permissions</Title>
        <Text size="sm" c="dimmed">
          What products are told when they ask (a disabled person has none).
        </Text>
        <Text size="sm">
          Workspace: <Code data-testid="effective-workspace">{(view?.workspace ?? []).join(' ') || '—'}</Code>
        </Text>
        {Object.entries(view?.projects ?? {}).map(([slug, keys]) => (
          <Text size="sm" key={slug}>
            {slug}: <Code data-testid={`effective-${slug}`}>{keys.join(' ')}</Code>
          </Text>
        ))}
      </Stack>
    </Stack>
  );
}
