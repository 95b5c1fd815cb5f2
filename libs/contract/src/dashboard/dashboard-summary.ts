/**
 * `GET /api/v1/dashboard/summary`, served by every product to the suite dashboard, which calls
 * it with the signed-in person's token and merges the answers of all products.
 */
export interface DashboardSummary {
  /** The product key, as in permission keys: `ai-gateway`. */
  product: string;
  /** The product's name for people: `AI gateway`. */
  title: string;
  /** How the product is doing, as this person may see it. */
  status: DashboardStatus;
  /** A few figures, in the order to show them; empty when the person may see nothing. */
  tiles: DashboardTile[];
}

export type DashboardStatus = 'ok' | 'degraded' | 'down' | 'unknown';

export interface DashboardTile {
  /** Short, for a heading: `Requests today`. */
  label: string;
  value: number | string;
  /** `requests`, `USD`, `%`, `ms`…; null for a count of nothing in particular. */
  unit: string | null;
  /** Absolute URL of the product's page behind the figure. */
  link?: string;
  /** The same figure per project, only over projects the person may see. */
  breakdown?: DashboardTileBreakdown[];
}

export interface DashboardTileBreakdown {
  /** Project slug. */
  project: string;
  value: number | string;
}
