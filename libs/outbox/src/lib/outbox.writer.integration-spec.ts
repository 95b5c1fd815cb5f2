import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { OUTBOX_ENTITIES, OUTBOX_MIGRATIONS } from '../index';
import { OutboxEvent } from './outbox-event.entity';
import { OUTBOX_CHANNEL, OutboxWriter, PROJECTS_CHANGED } from './outbox.writer';

describe('the outbox writer', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions({ url: database.url, entities: OUTBOX_ENTITIES, migrations: OUTBOX_MIGRATIONS, applicationName: 'test' })).initialize();
    await runMigrationsLocked(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('refuses to write outside a transaction', async () => {
    await expect(OutboxWriter.projectsChanged(dataSource.manager, ['alpha'])).rejects.toThrow(/inside the transaction/);
  });

  it('writes one row with the changed slugs, and a listener hears of it at commit', async () => {
    const listener = new Client({ connectionString: database.url });
    await listener.connect();
    await listener.query(`listen ${OUTBOX_CHANNEL}`);
    const heard = new Promise<string | undefined>((resolve) => listener.once('notification', (n) => resolve(n.payload)));

    await dataSource.transaction((manager) => OutboxWriter.projectsChanged(manager, ['beta', 'alpha', 'beta']));

    expect(await heard).toBe(PROJECTS_CHANGED);
    await listener.end();
    const rows = await dataSource.getRepository(OutboxEvent).find();
    expect(rows).toEqual([
      expect.objectContaining({ topic: PROJECTS_CHANGED, payload: { slugs: ['alpha', 'beta'] }, traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/) }),
    ]);
  });

  it('rolls back with the transaction that failed', async () => {
    const before = await dataSource.getRepository(OutboxEvent).count();
    await expect(
      dataSource.transaction(async (manager) => {
        await OutboxWriter.projectsChanged(manager, ['gamma']);
        throw new Error('the change failed after its outbox row');
      }),
    ).rejects.toThrow('the change failed');
    expect(await dataSource.getRepository(OutboxEvent).count()).toBe(before);
  });
});
