import { Client } from 'pg';

/**
 * Append-only logs of calls, refused ones included by design (the AI gateway's call_records, the
 * MCP gateway's audit of tool calls), written behind a second later: a row there is a record of a
 * call, not a change the request made.
 */
const CALL_LOGS = ['call_records', 'mcp_tool_calls'];

/**
 * A digest of every row of every table of a service's database: equal before and after a
 * request means the request wrote nothing (the migrations' own table and the call logs aside).
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
      "select quote_ident(table_name) as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'migrations' and not (table_name = any($1)) order by 1",
      [CALL_LOGS],
    );
    const parts = rows.map(({ name }) => `select '${name}:' || coalesce(md5(string_agg(t::text, ',' order by t::text)), '-') as part from ${name} t`);
    return `select md5(string_agg(part, '|' order by part)) as digest from (${parts.join(' union all ')}) parts`;
  }
}
