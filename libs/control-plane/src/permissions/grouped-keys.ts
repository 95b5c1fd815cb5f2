/** A grant as read from the database: its key, and its project's slug (null for a workspace grant). */
export interface KeyRow {
  key: string | null;
  slug?: string | null;
}

/** Sorted without repeats, so that one set always serialises to the same bytes (and ETag). */
export function sortedUnique(keys: Iterable<string>): string[] {
  return [...new Set(keys)].sort();
}

/** Workspace keys and keys by project slug, every list and the slugs sorted; rows without a key are skipped. */
export function groupKeys(rows: Iterable<KeyRow>): { workspace: string[]; projects: Record<string, string[]> } {
  const workspace: string[] = [];
  const byProject = new Map<string, string[]>();
  for (const { key, slug } of rows) {
    if (key === null) continue;
    if (slug == null) workspace.push(key);
    else {
      const keys = byProject.get(slug);
      if (keys) keys.push(key);
      else byProject.set(slug, [key]);
    }
  }
  const projects: Record<string, string[]> = {};
  for (const slug of [...byProject.keys()].sort()) projects[slug] = sortedUnique(byProject.get(slug) ?? []);
  return { workspace: sortedUnique(workspace), projects };
}
