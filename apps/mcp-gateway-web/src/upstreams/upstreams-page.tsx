import { Alert, Badge, Button, Code, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { ConfirmButton, NoRoleEmptyState, notifyFailure, useFormatInstant } from '@arbor/ui-shell';
import { useState } from 'react';
import { useMcpAccess } from '../access/mcp-access';
import type { Upstream } from '../api/mcp-gateway-api';
import { authSummary } from './upstream-auth';
import { UpstreamForm } from './upstream-form';
import { useDeleteUpstream, useUpstreams } from './upstreams-queries';

const STATE_COLOURS = { up: 'teal.9', down: 'red.9', connecting: 'gray.7' } as const;

/** The upstream MCP servers every project's virtual servers draw on, with the runtime's view of each; workspace operators register and change them. */
export function UpstreamsPage() {
  const access = useMcpAccess();
  const upstreams = useUpstreams((access?.readable.length ?? 0) > 0);
  const remove = useDeleteUpstream();
  const formatInstant = useFormatInstant();
  const [editing, setEditing] = useState<Upstream | 'new' | null>(null);
  if (!access) return null;
  const changes = access.workspaceOperator;
  return (
    <Stack>
      <Title order={2}>Upstreams</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see the tool servers its virtual servers draw on" change="add and change them" />
      ) : (
        <>
          {!changes ? (
            <Text c="dimmed">Registering and changing upstreams needs mcp-gateway.operator at workspace level.</Text>
          ) : editing ? (
            <UpstreamForm upstream={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />
          ) : (
            <Group>
              <Button onClick={() => setEditing('new')}>Register an upstream</Button>
            </Group>
          )}
          {upstreams.isPending && <Loader aria-label="Loading upstreams" />}
          {upstreams.isError && (
            <Alert color="red" title="The upstreams could not be loaded">
              {upstreams.error.message}
            </Alert>
          )}
          {upstreams.data?.length === 0 && (
            <Alert color="gray" title="No upstreams yet">
              {changes ? 'Register the first MCP server above.' : 'A workspace operator registers them (or MCPGW_CONFIG names them).'}
            </Alert>
          )}
          {upstreams.data && upstreams.data.length > 0 && (
            <Table.ScrollContainer minWidth={900}>
              <Table striped aria-label="Upstreams">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Upstream</Table.Th>
                    <Table.Th>Era</Table.Th>
                    <Table.Th>Transport</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Tools</Table.Th>
                    <Table.Th>Last error</Table.Th>
                    <Table.Th>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {upstreams.data.map((upstream) => (
                    <Table.Tr key={upstream.name} data-upstream={upstream.name}>
                      <Table.Td>
                        <Text fw={500}>{upstream.name}</Text>
                        <Code>{upstream.url}</Code>
                        {upstream.header_names.length > 0 && <Text size="sm">headers: {upstream.header_names.join(', ')}</Text>}
                        <Text size="sm">auth: {authSummary(upstream.auth)}</Text>
                      </Table.Td>
                      <Table.Td>{upstream.protocol_version ?? 'not connected yet'}</Table.Td>
                      <Table.Td>{upstream.transport}</Table.Td>
                      <Table.Td>
                        {upstream.health ? <Badge color={STATE_COLOURS[upstream.health.state]}>{upstream.health.state}</Badge> : 'unknown'}
                        {upstream.health?.last_seen_at && <Text size="sm">seen {formatInstant(upstream.health.last_seen_at)}</Text>}
                      </Table.Td>
                      <Table.Td>{upstream.tool_count ?? '–'}</Table.Td>
                      <Table.Td>{upstream.health?.last_error ? <Text size="sm">{upstream.health.last_error}</Text> : 'none'}</Table.Td>
                      <Table.Td>
                        {upstream.source === 'config' ? (
                          <Badge color="gray.8">MCPGW_CONFIG</Badge>
                        ) : changes ? (
                          <Group gap="xs" wrap="nowrap">
                            <Button size="xs" variant="default" onClick={() => setEditing(upstream)} aria-label={`Edit ${upstream.name}`}>
                              Edit
                            </Button>
                            <ConfirmButton
                              title={`Remove ${upstream.name}?`}
                              message="Virtual servers that draw on it lose its tools at once."
                              loading={remove.isPending}
                              aria-label={`Remove ${upstream.name}`}
                              onConfirm={() => remove.mutate(upstream.name, { onError: notifyFailure('The upstream was not removed') })}
                            >
                              Remove
                            </ConfirmButton>
                          </Group>
                        ) : (
                          <Text size="sm">read only</Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </Stack>
  );
}
