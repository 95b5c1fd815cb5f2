import { dataSourceOptions, runMigrationsLocked } from '@arbor/platform';
import { createTestDatabase, TestDatabase } from '@arbor/testing';
import { DataSource } from 'typeorm';
import { AI_GATEWAY_MIGRATIONS } from '../database';
import { MoneyAsNumeric1764300000100 } from './1764300000100-MoneyAsNumeric';

describe('MoneyAsNumeric: spend columns become exact decimals', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(() => database.drop());

  it('keeps the spend already written, without the float noise its sums carried', async () => {
    const connect = (migrations: typeof AI_GATEWAY_MIGRATIONS) => new DataSource(dataSourceOptions({ url: database.url, migrations, applicationName: 'test' })).initialize();
    const before = await connect(AI_GATEWAY_MIGRATIONS.filter((migration) => migration !== MoneyAsNumeric1764300000100));
    await runMigrationsLocked(before);
    // Spend as the double precision columns summed it: 0.00003 + 0.00012.
    await before.query(`insert into virtual_keys (key_hash, key_hint, project, spend) values (repeat('a', 64), 'sk-…aaaa', 'alpha', 0.00003::float8 + 0.00012::float8)`);
    await before.query(
      `insert into spend_daily (day, key_id, project, alias, deployment_id, provider, cost_usd) values ('2026-11-27', null, 'alpha', 'a', 'a-0', 'openai', 0.00003::float8 + 0.00012::float8)`,
    );
    expect(await before.query('select spend::text from virtual_keys')).toEqual([{ spend: '0.00015000000000000001' }]);
    await before.destroy();

    const after = await connect(AI_GATEWAY_MIGRATIONS);
    await runMigrationsLocked(after);
    expect(await after.query('select spend, budget_spend from virtual_keys')).toEqual([{ spend: '0.00015', budget_spend: '0' }]);
    expect(await after.query('select cost_usd from spend_daily')).toEqual([{ cost_usd: '0.00015' }]);
    // The rollup trigger goes on adding to the project's row, now exactly.
    await after.query(`update spend_daily set cost_usd = cost_usd + 0.00003`);
    expect(await after.query('select cost_usd from spend_project_daily')).toEqual([{ cost_usd: '0.00018' }]);
    await after.destroy();
  });
});
