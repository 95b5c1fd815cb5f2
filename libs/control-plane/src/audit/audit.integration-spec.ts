import request from 'supertest';
import { ControlPlaneHarness, startControlPlane } from '../testing/control-plane-harness';

describe('GET /api/v1/audit', () => {
  let cp: ControlPlaneHarness;
  let admin: string;
  const list = (query = '', token = admin) => request(cp.url).get(`/api/v1/audit${query}`).auth(token, { type: 'bearer' });

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await cp.person('admin');
    await cp.userId('admin');
    for (const slug of ['alpha', 'beta', 'gamma']) await request(cp.url).post('/api/v1/projects').auth(admin, { type: 'bearer' }).send({ slug, name: slug });
    await request(cp.url).put('/api/v1/me/theme').auth(admin, { type: 'bearer' }).send({ theme: 'dark' });
  });

  afterAll(() => cp.close());

  it('answers the newest first, naming the actor, and pages back with next_before_id', async () => {
    const first = await list('?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['user.theme_changed', 'project.created']);
    expect(first.body.entries[0]).toMatchObject({ actor_kind: 'person', actor_name: 'Ada Administrator', details: { from: 'system', to: 'dark' } });
    const second = await list(`?limit=2&before_id=${first.body.next_before_id}`);
    expect(second.body.entries.map((entry: { details: { slug?: string } }) => entry.details.slug)).toEqual(['beta', 'alpha']);
    // Four entries in all: the second page is the last.
    expect(second.body.next_before_id).toBeNull();
  });

  it('filters by action or action prefix, and by project', async () => {
    const created = await list('?action=project.');
    expect(created.body.entries).toHaveLength(3);
    const projectId = created.body.entries[0].project_id as string;
    const one = await list(`?project_id=${projectId}`);
    expect(one.body.entries.map((entry: { project_id: string }) => entry.project_id)).toEqual([projectId]);
    expect((await list('?action=user.theme_changed')).body.entries).toHaveLength(1);
  });

  it('names the person an entry is about, such as whose permissions were replaced', async () => {
    const aliceId = await cp.userId('alice');
    const replaced = await request(cp.url)
      .put(`/api/v1/users/${aliceId}/permissions`)
      .auth(admin, { type: 'bearer' })
      .send({ user_id: aliceId, workspace: ['ai-gateway'], projects: {} });
    expect(replaced.status).toBe(200);
    const [entry] = (await list('?action=permissions.replaced')).body.entries;
    expect(entry).toMatchObject({ target_id: aliceId, target_name: 'Alice Anderson' });
    // A target that is not a person has no name here (a project has its own column).
    const [project] = (await list('?action=project.created&limit=1')).body.entries;
    expect(project.target_name).toBeNull();
  });

  it('refuses malformed filters with invalid_request, and everyone but administrators', async () => {
    for (const query of ['?limit=0', '?before_id=abc', '?project_id=alpha', '?action=DROP%20TABLE']) {
      const refused = await list(query);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
    }
    expect((await list('', await cp.person('alice'))).status).toBe(403);
    expect((await request(cp.url).get('/api/v1/audit')).status).toBe(401);
  });
});
