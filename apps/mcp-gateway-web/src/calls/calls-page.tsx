import { Alert, Loader, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMe } from '@arbor/ui-shell';
import { BarChartFigure, type ChartSeries } from '@arbor/ui-shell/charts';
import { useMemo, useState } from 'react';
import { mcpAccess } from '../access/mcp-access';
import { NeedsRole } from '../access/needs-operator';
import { useServers } from '../servers/servers-queries';
import { useToolCalls } from './calls-queries';
import { ToolCallAudit } from './tool-call-audit';
import { hourlySeries, type HourRow } from './tool-call-series';

/** Mantine colour variables, in both themes' contrast, one per tool. */
const PALETTE = ['blue', 'teal', 'grape', 'orange', 'indigo', 'cyan', 'pink', 'lime'].map((colour) => `var(--mantine-color-${colour}-filled)`);

/** A virtual server's tool calls, failed calls and latency hour by hour over the last day, by tool. */
export function CallsPage() {
  const me = useMe().data;
  const access = mcpAccess(me?.permissions);
  const servers = useServers(access.readable.length > 0);
  const [chosen, setChosen] = useState<string | null>(null);
  const server = chosen ?? servers.data?.[0]?.id ?? null;
  const calls = useToolCalls(server);
  const { tools, rows } = useMemo(() => hourlySeries(calls.data ?? []), [calls.data]);
  if (!me) return null;
  const series = (suffix: string): ChartSeries<HourRow>[] => tools.map((tool, index) => ({ key: `${tool}${suffix}`, label: tool, color: PALETTE[index % PALETTE.length] }));
  const none = tools.length === 0 ? [] : rows;
  return (
    <Stack>
      <Title order={2}>Tool calls</Title>
      {access.readable.length === 0 ? (
        <NeedsRole what="see how its virtual servers' tools are called" />
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
              <SimpleGrid cols={{ base: 1, lg: 2 }}>
                <BarChartFigure title="Calls by hour" rows={none} category="hour" series={series('')} empty="No tool calls in the last 24 hours." />
                <BarChartFigure title="Failed calls by hour" rows={none} category="hour" series={series(' errors')} empty="No tool calls in the last 24 hours." />
                <BarChartFigure
                  title="Mean latency by hour"
                  rows={none}
                  category="hour"
                  series={series(' ms')}
                  stacked={false}
                  format={(ms) => `${ms} ms`}
                  empty="No tool calls in the last 24 hours."
                />
              </SimpleGrid>
            </>
          )}
          {server && <ToolCallAudit server={server} />}
        </>
      )}
    </Stack>
  );
}
