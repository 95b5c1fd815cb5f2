import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { dataSourceOptions, runMigrationsLocked } from './database.module';

class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Slow enough that two unserialised runners would both see it pending.
    await queryRunner.query('select pg_sleep(0.3)');
    await queryRunner.query('create table widgets (id serial primary key)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('drop table widgets');
  }
}

describe('migrations at start', () => {
  let database: TestDatabase;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await Promise.all(sources.map((source) => source.destroy()));
    await database.drop();
  });

  async function replica(): Promise<DataSource> {
    const source = await new DataSource(dataSourceOptions({ url: database.url, migrations: [CreateWidgets1700000000000], applicationName: 'test' })).initialize();
    sources.push(source);
    return source;
  }

  it('run once even when two replicas start at the same moment', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    await Promise.all([runMigrationsLocked(a), runMigrationsLocked(b)]);
    const applied = await a.query('select name from migrations');
    expect(applied).toEqual([{ name: 'CreateWidgets1700000000000' }]);
    expect(await a.query("select to_regclass('widgets') is not null as exists")).toEqual([{ exists: true }]);
  });
});
