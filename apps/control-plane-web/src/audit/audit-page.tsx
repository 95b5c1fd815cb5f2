import { Alert, Button, Code, Group, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { answer, useControlPlaneApi, useFormatInstant } from '@arbor/ui-shell';
import { useProjects } from '../projects/project-queries';

const PAGE_SIZE = 50;

/** The audit log, newest first, filtered by action (or prefix such as `project.`) and project, paged back in time. */
export function AuditPage() {
  const api = useControlPlaneApi();
  const formatInstant = useFormatInstant();
  const projects = useProjects().data ?? [];
  const [action, setAction] = useState('');
  const [projectId, setProjectId] = useState<string | null>(null);
  // The cursors of the pages seen so far: the last one is the page shown.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const beforeId = cursors[cursors.length - 1];
  const filters = { ...(action.trim() ? { action: action.trim() } : {}), ...(projectId ? { project_id: projectId } : {}) };
  const page = useQuery({
    queryKey: ['audit', filters, beforeId],
    queryFn: () => answer(api.GET('/api/v1/audit', { params: { query: { ...filters, limit: PAGE_SIZE, ...(beforeId ? { before_id: beforeId } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  const restart = () => setCursors([undefined]);
  const slugOf = new Map(projects.map((project) => [project.id, project.slug]));
  return (
    <Stack>
      <Title order={2}>Audit log</Title>
      <Group align="end">
        <TextInput
          label="Action"
          placeholder="project. or user.theme_changed"
          value={action}
          onChange={(event) => {
            setAction(event.currentTarget.value);
            restart();
          }}
        />
        <Select
          label="Project"
          placeholder="Every project"
          clearable
          searchable
          data={projects.map((project) => ({ value: project.id, label: project.slug }))}
          value={projectId}
          onChange={(id) => {
            setProjectId(id);
            restart();
          }}
        />
      </Group>
      {page.isError && <Alert color="red">{page.error.message}</Alert>}
      <Table striped aria-label="Audit entries">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Who</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>About</Table.Th>
            <Table.Th>Project</Table.Th>
            <Table.Th>Details</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(page.data?.entries ?? []).map((entry) => (
            <Table.Tr key={entry.id}>
              <Table.Td>{formatInstant(entry.occurred_at)}</Table.Td>
              <Table.Td>{entry.actor_name ?? entry.actor_client_id ?? entry.actor_subject}</Table.Td>
              <Table.Td>{entry.action}</Table.Td>
              {/* Whose permissions were replaced, who was disabled…: the person by name, other targets by id. */}
              <Table.Td>{entry.target_name ?? (entry.target_id && entry.target_id !== entry.project_id ? <Code>{entry.target_id}</Code> : '—')}</Table.Td>
              <Table.Td>{entry.project_id ? (slugOf.get(entry.project_id) ?? 'deleted') : '—'}</Table.Td>
              <Table.Td>
                <Code>{JSON.stringify(entry.details)}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button variant="default" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </Button>
        <Button variant="default" disabled={!page.data?.next_before_id} onClick={() => page.data?.next_before_id && setCursors([...cursors, page.data.next_before_id])}>
          Older
        </Button>
      </Group>
    </Stack>
  );
}
