import { Accordion, Alert, Anchor, Code, Group, Loader, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { NoRoleEmptyState } from '@arbor/ui-shell';
import type { McpTool } from '../api/mcp-gateway-api';
import { useMcpAccess } from '../access/mcp-access';
import { useServers } from '../servers/servers-queries';
import { ToolTryForm } from './tool-try-form';
import { useServerTools, useToolsOfServers } from './tools-queries';

const matches = (tool: McpTool, query: string) => query === '' || tool.name.toLowerCase().includes(query) || (tool.description ?? '').toLowerCase().includes(query);

/** A virtual server's catalogue as a client sees it: search it, read each tool's input schema, try a tool from a form. */
export function ToolsPage() {
  const access = useMcpAccess();
  const servers = useServers((access?.readable.length ?? 0) > 0);
  const [params, setParams] = useSearchParams();
  const server = params.get('server') ?? servers.data?.[0]?.id ?? null;
  const tools = useServerTools(server);
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search.trim().toLowerCase(), 200);
  const found = useMemo(() => (tools.data ?? []).filter((tool) => matches(tool, query)), [tools.data, query]);
  // A search this server has no tool for looks through the person's other servers (the page opens
  // on the first one by id, which need not be the one with the tool), so a tool is found by its name alone.
  const others = (servers.data ?? []).filter((row) => row.id !== server);
  const nothingHere = query !== '' && tools.data !== undefined && found.length === 0;
  const otherTools = useToolsOfServers(
    others.map((row) => row.id),
    nothingHere,
  );
  const elsewhere = others.map((row, index) => ({ row, count: (otherTools[index]?.data ?? []).filter((tool) => matches(tool, query)).length })).filter(({ count }) => count > 0);
  const stillLooking = otherTools.some((result) => result.isLoading);
  if (!access) return null;
  return (
    <Stack>
      <Title order={2}>Tools</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see and try the tools of its virtual servers" />
      ) : (
        <>
          <Group align="end">
            <Select
              label="Virtual server"
              data={(servers.data ?? []).map((row) => ({ value: row.id, label: `${row.name} (${row.project})` }))}
              value={server}
              onChange={(value) => value && setParams({ server: value })}
              allowDeselect={false}
              w={280}
            />
            <TextInput label="Search tools" placeholder="name or description" value={search} onChange={(event) => setSearch(event.currentTarget.value)} w={280} />
          </Group>
          {servers.data?.length === 0 && (
            <Alert color="gray" title="No virtual servers yet">
              Make one on the Virtual servers page; its tools are listed here.
            </Alert>
          )}
          {/* Only the first load: a background refetch must not push the list (and a button being clicked) down. */}
          {(servers.isPending || tools.isLoading) && <Loader aria-label="Loading tools" />}
          {servers.isError && (
            <Alert color="red" title="The virtual servers could not be loaded">
              {servers.error.message}
            </Alert>
          )}
          {tools.isError && (
            <Alert color="red" title="The tools could not be loaded">
              {tools.error.message}
            </Alert>
          )}
          {tools.data && (
            <Text size="sm">
              {found.length} of {tools.data.length} tools, as an MCP client of this server lists them for you.
            </Text>
          )}
          {nothingHere && (
            <Alert color="gray" title={`No tool of this server matches “${search.trim()}”`} data-testid="tools-elsewhere">
              {elsewhere.length > 0 ? (
                <>
                  Your other virtual servers have some:{' '}
                  {elsewhere.map(({ row, count }, index) => (
                    <span key={row.id}>
                      {index > 0 && ', '}
                      <Anchor component={Link} to={`?server=${encodeURIComponent(row.id)}`}>
                        {row.name} ({row.project})
                      </Anchor>{' '}
                      ({count} {count === 1 ? 'tool' : 'tools'})
                    </span>
                  ))}
                  .
                </>
              ) : stillLooking ? (
                'Looking through your other virtual servers…'
              ) : (
                'Nor has any other virtual server of yours.'
              )}
            </Alert>
          )}
          {server && found.length > 0 && (
            <Accordion variant="separated" aria-label="Tools">
              {found.map((tool) => (
                <Accordion.Item key={tool.name} value={tool.name} data-tool={tool.name}>
                  <Accordion.Control>
                    <Text fw={600} component="span">
                      {tool.name}
                    </Text>
                    {tool.description && (
                      <Text size="sm" lineClamp={1}>
                        {tool.description}
                      </Text>
                    )}
                  </Accordion.Control>
                  <Accordion.Panel>
                    <Stack>
                      {tool.description && <Text size="sm">{tool.description}</Text>}
                      <Text fw={600} size="sm">
                        Input schema
                      </Text>
                      <Code block>{JSON.stringify(tool.inputSchema, null, 2)}</Code>
                      <Title order={3} size="h5">
                        Try it
                      </Title>
                      <ToolTryForm server={server} tool={tool} />
                    </Stack>
                  </Accordion.Panel>
                </Accordion.Item>
              ))}
            </Accordion>
          )}
        </>
      )}
    </Stack>
  );
}
