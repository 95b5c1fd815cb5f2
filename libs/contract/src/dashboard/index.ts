export { DashboardSummaryModule, DEFAULT_DASHBOARD_PATH } from './dashboard-summary.module';
export type { DashboardSummaryAsyncOptions, DashboardSummaryFunction, DashboardSummaryOptions, DashboardViewer } from './dashboard-summary.module';
export type { DashboardStatus, DashboardSummary, DashboardTile, DashboardTileBreakdown } from './dashboard-summary';
