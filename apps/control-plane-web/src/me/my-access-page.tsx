import { Alert, Code, Stack, Table, Text, Title } from '@mantine/core';
import { moduleTitle, useMe, useMyProjects } from '@arbor/ui-shell';

/** What the signed-in person may do: their workspace keys and, per project they belong to, theirs there. */
export function MyAccessPage() {
  const me = useMe().data;
  const projects = useMyProjects();
  if (!me) return null;
  const workspace = me.permissions.workspace;
  return (
    <Stack>
      <Title order={2}>My access</Title>
      <Text>
        Signed in as <b>{me.display_name}</b> ({me.email ?? me.subject}){me.admin ? ', administrator of the control plane' : ''}.
      </Text>
      {me.disabled && <Alert color="orange">Your account is disabled: you have no permissions.</Alert>}
      <Text>
        Products you may sign in to across the workspace:{' '}
        <span data-testid="my-workspace">
          {workspace
            .filter((key) => !key.includes('.'))
            .map(moduleTitle)
            .join(', ') || 'none'}
        </span>
      </Text>
      <Table aria-label="My projects" w="fit-content">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Project</Table.Th>
            <Table.Th>Your keys there</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(projects.data ?? []).map((project) => (
            <Table.Tr key={project.id}>
              <Table.Td>
                {project.name} ({project.slug})
              </Table.Td>
              <Table.Td>
                <Code>{[...workspace, ...project.permissions].join(' ') || '—'}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
