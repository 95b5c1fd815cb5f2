import { Alert, Badge, Button, Code, CopyButton, Group, List, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { ConfirmButton, NoRoleEmptyState, notifyFailure, useFormatInstant } from '@arbor/ui-shell';
import { useState } from 'react';
import { useMcpAccess } from '../access/mcp-access';
import type { Agent, AgentCallHour } from '../api/mcp-gateway-api';
import { HourlyCallCharts } from '../calls/hourly-call-charts';
import { AgentForm } from './agent-form';
import { useAgentCalls, useAgents, useDeleteAgent, useRefreshAgent } from './agents-queries';

const STATE_COLOURS = { up: 'teal.9', down: 'red.9', connecting: 'gray.7' } as const;

const methodOf = (hour: AgentCallHour) => hour.method;

/** An address of the gateway with a button that copies it. */
function Copyable({ label, value }: { label: string; value: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Code>{value}</Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy ${label}`} style={{ flexShrink: 0 }}>
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

/**
 * The A2A agents of the person's projects: what their cards say, whether they answer, where
 * callers reach them through the gateway, and their calls over the last day. Operators of an
 * agent's project register and change it; viewers read.
 */
export function AgentsPage() {
  const access = useMcpAccess();
  const agents = useAgents((access?.readable.length ?? 0) > 0);
  const remove = useDeleteAgent();
  const refresh = useRefreshAgent();
  const formatInstant = useFormatInstant();
  const [editing, setEditing] = useState<Agent | 'new' | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const shown = chosen ?? agents.data?.[0]?.name ?? null;
  const calls = useAgentCalls(shown);
  if (!access) return null;
  const operates = (agent: Agent) => access.operable.includes(agent.project);
  const totals = (calls.data ?? []).reduce((sum, hour) => ({ calls: sum.calls + hour.calls, errors: sum.errors + hour.errors }), { calls: 0, errors: 0 });
  return (
    <Stack>
      <Title order={2}>Agents</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see its A2A agents" change="register and change them" />
      ) : (
        <>
          {access.operable.length === 0 ? (
            <Text c="dimmed">Registering and changing agents needs mcp-gateway.operator on their project.</Text>
          ) : editing ? (
            <AgentForm agent={editing === 'new' ? null : editing} projects={access.operable} onDone={() => setEditing(null)} />
          ) : (
            <Group>
              <Button onClick={() => setEditing('new')}>Register an agent</Button>
            </Group>
          )}
          {agents.isPending && <Loader aria-label="Loading agents" />}
          {agents.isError && (
            <Alert color="red" title="The agents could not be loaded">
              {agents.error.message}
            </Alert>
          )}
          {agents.data?.length === 0 && (
            <Alert color="gray" title="No agents yet">
              {access.operable.length > 0 ? 'Register the first A2A agent above.' : 'An operator of the project registers them (or MCPGW_CONFIG names them).'}
            </Alert>
          )}
          {agents.data && agents.data.length > 0 && (
            <Table.ScrollContainer minWidth={1100}>
              <Table striped aria-label="Agents" verticalSpacing="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Agent</Table.Th>
                    <Table.Th>Project</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Skills</Table.Th>
                    <Table.Th>Through the gateway</Table.Th>
                    <Table.Th>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {agents.data.map((agent) => (
                    <Table.Tr key={agent.name} data-agent={agent.name}>
                      <Table.Td>
                        <Text fw={500}>{agent.name}</Text>
                        {agent.card && (
                          <Text size="sm">
                            {agent.card.name} {agent.card.version}
                          </Text>
                        )}
                        {agent.description && <Text size="sm">{agent.description}</Text>}
                        {agent.card?.description && <Text size="sm">{agent.card.description}</Text>}
                        <Code>{agent.url}</Code>
                        {agent.auth.type !== 'none' && (
                          <Text size="sm">
                            auth: {agent.auth.type}
                            {agent.auth.header_names.length > 0 && ` (${agent.auth.header_names.join(', ')})`}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{agent.project}</Table.Td>
                      <Table.Td>
                        <Badge color={STATE_COLOURS[agent.health.state]}>{agent.health.state}</Badge>
                        {agent.health.last_seen_at && <Text size="sm">seen {formatInstant(agent.health.last_seen_at)}</Text>}
                        {agent.health.last_error && <Text size="sm">{agent.health.last_error}</Text>}
                      </Table.Td>
                      <Table.Td>
                        {agent.card && agent.card.skills.length > 0 ? (
                          <List size="sm" aria-label={`Skills of ${agent.name}`}>
                            {agent.card.skills.map((skill) => (
                              <List.Item key={skill.id}>
                                <Text span fw={500} size="sm">
                                  {skill.name}
                                </Text>
                                : {skill.description}
                              </List.Item>
                            ))}
                          </List>
                        ) : (
                          <Text size="sm">{agent.card ? 'none on its card' : 'card not read yet'}</Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Stack gap={4}>
                          <Copyable label={`the address of ${agent.name}`} value={agent.gateway_url} />
                          <Copyable label={`the card URL of ${agent.name}`} value={agent.card_url} />
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        {agent.source === 'config' ? (
                          <Badge color="gray.8">MCPGW_CONFIG</Badge>
                        ) : operates(agent) ? (
                          <Group gap="xs" wrap="nowrap">
                            <Button size="xs" variant="default" onClick={() => setEditing(agent)} aria-label={`Edit ${agent.name}`}>
                              Edit
                            </Button>
                            <Button
                              size="xs"
                              variant="default"
                              loading={refresh.isPending && refresh.variables === agent.name}
                              onClick={() => refresh.mutate(agent.name, { onError: notifyFailure('The card was not read') })}
                              aria-label={`Refresh ${agent.name}`}
                              title="Read its card again now"
                            >
                              Refresh
                            </Button>
                            <ConfirmButton
                              title={`Remove ${agent.name}?`}
                              message="Its address at the gateway stops answering at once."
                              loading={remove.isPending}
                              aria-label={`Remove ${agent.name}`}
                              onConfirm={() => remove.mutate(agent.name, { onError: notifyFailure('The agent was not removed') })}
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
          {agents.data && agents.data.length > 0 && (
            <Stack component="section" aria-label="Calls of an agent">
              <Title order={3} size="h4">
                Calls
              </Title>
              <Select
                label="Agent"
                data={agents.data.map((agent) => ({ value: agent.name, label: `${agent.name} (${agent.project})` }))}
                value={shown}
                onChange={setChosen}
                allowDeselect={false}
                w={280}
              />
              {calls.isPending && <Loader aria-label="Loading the agent's calls" />}
              {calls.isError && (
                <Alert color="red" title="The agent's calls could not be loaded">
                  {calls.error.message}
                </Alert>
              )}
              {calls.data && (
                <>
                  <Text size="sm" data-testid="agent-call-totals">
                    {totals.calls} {totals.calls === 1 ? 'call' : 'calls'}, {totals.errors} failed in the last 24 hours (UTC, by A2A method, proxied and as a tool), as this gateway
                    replica counted them since it started.
                  </Text>
                  <HourlyCallCharts hours={calls.data} nameOf={methodOf} empty="No calls to this agent in the last 24 hours." />
                </>
              )}
            </Stack>
          )}
        </>
      )}
    </Stack>
  );
}
