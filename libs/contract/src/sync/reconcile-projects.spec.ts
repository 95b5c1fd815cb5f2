import { ControlPlaneUnavailableError } from '../client/control-plane-client.errors';
import type { ProjectRecord } from '../client/control-plane-client.types';
import { matchUnmatchedProjects, ProjectStore, reconcileProjects } from './reconcile-projects';

const project = (id: string, slug: string): ProjectRecord => ({ id, slug, name: slug, repository_count: 0, created_at: '', updated_at: '' });

/** The control plane's projects now, and a store that records what it is told. */
function world(projects: ProjectRecord[], kept: Record<string, string[]>) {
  const told: string[] = [];
  const client = {
    findProject: async (query: { id: string } | { slug: string }) =>
      projects.find((candidate) => ('id' in query ? candidate.id === query.id : candidate.slug === query.slug)) ?? null,
  };
  const store: ProjectStore = {
    idsUnder: async (slug) => kept[slug] ?? [],
    current: async (id, slug) => void told.push(`current ${id} ${slug}`),
    deleted: async (id, slug) => void told.push(`deleted ${id} ${slug}`),
    slugsWithoutIds: async () => Object.keys(kept).filter((slug) => kept[slug].length === 0),
  };
  return { client, store, told };
}

describe('reconcileProjects', () => {
  it('moves a renamed project to its new slug, whichever of the two slugs comes first', async () => {
    const { client, store, told } = world([project('p1', 'new')], { old: ['p1'] });
    await reconcileProjects(client, ['old', 'new'], store);
    expect(told).toEqual(['current p1 new', 'current p1 new']);
  });

  it('tells the store of a deleted project, by the slug it was kept under', async () => {
    const { client, store, told } = world([], { gone: ['p2'] });
    await reconcileProjects(client, ['gone'], store);
    expect(told).toEqual(['deleted p2 gone']);
  });

  it('changes nothing for a slug the product never heard of', async () => {
    const { client, store, told } = world([], {});
    await reconcileProjects(client, ['never'], store);
    expect(told).toEqual([]);
  });

  it('throws when the control plane cannot answer, so that the delivery is retried', async () => {
    const { store } = world([], {});
    const down = { findProject: async () => Promise.reject(new ControlPlaneUnavailableError('down')) };
    await expect(reconcileProjects(down, ['any'], store)).rejects.toBeInstanceOf(ControlPlaneUnavailableError);
  });

  it('matches what was kept without an id with the project of that slug', async () => {
    const { client, store, told } = world([project('p3', 'legacy')], { legacy: [], other: ['p4'] });
    await matchUnmatchedProjects(client, store);
    expect(told).toEqual(['current p3 legacy']);
  });
});
