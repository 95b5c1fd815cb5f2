import { Anchor, Badge, Card, Group, List, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import { useAccessToken } from '../api/api-context';
import { useUiConfig } from '../app/ui-config-context';
import { moduleTitle } from '../shell/module-rail';
import { fetchProductSummary, type CardOutcome } from './product-summary';

// Shades dark (or, for yellow, light) enough for 4.5:1 text contrast.
const STATUS_COLORS: Record<string, { color: string; c?: string }> = {
  ok: { color: 'teal.9' },
  degraded: { color: 'yellow.4', c: 'dark.9' },
  down: { color: 'red.9' },
  unknown: { color: 'gray.7' },
};
const OUTCOME_LABELS: Record<Exclude<CardOutcome['state'], 'ok'>, string> = {
  timeout: 'timed out',
  down: 'unreachable',
  refused: 'refused',
  'no-summary': 'no summary',
  broken: 'error',
};

/** The suite dashboard: every module's summary, asked in parallel with the person's token, one card each. */
export function DashboardPage() {
  const { modules } = useUiConfig();
  const token = useAccessToken();
  // The control plane's own card comes from this origin, like the API; the others from their suite URLs.
  const cards = useQueries({
    queries: modules.map((module) => ({
      queryKey: ['dashboard', module.key],
      queryFn: () => fetchProductSummary(module.key === 'control-plane' ? window.location.origin : module.url, token),
      retry: false,
      refetchInterval: 60_000,
    })),
  });
  return (
    <Stack>
      <Title order={2}>Dashboard</Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {modules.map((module, index) => (
          <SummaryCard key={module.key} productKey={module.key} outcome={cards[index].data} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function SummaryCard({ productKey, outcome }: { productKey: string; outcome: CardOutcome | undefined }) {
  const title = outcome?.state === 'ok' ? outcome.summary.title : moduleTitle(productKey);
  return (
    <Card withBorder component="section" aria-label={title} data-product={productKey} data-state={outcome?.state ?? 'loading'}>
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4">
          {title}
        </Title>
        {outcome === undefined ? (
          <Loader size="xs" aria-label={`Loading ${title}`} />
        ) : outcome.state === 'ok' ? (
          <Badge {...(STATUS_COLORS[outcome.summary.status] ?? STATUS_COLORS['unknown'])}>{outcome.summary.status}</Badge>
        ) : (
          <Badge color="red.9">{OUTCOME_LABELS[outcome.state]}</Badge>
        )}
      </Group>
      {outcome?.state === 'ok' ? (
        outcome.summary.tiles.length === 0 ? (
          <Text c="dimmed">Nothing to show you here.</Text>
        ) : (
          <SimpleGrid cols={2}>
            {outcome.summary.tiles.map((tile) => (
              <Stack key={tile.label} gap={0}>
                <Text size="xs" c="dimmed">
                  {tile.link ? <Anchor href={tile.link}>{tile.label}</Anchor> : tile.label}
                </Text>
                <Text fw={700} size="xl">
                  {tile.value}
                  {tile.unit && !['projects', 'users', 'deliveries', 'requests'].includes(tile.unit) ? ` ${tile.unit}` : ''}
                </Text>
                {tile.breakdown && tile.breakdown.length > 0 && (
                  <List size="xs">
                    {tile.breakdown.map((row) => (
                      <List.Item key={row.project}>
                        {row.project}: {row.value}
                      </List.Item>
                    ))}
                  </List>
                )}
              </Stack>
            ))}
          </SimpleGrid>
        )
      ) : (
        outcome && <Text c="dimmed">{outcome.detail}</Text>
      )}
    </Card>
  );
}
