import { SimpleGrid } from '@mantine/core';
import { BarChartFigure, type ChartSeries } from '@arbor/ui-shell/charts';
import { useMemo } from 'react';
import { type CallHour, hourlySeries, type HourRow } from './hourly-series';

/** Mantine colour variables, in both themes' contrast, one per series. */
const PALETTE = ['blue', 'teal', 'grape', 'orange', 'indigo', 'cyan', 'pink', 'lime'].map((colour) => `var(--mantine-color-${colour}-filled)`);

/** Calls, failed calls and mean latency hour by hour over the last day, a series per `nameOf` (a tool, an A2A method). */
export function HourlyCallCharts<Hour extends CallHour>({ hours, nameOf, empty }: { hours: readonly Hour[]; nameOf(hour: Hour): string; empty: string }) {
  const { names, rows } = useMemo(() => hourlySeries(hours, nameOf), [hours, nameOf]);
  const series = (suffix: string): ChartSeries<HourRow>[] => names.map((name, index) => ({ key: `${name}${suffix}`, label: name, color: PALETTE[index % PALETTE.length] }));
  const shown = names.length === 0 ? [] : rows;
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <BarChartFigure title="Calls by hour" rows={shown} category="hour" series={series('')} empty={empty} />
      <BarChartFigure title="Failed calls by hour" rows={shown} category="hour" series={series(' errors')} empty={empty} />
      <BarChartFigure title="Mean latency by hour" rows={shown} category="hour" series={series(' ms')} stacked={false} format={(ms) => `${ms} ms`} empty={empty} />
    </SimpleGrid>
  );
}
