// `npm start` as a newcomer runs it: the real script, an embedded PostgreSQL, the dev identity
// provider and the four built services, then SIGTERM. Ports are free ones so it can run anywhere.
import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

const root = path.resolve(__dirname, '../../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

function npmStart(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'tools/dev/src/main.mts'], {
    cwd: root,
    env: { ...process.env, ...env, ARBOR_SKIP_BUILD: 'true', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 120000);
    const exitedEarly = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    };
    const watchForReady = () => {
      if (!output.includes('Arbor is running')) return;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      child.stdout!.off('data', watchForReady);
      resolve({ child, output: () => output });
    };
    child.once('exit', exitedEarly);
    child.stdout!.on('data', watchForReady);
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-npm-start-'));
  fs.chmodSync(dataDir, 0o755);
  const ports: Record<string, number> = {};
  let env: Record<string, string>;

  beforeAll(async () => {
    for (const name of ['cp', 'dispatcher', 'ai', 'mcp', 'idp', 'pg']) ports[name] = await freePort();
    env = {
      ARBOR_DATA_DIR: dataDir,
      ARBOR_DEV_POSTGRES_PORT: String(ports['pg']),
      DEV_IDP_PORT: String(ports['idp']),
      CP_LISTEN_ADDR: `127.0.0.1:${ports['cp']}`,
      CP_DISPATCHER_LISTEN_ADDR: `127.0.0.1:${ports['dispatcher']}`,
      AIGW_LISTEN_ADDR: `127.0.0.1:${ports['ai']}`,
      MCPGW_LISTEN_ADDR: `127.0.0.1:${ports['mcp']}`,
      // Set when npm start runs, so it must reach the control plane: a sync target.
      CP_SHOP_API_URL: 'http://127.0.0.1:9/shop',
      CP_DATABASE_URL: '',
      AIGW_DATABASE_URL: '',
      MCPGW_DATABASE_URL: '',
    };
  });

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('brings up the identity provider and all four services, then stops everything on SIGTERM', async () => {
    const { child, output } = await npmStart(env);
    try {
      for (const name of ['cp', 'dispatcher', 'ai', 'mcp']) {
        const response = await fetch(`http://127.0.0.1:${ports[name]}/healthz`);
        expect(await response.text()).toBe('ok');
      }
      const discovery = await fetch(`http://localhost:${ports['idp']}/realms/arbor/.well-known/openid-configuration`);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(`http://localhost:${ports['idp']}/realms/arbor`);
      expect(output()).toContain(`http://localhost:${ports['cp']}`);
      expect(output()).toMatch(/admin.*alice, bob, carol/);
      expect(output()).toContain(`data in ${path.join(dataDir, 'postgres')}`);

      // The data stays in the data directory: leave a mark for the second start.
      const database = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports['pg']}/control_plane` });
      await database.connect();
      await database.query('create table npm_start_marker (id int)');
      await database.end();
    } finally {
      expect(await stop(child)).toBe(0);
    }
    for (const name of ['cp', 'dispatcher', 'ai', 'mcp', 'idp', 'pg']) {
      expect({ port: name, open: await portOpen(ports[name]) }).toEqual({ port: name, open: false });
    }
  });

  it('passes settings through to the services (a malformed one stops the start, naming it)', async () => {
    await expect(npmStart({ ...env, USE_STATEFUL_SESSIONS: 'maybe' })).rejects.toThrow(/USE_STATEFUL_SESSIONS: must be true or false/);
    for (const name of ['cp', 'idp', 'pg']) expect(await portOpen(ports[name])).toBe(false);
  });

  it('finds the same data on a second start', async () => {
    const { child } = await npmStart(env);
    try {
      const database = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports['pg']}/control_plane` });
      await database.connect();
      const { rows } = await database.query("select to_regclass('npm_start_marker') is not null as kept");
      await database.end();
      expect(rows).toEqual([{ kept: true }]);
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});
