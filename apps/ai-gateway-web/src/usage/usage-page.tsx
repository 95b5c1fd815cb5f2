import { Alert, Button, Group, Loader, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { NoRoleEmptyState, useFormatMoney, useMe } from '@arbor/ui-shell';
import { useGatewayAccess } from '../access/gateway-access';
import { BarChartFigure } from '@arbor/ui-shell/charts';
import { useProjectSpend } from './usage-queries';
import { byProvider, dailyCsv, dailySeries, lastDays } from './usage-series';

const PERIODS = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

const SPEND = 'var(--mantine-color-teal-filled)';
const CALLS = 'var(--mantine-color-blue-filled)';
const CACHED = 'var(--mantine-color-grape-filled)';
const PROMPT = 'var(--mantine-color-indigo-filled)';
const COMPLETION = 'var(--mantine-color-orange-filled)';
const FAILED = 'var(--mantine-color-red-filled)';

/** What a project spent and called over a period (tokens, errors, cache hits): by day, key, alias, provider and repository, and as CSV. */
export function UsagePage() {
  const me = useMe().data;
  const access = useGatewayAccess();
  const readable = access?.readable ?? [];
  const preferred = me?.default_project?.slug;
  const [chosen, setChosen] = useState<string | null>(null);
  const project = chosen ?? (preferred && readable.includes(preferred) ? preferred : (readable[0] ?? null));
  const [days, setDays] = useState('30');
  const period = useMemo(() => lastDays(Number(days)), [days]);
  const spend = useProjectSpend(project, period);
  const formatMoney = useFormatMoney();
  const usd = (value: number) => formatMoney(value, 'USD');
  const report = spend.data;
  const series = useMemo(() => (report ? dailySeries(report, period) : []), [report, period]);
  if (!me || !access) return null;
  if (readable.length === 0) {
    return (
      <Stack>
        <Title order={2}>Usage</Title>
        <NoRoleEmptyState read="see what it spent" />
      </Stack>
    );
  }
  const download = () => {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([dailyCsv(series)], { type: 'text/csv' }));
    link.download = `ai-gateway-usage-${project}-${period.from}-${period.to}.csv`;
    link.click();
    URL.revokeObjectURL(link.href);
  };
  return (
    <Stack>
      <Title order={2}>Usage</Title>
      <Group align="end">
        <Select label="Project" data={readable} value={project} onChange={setChosen} allowDeselect={false} w={220} />
        <SegmentedControl aria-label="Period" data={PERIODS} value={days} onChange={setDays} />
        <Button variant="default" onClick={download} disabled={!report}>
          Download CSV
        </Button>
      </Group>
      {spend.isPending && <Loader aria-label="Loading usage" />}
      {spend.isError && (
        <Alert color="red" title="The usage could not be loaded">
          {spend.error.message}
        </Alert>
      )}
      {report && (
        <>
          <SimpleGrid cols={{ base: 2, md: 5 }} data-testid="usage-totals">
            <Figure label="Spend" value={usd(report.totals.cost_usd)} />
            <Figure label="Calls" value={String(report.totals.requests)} />
            <Figure label="Errors" value={String(series.reduce((sum, day) => sum + day.errors, 0))} />
            <Figure label="Tokens" value={`${report.totals.prompt_tokens} in · ${report.totals.completion_tokens} out`} />
            <Figure label="Cache hits" value={String(report.totals.cache_hit_requests)} />
          </SimpleGrid>
          <Text size="sm">
            {period.from} to {period.to}, UTC days.
          </Text>
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <BarChartFigure title="Spend by day" rows={series} category="day" series={[{ key: 'cost_usd', label: 'Spend', color: SPEND }]} format={usd} />
            <BarChartFigure
              title="Calls by day"
              rows={series.map((row) => ({ ...row, sent: row.requests - row.cache_hit_requests }))}
              category="day"
              series={[
                { key: 'sent', label: 'Sent to a provider', color: CALLS },
                { key: 'cache_hit_requests', label: 'From the cache', color: CACHED },
              ]}
            />
            <BarChartFigure title="Errors by day" rows={series} category="day" series={[{ key: 'errors', label: 'Failed calls', color: FAILED }]} />
            <BarChartFigure
              title="Tokens by day"
              rows={series}
              category="day"
              series={[
                { key: 'prompt_tokens', label: 'Prompt', color: PROMPT },
                { key: 'completion_tokens', label: 'Completion', color: COMPLETION },
              ]}
            />
            <BarChartFigure
              title="Spend by key"
              horizontal
              rows={report.by_key.map((row) => ({ ...row, name: keyLabel(row) }))}
              category="name"
              series={[{ key: 'cost_usd', label: 'Spend', color: SPEND }]}
              format={usd}
            />
            <BarChartFigure title="Spend by alias" horizontal rows={report.by_alias} category="alias" series={[{ key: 'cost_usd', label: 'Spend', color: SPEND }]} format={usd} />
            <BarChartFigure
              title="Spend by provider"
              horizontal
              rows={byProvider(report)}
              category="provider"
              series={[{ key: 'cost_usd', label: 'Spend', color: SPEND }]}
              format={usd}
            />
            <BarChartFigure
              title="Spend by repository"
              horizontal
              rows={report.by_repository.map((row) => ({ ...row, name: row.repository ?? 'whole project' }))}
              category="name"
              series={[{ key: 'cost_usd', label: 'Spend', color: SPEND }]}
              format={usd}
            />
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm" data-figure={label}>
      <Text size="sm">{label}</Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </Paper>
  );
}

/** A key in the charts by its name (key_alias, unique), else its hint; the master key's calls and a deleted key's keep a label too. */
function keyLabel(row: { key_id: string | null; key_hint: string | null; key_alias: string | null }): string {
  if (row.key_id === null) return 'master key';
  if (row.key_hint === null) return 'deleted key';
  return row.key_alias ?? row.key_hint;
}
