import { ControlPlaneHarness, startControlPlane } from './testing/control-plane-harness';

describe('the control plane service', () => {
  let cp: ControlPlaneHarness;

  beforeAll(async () => {
    cp = await startControlPlane();
  });

  afterAll(() => cp.close());

  it('migrates its database at start and keeps one workspace row', async () => {
    const tables = (await cp.dataSource.query("select tablename from pg_tables where schemaname = 'public' order by tablename")) as { tablename: string }[];
    expect(tables.map((t) => t.tablename)).toEqual(
      expect.arrayContaining(['audit_log', 'outbox_events', 'permission_grants', 'projects', 'repositories', 'repository_secrets', 'users', 'workspace']),
    );
    expect(await cp.dataSource.query('select count(*)::int as n from workspace')).toEqual([{ n: 1 }]);
  });
});
