import { Alert, Badge, Button, Code, CopyButton, Group, Loader, Modal, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { ConfirmButton, NoRoleEmptyState, notifyFailure, useMe, usePaged } from '@arbor/ui-shell';
import { useState } from 'react';
import { Link } from 'react-router';
import { useMcpAccess } from '../access/mcp-access';
import { type AgentSelection, isAgentSelection, type Selection, type VirtualServer } from '../api/mcp-gateway-api';
import { useUpstreams } from '../upstreams/upstreams-queries';
import { clientSnippets, serverAddress } from './client-config';
import { ServerForm } from './server-form';
import { useCatalogue, useDeleteServer, useServers } from './servers-queries';

const summary = (selection: Selection | AgentSelection) =>
  isAgentSelection(selection)
    ? `agent ${selection.agent}: one tool`
    : `${selection.upstream}: ${selection.tools === '*' ? 'all tools' : selection.tools.length === 0 ? 'no tools' : selection.tools.join(', ')}`;

/** The tools a server names in tool_roles and tool_rate_limits, one line each. */
const accessSummary = (server: VirtualServer) => [
  ...Object.entries(server.tool_roles).map(([tool, role]) => `${tool}: ${role === 'operator' ? 'operators only' : 'any role'}`),
  ...Object.entries(server.tool_rate_limits).map(([tool, limit]) => `${tool}: ${limit.per_minute} a minute`),
];

/** Virtual servers per project: what each exposes, the address a client uses and its config snippet; operators compose them. */
export function ServersPage() {
  const me = useMe().data;
  const access = useMcpAccess();
  const operates = (access?.operable.length ?? 0) > 0;
  const servers = useServers((access?.readable.length ?? 0) > 0);
  const upstreams = useUpstreams(operates);
  const catalogue = useCatalogue(operates);
  const remove = useDeleteServer();
  const [editing, setEditing] = useState<VirtualServer | 'new' | null>(null);
  const [connecting, setConnecting] = useState<VirtualServer | null>(null);
  const { items, pager } = usePaged(servers.data ?? []);
  if (!me || !access) return null;
  const preferred = me.default_project?.slug;
  return (
    <Stack>
      <Title order={2}>Virtual servers</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see its virtual servers and how to connect a client" change="make and change them" />
      ) : (
        <>
          {!operates ? (
            <Text c="dimmed">You may read the virtual servers of {access.readable.join(', ')}; composing and changing them needs mcp-gateway.operator there.</Text>
          ) : editing ? (
            <ServerForm
              server={editing === 'new' ? null : editing}
              projects={access.operable}
              defaultProject={preferred && access.operable.includes(preferred) ? preferred : (access.operable[0] ?? null)}
              upstreams={upstreams.data ?? []}
              catalogue={catalogue.data ?? []}
              onDone={() => setEditing(null)}
            />
          ) : (
            <Group>
              <Button onClick={() => setEditing('new')}>New virtual server</Button>
            </Group>
          )}
          {servers.isPending && <Loader aria-label="Loading virtual servers" />}
          {servers.isError && (
            <Alert color="red" title="The virtual servers could not be loaded">
              {servers.error.message}
            </Alert>
          )}
          {servers.data?.length === 0 && (
            <Alert color="gray" title="No virtual servers yet">
              {operates ? "Make the first one: pick the upstreams (and their tools) a project's clients should see." : 'An operator of the project composes them.'}
            </Alert>
          )}
          {items.length > 0 && (
            <Table.ScrollContainer minWidth={1000}>
              <Table striped aria-label="Virtual servers">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Server</Table.Th>
                    <Table.Th>Project</Table.Th>
                    <Table.Th>Draws on</Table.Th>
                    <Table.Th>Tool access</Table.Th>
                    <Table.Th>Address</Table.Th>
                    <Table.Th>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((server) => (
                    <Table.Tr key={server.id} data-server={server.id}>
                      <Table.Td>
                        <Text fw={500}>{server.name}</Text>
                        <Code>{server.id}</Code> {server.source === 'config' && <Badge color="gray.8">MCPGW_CONFIG</Badge>}
                        {server.description && <Text size="sm">{server.description}</Text>}
                      </Table.Td>
                      <Table.Td>{server.project}</Table.Td>
                      <Table.Td>
                        {server.upstreams.length === 0
                          ? 'nothing yet'
                          : server.upstreams.map((selection) => (
                              <Text key={isAgentSelection(selection) ? `agent:${selection.agent}` : selection.upstream} size="sm">
                                {summary(selection)}
                              </Text>
                            ))}
                      </Table.Td>
                      <Table.Td>
                        {accessSummary(server).length === 0
                          ? 'defaults'
                          : accessSummary(server).map((line) => (
                              <Text key={line} size="sm">
                                {line}
                              </Text>
                            ))}
                      </Table.Td>
                      <Table.Td>
                        <Code>{serverAddress(window.location.origin, server.id)}</Code>
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Button size="xs" variant="default" onClick={() => setConnecting(server)} aria-label={`Connect a client to ${server.id}`}>
                            Connect
                          </Button>
                          <Button size="xs" variant="default" component={Link} to={`/tools?server=${encodeURIComponent(server.id)}`} aria-label={`Tools of ${server.id}`}>
                            Tools
                          </Button>
                          {server.source === 'api' && access.operable.includes(server.project) && (
                            <>
                              <Button size="xs" variant="default" onClick={() => setEditing(server)} aria-label={`Edit ${server.id}`}>
                                Edit
                              </Button>
                              <ConfirmButton
                                title={`Delete ${server.id}?`}
                                message="Its clients lose it at once; the upstreams stay."
                                loading={remove.isPending}
                                aria-label={`Delete ${server.id}`}
                                onConfirm={() => remove.mutate(server.id, { onError: notifyFailure('The server was not deleted') })}
                              >
                                Delete
                              </ConfirmButton>
                            </>
                          )}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {pager}
        </>
      )}
      <Modal
        opened={connecting !== null}
        onClose={() => setConnecting(null)}
        title={connecting ? `Connect a client to ${connecting.id}` : ''}
        centered
        lockScroll={false}
        size="xl"
      >
        {connecting && <ConnectClient server={connecting} />}
      </Modal>
    </Stack>
  );
}

function ConnectClient({ server }: { server: VirtualServer }) {
  const address = serverAddress(window.location.origin, server.id);
  const snippets = clientSnippets(server.id, address);
  return (
    <Stack>
      <Text size="sm">
        The server's address (Streamable HTTP) is <Code>{address}</Code>. Clients that cannot sign in use a gateway API key of project {server.project} (
        <Link to="/keys">Keys</Link>) as a bearer token.
      </Text>
      <Tabs defaultValue="0">
        <Tabs.List>
          {snippets.map((snippet, index) => (
            <Tabs.Tab key={snippet.client} value={String(index)}>
              {snippet.client}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {snippets.map((snippet, index) => (
          <Tabs.Panel key={snippet.client} value={String(index)} pt="sm">
            <Stack gap="xs">
              <Text size="sm">{snippet.where}</Text>
              <Code block data-testid={`snippet-${snippet.client}`}>
                {snippet.text}
              </Code>
              <CopyButton value={snippet.text}>
                {({ copied, copy }) => (
                  <Button onClick={copy} w="fit-content">
                    {copied ? 'Copied' : `Copy for ${snippet.client}`}
                  </Button>
                )}
              </CopyButton>
            </Stack>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
