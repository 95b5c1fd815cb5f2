import { Alert, Loader, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { NoRoleEmptyState } from '@arbor/ui-shell';
import { useMcpAccess } from '../access/mcp-access';
import { useServers } from '../servers/servers-queries';
import { useToolCalls } from './calls-queries';
import { HourlyCallCharts } from './hourly-call-charts';
import type { ToolCallHour } from '../api/mcp-gateway-api';
import { ToolCallAudit } from './tool-call-audit';

const toolOf = (hour: ToolCallHour) => hour.tool;

/** A virtual server's tool calls, failed calls and latency hour by hour over the last day, by tool. */
export function CallsPage() {
  const access = useMcpAccess();
  const servers = useServers((access?.readable.length ?? 0) > 0);
  const [chosen, setChosen] = useState<string | null>(null);
  const server = chosen ?? servers.data?.[0]?.id ?? null;
  const calls = useToolCalls(server);
  if (!access) return null;
  return (
    <Stack>
      <Title order={2}>Tool calls</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see how its virtual servers' tools are called" />
      ) : (
        <>
          <Select
            label="Virtual server"
            data={(servers.data ?? []).map((row) => ({ value: row.id, label: `${row.name} (${row.project})` }))}
            value={server}
            onChange={setChosen}
            allowDeselect={false}
            w={280}
          />
          {(servers.isPending || calls.isPending) && <Loader aria-label="Loading tool calls" />}
          {calls.isError && (
            <Alert color="red" title="The tool calls could not be loaded">
              {calls.error.message}
            </Alert>
          )}
          {calls.data && (
            <>
              <Text size="sm">The last 24 hours (UTC), as this gateway replica counted them since it started.</Text>
              <HourlyCallCharts hours={calls.data} nameOf={toolOf} empty="No tool calls in the last 24 hours." />
            </>
          )}
          {server && <ToolCallAudit server={server} />}
        </>
      )}
    </Stack>
  );
}
