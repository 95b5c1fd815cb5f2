import type { ControlPlaneClient } from '../client/control-plane-client';

/** What a product keeps per project, as reconcileProjects() asks and tells it. */
export interface ProjectStore {
  /** The ids of the projects the product keeps things of under `slug` (to learn where they went). */
  idsUnder(slug: string): Promise<string[]>;
  /** Project `id` is called `slug` now: keep everything of it there (and adopt what is kept under `slug` without an id). */
  current(id: string, slug: string): Promise<void>;
  /** Project `id`, last known here as `slug`, no longer exists. */
  deleted(id: string, slug: string): Promise<void>;
  /** Slugs the product keeps things under without a project id (made before it knew the control plane). */
  slugsWithoutIds(): Promise<string[]>;
}

/**
 * The usual project-sync handler, for a product that keeps the control plane's project id beside
 * the slug: each slug is re-read; a project found under it is `current`; a slug that names no
 * project any more had the projects the product kept under it renamed away (`current` under
 * their new slug) or deleted. Idempotent when the store's methods are; a slug the product never
 * heard of costs one lookup and changes nothing. Throws ControlPlaneUnavailableError when the
 * control plane cannot answer, so that the delivery fails and is retried.
 */
export async function reconcileProjects(client: Pick<ControlPlaneClient, 'findProject'>, slugs: readonly string[], store: ProjectStore): Promise<void> {
  for (const slug of slugs) {
    const project = await client.findProject({ slug });
    if (project) {
      await store.current(project.id, project.slug);
      continue;
    }
    for (const id of await store.idsUnder(slug)) {
      const renamed = await client.findProject({ id });
      if (renamed) await store.current(id, renamed.slug);
      else await store.deleted(id, slug);
    }
  }
}

/**
 * Matches what the product keeps without a project id (made before the control plane was
 * configured, or while it was down) with the control plane's projects: call it once at start,
 * without holding the start up, so that a later rename or deletion finds those rows too.
 */
export async function matchUnmatchedProjects(client: Pick<ControlPlaneClient, 'findProject'>, store: ProjectStore): Promise<void> {
  const slugs = await store.slugsWithoutIds();
  if (slugs.length > 0) await reconcileProjects(client, slugs, store);
}
