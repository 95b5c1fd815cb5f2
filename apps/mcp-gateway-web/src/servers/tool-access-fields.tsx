import { Badge, Code, NumberInput, Select, Stack, Table, Text } from '@mantine/core';
import type { ItemRole } from '../api/mcp-gateway-api';
import type { ExposedTool } from './exposed-tools';

/** Who may call each tool and how often: the `tool_roles` and `tool_rate_limits` of a virtual server being edited. */
export interface ToolAccessDraft {
  roles: Record<string, ItemRole>;
  /** Calls a minute each person or key may make. */
  limits: Record<string, number>;
}

/**
 * A row per tool the server exposes (and per tool its settings name that no upstream offers now,
 * so that those can be changed too): the role it needs and its calls a minute.
 */
export function ToolAccessFields(props: { tools: readonly ExposedTool[]; draft: ToolAccessDraft; onChange(draft: ToolAccessDraft): void; error?: string }) {
  const { tools, draft, onChange } = props;
  const offered = new Map(tools.map((tool) => [tool.name, tool]));
  const names = [...new Set([...offered.keys(), ...Object.keys(draft.roles), ...Object.keys(draft.limits)])].sort((a, b) => a.localeCompare(b));
  // A role that is the tool's default anyway is not named (a destructive tool's default is operator).
  const defaultRole = (name: string): ItemRole => (offered.get(name)?.destructive ? 'operator' : 'viewer');
  const setRole = (name: string, role: string | null) =>
    onChange({ ...draft, roles: withEntry(draft.roles, name, role === null || role === defaultRole(name) ? undefined : (role as ItemRole)) });
  const setLimit = (name: string, value: number | string) =>
    onChange({ ...draft, limits: withEntry(draft.limits, name, typeof value === 'number' && value >= 1 ? value : undefined) });
  return (
    <Stack gap="xs">
      <Text fw={600} size="sm">
        Tool access
      </Text>
      <Text size="sm">
        A tool not set here needs any role on the project, except a destructive one (its annotations say <Code>destructiveHint</Code>), which needs the operator role. People
        without the role neither see nor call it; a limit counts each person's or key's calls.
      </Text>
      {names.length === 0 ? (
        <Text size="sm" c="dimmed">
          The tools it exposes are listed here once its upstreams offer them.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table aria-label="Tool access">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Tool</Table.Th>
                <Table.Th>Needs</Table.Th>
                <Table.Th>Calls a minute</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {names.map((name) => {
                const tool = offered.get(name);
                return (
                  <Table.Tr key={name} data-tool-access={name}>
                    <Table.Td>
                      <Text size="sm" fw={500} component="span">
                        {name}
                      </Text>{' '}
                      {tool?.destructive && <Badge color="red.9">destructive</Badge>}
                      {!tool && <Badge color="gray.8">not offered now</Badge>}
                    </Table.Td>
                    <Table.Td>
                      <Select
                        aria-label={`Role ${name} needs`}
                        size="xs"
                        data={[
                          { value: 'viewer', label: 'Any role' },
                          { value: 'operator', label: 'Operator' },
                        ]}
                        value={draft.roles[name] ?? defaultRole(name)}
                        onChange={(role) => setRole(name, role)}
                        allowDeselect={false}
                        w={160}
                      />
                    </Table.Td>
                    <Table.Td>
                      <NumberInput
                        aria-label={`Calls a minute of ${name}`}
                        size="xs"
                        placeholder="no limit"
                        min={1}
                        max={1_000_000}
                        allowDecimal={false}
                        allowNegative={false}
                        value={draft.limits[name] ?? ''}
                        onChange={(value) => setLimit(name, value)}
                        w={140}
                      />
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {props.error && (
        <Text c="red" size="sm">
          {props.error}
        </Text>
      )}
    </Stack>
  );
}

/** The map with `name` set to `value`, or left out when it is undefined. */
function withEntry<V>(map: Record<string, V>, name: string, value: V | undefined): Record<string, V> {
  const next = Object.fromEntries(Object.entries(map).filter(([key]) => key !== name));
  return value === undefined ? next : { ...next, [name]: value };
}

/** A server's settings as the form edits them. */
export function toolAccessOf(server: { tool_roles: Record<string, ItemRole>; tool_rate_limits: Record<string, { per_minute: number }> } | null): ToolAccessDraft {
  if (!server) return { roles: {}, limits: {} };
  return { roles: { ...server.tool_roles }, limits: Object.fromEntries(Object.entries(server.tool_rate_limits).map(([name, limit]) => [name, limit.per_minute])) };
}

/** The form's settings as the admin API takes them. */
export function toolAccessBody(draft: ToolAccessDraft): { tool_roles: Record<string, ItemRole>; tool_rate_limits: Record<string, { per_minute: number }> } {
  return { tool_roles: draft.roles, tool_rate_limits: Object.fromEntries(Object.entries(draft.limits).map(([name, perMinute]) => [name, { per_minute: perMinute }])) };
}
