import type { DashboardTile } from './product-summary';

/** A tile as the dashboard shows it: the whole figure, or one project's share of it. */
export interface ShownTile extends DashboardTile {
  /** `project`: the value is the chosen project's figure; `workspace`: the product gave no per-project figure. */
  scope: 'all' | 'project' | 'workspace';
}

/**
 * The tiles of a card for the project chosen in the picker: each figure with a per-project
 * breakdown becomes that project's figure (none when the product has no row for it), and a figure
 * without one is kept, marked as workspace-wide. Without a chosen project, every tile as it came.
 */
export function tilesForProject(tiles: readonly DashboardTile[], projectSlug: string | null): ShownTile[] {
  if (projectSlug === null) return tiles.map((tile) => ({ ...tile, scope: 'all' }));
  return tiles.map((tile) => {
    if (!tile.breakdown) return { ...tile, scope: 'workspace' };
    const row = tile.breakdown.find((entry) => entry.project === projectSlug);
    return { ...tile, value: row ? row.value : '—', breakdown: [], scope: 'project' };
  });
}
