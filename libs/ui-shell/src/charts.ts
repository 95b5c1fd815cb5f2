// The shell's charts (recharts), a separate entry so that a product UI's first visit does not load them.
export * from './lib/charts/bar-chart-figure';
