import { Alert, Anchor, Badge, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { ConfirmButton, NoRoleEmptyState, notifyFailure, useFormatInstant } from '@arbor/ui-shell';
import { useMcpAccess } from '../access/mcp-access';
import { useConnections, useDisconnect } from './connections-queries';

/** The person's own accounts at third-party upstreams (OAuth): which are connected, a link to connect, and revoking one. */
export function ConnectionsPage() {
  const access = useMcpAccess();
  const connections = useConnections(access?.anyRole ?? false);
  const disconnect = useDisconnect();
  const formatInstant = useFormatInstant();
  if (!access) return null;
  return (
    <Stack>
      <Title order={2}>My connections</Title>
      {!access.anyRole ? (
        <NoRoleEmptyState read="use its virtual servers and connect your accounts at the tool servers they draw on" />
      ) : (
        <>
          <Text size="sm">
            Some upstreams are called with your own account there. You connect it once here (or from the link a tool call gives you); revoking it removes your tokens from the
            gateway, and your next call there asks you to connect again.
          </Text>
          {connections.isPending && <Loader aria-label="Loading connections" />}
          {connections.isError && (
            <Alert color="red" title="The connections could not be loaded">
              {connections.error.message}
            </Alert>
          )}
          {connections.data?.length === 0 && (
            <Alert color="gray" title="No upstream uses your own account">
              None of the gateway's upstreams asks each person to connect (OAuth); your calls need nothing here.
            </Alert>
          )}
          {connections.data && connections.data.length > 0 && (
            <Table striped aria-label="My connections">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Upstream</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Connected</Table.Th>
                  <Table.Th>Scopes</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {connections.data.map((connection) => (
                  <Table.Tr key={connection.upstream} data-connection={connection.upstream}>
                    <Table.Td>
                      <Text fw={500}>{connection.upstream}</Text>
                    </Table.Td>
                    <Table.Td>{connection.connected ? <Badge color="teal.9">connected</Badge> : <Badge color="gray.8">not connected</Badge>}</Table.Td>
                    <Table.Td>
                      {connection.connected_at ? formatInstant(connection.connected_at) : '–'}
                      {connection.expires_at && <Text size="sm">token renewed after {formatInstant(connection.expires_at)}</Text>}
                    </Table.Td>
                    <Table.Td>{connection.scope ?? '–'}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Anchor
                          href={connection.connect_url}
                          target="_blank"
                          rel="noopener"
                          aria-label={`${connection.connected ? 'Connect again to' : 'Connect to'} ${connection.upstream}`}
                        >
                          {connection.connected ? 'Connect again' : 'Connect'}
                        </Anchor>
                        {connection.connected && (
                          <ConfirmButton
                            title={`Revoke your connection to ${connection.upstream}?`}
                            message="The gateway forgets your tokens there; your next call asks you to connect again."
                            loading={disconnect.isPending}
                            aria-label={`Revoke your connection to ${connection.upstream}`}
                            onConfirm={() => disconnect.mutate(connection.upstream, { onError: notifyFailure('The connection was not revoked') })}
                          >
                            Revoke
                          </ConfirmButton>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </>
      )}
    </Stack>
  );
}
