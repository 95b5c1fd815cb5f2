import { Anchor, Badge, Card, Group, List, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import { isCurrency, moduleTitle, useAccessToken, useFormatMoney, useMe, useShellConfig } from '@arbor/ui-shell';
import { fetchProductSummary, type CardOutcome } from './product-summary';
import { tilesForProject, type ShownTile } from './project-figures';

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
  const { modules } = useShellConfig();
  const token = useAccessToken();
  // The project chosen in the picker (the person's default project) narrows every card to it.
  const project = useMe().data?.default_project ?? null;
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
      <Text size="sm" c="dimmed" data-testid="dashboard-scope">
        {project ? `Figures for project ${project.name} (${project.slug}); choose no project above for every project.` : 'Figures for every project you may see.'}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {modules.map((module, index) => (
          <SummaryCard key={module.key} productKey={module.key} outcome={cards[index].data} projectSlug={project?.slug ?? null} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function SummaryCard({ productKey, outcome, projectSlug }: { productKey: string; outcome: CardOutcome | undefined; projectSlug: string | null }) {
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
            {tilesForProject(outcome.summary.tiles, projectSlug).map((tile) => (
              <Figure key={tile.label} tile={tile} />
            ))}
          </SimpleGrid>
        )
      ) : (
        outcome && <Text c="dimmed">{outcome.detail}</Text>
      )}
    </Card>
  );
}

const COUNTED_UNITS = ['projects', 'users', 'deliveries', 'requests'];

/** One figure of a card: money in the one money format, other text at body size so a list of names does not shout. */
function Figure({ tile }: { tile: ShownTile }) {
  const formatMoney = useFormatMoney();
  const money = isCurrency(tile.unit) ? tile.unit : null;
  const show = (value: number | string) => (money && value !== '—' ? formatMoney(value, money) : String(value));
  const numeric = money !== null || typeof tile.value === 'number';
  return (
    <Stack gap={0} data-figure={tile.label}>
      {/* A link alone in its line: beside other text it would need more contrast than the theme's link colour has. */}
      <Group gap={4}>
        <Text size="xs" c="dimmed">
          {tile.link ? <Anchor href={tile.link}>{tile.label}</Anchor> : tile.label}
        </Text>
        {tile.scope === 'workspace' && (
          <Text size="xs" c="dimmed">
            (all projects)
          </Text>
        )}
      </Group>
      {numeric ? (
        // An amount never breaks across lines.
        <Text fw={700} size="lg" style={{ whiteSpace: 'nowrap' }} data-value>
          {show(tile.value)}
          {!money && tile.unit && !COUNTED_UNITS.includes(tile.unit) ? ` ${tile.unit}` : ''}
        </Text>
      ) : (
        <Text size="sm" data-value>
          {show(tile.value)}
        </Text>
      )}
      {tile.breakdown && tile.breakdown.length > 0 && (
        <List size="xs">
          {tile.breakdown.map((row) => (
            <List.Item key={row.project}>
              {row.project}: <span style={{ whiteSpace: 'nowrap' }}>{show(row.value)}</span>
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}
