import { Client } from 'pg';

/**
 * A digest of every row of every table of a service's database: equal before and after a
 * request means the request wrote nothing (the migrations' own table aside).
 */
export class DatabaseFingerprint {
  private query?: string;

  private constructor(private readonly client: Client) {}

  static async open(url: string): Promise<DatabaseFingerprint> {
    const client = new Client({ connectionString: url });
    await client.connect();
    return new DatabaseFingerprint(client);
  }

  async take(): Promise<string> {
    this.query ??= await this.build();
    const { rows } = await this.client.query<{ digest: string }>(this.query);
    return rows[0]?.digest ?? '';
  }

  close(): Promise<void> {
    return this.client.end();
  }

  private async build(): Promise<string> {
    const { rows } = await this.client.query<{ name: string }>(
      "select quote_ident(table_name) as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'migrations' order by 1",
    );
    const parts = rows.map(({ name }) => `select '${name}:' || coalesce(md5(string_agg(t::text, ',' order by t::text)), '-') as part from ${name} t`);
    return `select md5(string_agg(part, '|' order by part)) as digest from (${parts.join(' union all ')}) parts`;
  }
}
