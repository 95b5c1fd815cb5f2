import { Paper, Text } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export interface ChartSeries<Row> {
  key: keyof Row & string;
  label: string;
  /** A Mantine colour variable, so both themes keep their contrast. */
  color: string;
}

interface BarChartFigureProps<Row> {
  title: string;
  rows: Row[];
  category: keyof Row & string;
  series: ChartSeries<Row>[];
  format?(value: number): string;
  /** Bars across (a category per line, for names) instead of up (for days). */
  horizontal?: boolean;
  /** Shown instead of the chart when there are no rows. */
  empty?: string;
  /** Series on top of each other (parts of a whole), or side by side (figures that do not add up, such as latencies). */
  stacked?: boolean;
}

const axisTick = { fill: 'var(--mantine-color-text)', fontSize: 12 };

/**
 * A bar chart of a product's figures (recharts, in the UI kit's colours), named for assistive
 * technology. From `@arbor/ui-shell/charts`, so that only the pages with charts load recharts.
 */
export function BarChartFigure<Row extends object>({
  title,
  rows,
  category,
  series,
  format = String,
  horizontal = false,
  empty = 'No calls in this period.',
  stacked = true,
}: BarChartFigureProps<Row>) {
  // recharts reads the rows by key name; the props above keep those names to the row's fields.
  const data = rows as Record<string, unknown>[];
  const categoryKey: string = category;
  const height = horizontal ? Math.max(120, rows.length * 36 + 40) : 240;
  return (
    <Paper withBorder p="md" component="figure" m={0} aria-label={title}>
      <Text component="figcaption" fw={600} mb="sm">
        {title}
      </Text>
      {rows.length === 0 ? (
        <Text size="sm">{empty}</Text>
      ) : (
        <ResponsiveContainer width="100%" height={height}>
          <BarChart data={data} layout={horizontal ? 'vertical' : 'horizontal'} margin={{ left: 8, right: 16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--mantine-color-default-border)" />
            {horizontal ? (
              <>
                <XAxis type="number" tick={axisTick} tickFormatter={format} />
                <YAxis type="category" dataKey={categoryKey} tick={axisTick} width={140} />
              </>
            ) : (
              <>
                <XAxis dataKey={categoryKey} tick={axisTick} />
                <YAxis tick={axisTick} tickFormatter={format} width={72} />
              </>
            )}
            <Tooltip
              formatter={(value) => format(Number(value))}
              contentStyle={{ background: 'var(--mantine-color-body)', borderColor: 'var(--mantine-color-default-border)', color: 'var(--mantine-color-text)' }}
            />
            {series.map((line) => (
              <Bar key={line.key} dataKey={line.key as string} name={line.label} fill={line.color} stackId={stacked ? 'stack' : undefined} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
    </Paper>
  );
}
