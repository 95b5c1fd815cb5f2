import { tilesForProject } from './project-figures';
import type { DashboardTile } from './product-summary';

const tiles: DashboardTile[] = [
  {
    label: 'Spend today',
    value: '0.0013',
    unit: 'USD',
    breakdown: [
      { project: 'alpha', value: '0.0012' },
      { project: 'gamma', value: '0.0001' },
    ],
  },
  { label: 'Calls, last 24 h', value: 26, unit: 'requests', breakdown: [{ project: 'alpha', value: 26 }] },
  { label: 'Top aliases this month', value: 'claude-sonnet-4-5', unit: null },
];

describe("the dashboard's figures for the chosen project", () => {
  it("shows the chosen project's share of each figure that has one, and no other project's", () => {
    const shown = tilesForProject(tiles, 'gamma');
    expect(shown.map(({ label, value, scope, breakdown }) => ({ label, value, scope, breakdown }))).toEqual([
      { label: 'Spend today', value: '0.0001', scope: 'project', breakdown: [] },
      { label: 'Calls, last 24 h', value: '—', scope: 'project', breakdown: [] },
      { label: 'Top aliases this month', value: 'claude-sonnet-4-5', scope: 'workspace', breakdown: undefined },
    ]);
  });

  it('shows every figure whole, with its breakdown, when no project is chosen', () => {
    expect(tilesForProject(tiles, null)).toEqual(tiles.map((tile) => ({ ...tile, scope: 'all' })));
  });
});
