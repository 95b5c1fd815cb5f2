import { Client } from 'pg';
import { createTestDatabase } from './test-database';
import { machineToken, personToken } from './dev-idp-tokens';

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

describe('test helpers', () => {
  it('give each caller its own empty database and drop it afterwards', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a.url).not.toBe(b.url);
    const client = new Client({ connectionString: a.url });
    await client.connect();
    await client.query('create table marker (id int)');
    const { rows } = await client.query("select count(*)::int as tables from information_schema.tables where table_schema = 'public'");
    await client.end();
    expect(rows[0].tables).toBe(1);

    await Promise.all([a.drop(), b.drop()]);
    const gone = new Client({ connectionString: a.url });
    await expect(gone.connect()).rejects.toThrow(/does not exist/);
  });

  it('mint real tokens from the dev identity provider', async () => {
    expect(claimsOf(await personToken('bob'))).toMatchObject({ preferred_username: 'bob', azp: 'dev-cli' });
    expect(claimsOf(await machineToken('mcp-gateway-m2m'))).toMatchObject({ azp: 'mcp-gateway-m2m', aud: 'control-plane' });
    await expect(personToken('bob', 'wrong')).rejects.toThrow(/invalid_grant/);
  });
});
