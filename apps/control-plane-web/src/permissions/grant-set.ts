/** A person's grants as PUT /api/v1/users/{id}/permissions takes them. */
export interface GrantSet {
  workspace: string[];
  projects: Record<string, string[]>;
}

/** A row of the matrix: the workspace, or one project by slug. */
export type GrantRow = { scope: 'workspace' } | { scope: 'project'; slug: string };

function keysOf(grants: GrantSet, row: GrantRow): string[] {
  return row.scope === 'workspace' ? grants.workspace : (grants.projects[row.slug] ?? []);
}

export function holds(grants: GrantSet, row: GrantRow, key: string): boolean {
  return keysOf(grants, row).includes(key);
}

/** The grants with `key` given or taken on `row`, sorted; a project left without keys is dropped. */
export function toggle(grants: GrantSet, row: GrantRow, key: string, granted: boolean): GrantSet {
  const current = keysOf(grants, row).filter((existing) => existing !== key);
  const next = (granted ? [...current, key] : current).sort();
  if (row.scope === 'workspace') return { ...grants, workspace: next };
  const projects = { ...grants.projects };
  if (next.length === 0) delete projects[row.slug];
  else projects[row.slug] = next;
  return { ...grants, projects };
}

/** Role keys that count for nothing: a role is meaningful only with the product's sign-in key on the row or the workspace. */
export function idleRoleKeys(grants: GrantSet, products: readonly { key: string; roles: readonly { key: string }[] }[]): string[] {
  const rows: GrantRow[] = [{ scope: 'workspace' }, ...Object.keys(grants.projects).map((slug) => ({ scope: 'project' as const, slug }))];
  return rows.flatMap((row) =>
    products.flatMap((product) =>
      product.roles
        .filter((role) => holds(grants, row, role.key) && !holds(grants, row, product.key) && !grants.workspace.includes(product.key))
        .map((role) => (row.scope === 'workspace' ? role.key : `${row.slug}: ${role.key}`)),
    ),
  );
}

export function sameGrants(a: GrantSet, b: GrantSet): boolean {
  const normal = (grants: GrantSet) =>
    JSON.stringify([
      [...grants.workspace].sort(),
      Object.entries(grants.projects)
        .filter(([, keys]) => keys.length > 0)
        .map(([slug, keys]) => [slug, [...keys].sort()])
        .sort(),
    ]);
  return normal(a) === normal(b);
}
