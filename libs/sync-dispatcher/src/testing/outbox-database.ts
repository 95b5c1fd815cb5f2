import { runInTrace } from '@arbor/observability';
import { OUTBOX_ENTITIES, OUTBOX_MIGRATIONS, OutboxEvent, OutboxWriter, SyncDelivery } from '@arbor/outbox';
import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { DataSource } from 'typeorm';

export interface OutboxDatabase {
  database: TestDatabase;
  dataSource: DataSource;
  /** Commits one outbox event for `slugs`, in the trace of `traceparent` when given; returns the row. */
  change(slugs: string[], traceparent?: string): Promise<OutboxEvent>;
  deliveries(product?: string): Promise<SyncDelivery[]>;
  close(): Promise<void>;
}

/** A fresh database with the outbox tables, as the control plane or the dispatcher leaves it. */
export async function openOutboxDatabase(): Promise<OutboxDatabase> {
  const database = await createTestDatabase();
  const dataSource = await new DataSource(dataSourceOptions({ url: database.url, entities: OUTBOX_ENTITIES, migrations: OUTBOX_MIGRATIONS, applicationName: 'test' })).initialize();
  await runMigrationsLocked(dataSource);
  return {
    database,
    dataSource,
    change: async (slugs, traceparent) => {
      await runInTrace('test.change', () => dataSource.transaction((manager) => OutboxWriter.projectsChanged(manager, slugs)), { traceparent });
      return dataSource.getRepository(OutboxEvent).findOneOrFail({ where: {}, order: { id: 'DESC' } });
    },
    deliveries: (product) => dataSource.getRepository(SyncDelivery).find({ where: product ? { product } : {}, order: { id: 'ASC' } }),
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** Polls `read` until `accept` holds, or fails naming what it last saw. */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
