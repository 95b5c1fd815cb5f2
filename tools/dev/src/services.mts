// The four services as `npm start` runs them: the built dist/apps/<app>/main.js, each with the
// environment it reads, and the fake model providers the AI gateway's demo aliases point at.
// Defaults point at the dev identity provider, the dev databases and the fake providers;
// any variable already set when `npm start` runs wins, so every setting passes through.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseVariable } from './dev-postgres.mts';

export interface ServiceSpec {
  app: string;
  label: string;
  listenVariable: string;
  defaultListen: string;
  env: Record<string, string>;
}

export interface DevSecrets {
  CP_SECRETS_MASTER_KEY: string;
  MCPGW_SECRETS_KEY: string;
  AIGW_MASTER_KEY: string;
}

/** Development keys, made once and kept in .data so stored secrets stay readable across starts. */
export function devSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, 'dev-secrets.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets;
  const secrets: DevSecrets = {
    CP_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
    MCPGW_SECRETS_KEY: randomBytes(32).toString('base64'),
    AIGW_MASTER_KEY: `sk-arbor-dev-${randomBytes(12).toString('hex')}`,
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/** The AI gateway's demo aliases (AIGW_CONFIG); they name the fake providers by these variables. */
export const DEMO_GATEWAY_CONFIG = 'tools/dev/ai-gateway.demo.yaml';

/** The MCP gateway's demo upstream and virtual server (MCPGW_CONFIG). */
export const DEMO_MCP_CONFIG = 'tools/dev/mcp-gateway.demo.yaml';

export function serviceSpecs(
  issuer: string,
  databases: Record<DatabaseVariable, string>,
  secrets: DevSecrets,
  fakeProvidersUrl: string,
  everythingUrl: string,
  /** The everything server in the 2026-07-28 revision only: the demo's upstream of that era. */
  modernEverythingUrl: string,
  /** tools/demo-agent: the MCP gateway's demo A2A agent. */
  demoAgentUrl: string,
  /** Where the control plane and the gateways listen (CP_LISTEN_ADDR, AIGW_/MCPGW_LISTEN_ADDR): the products ask the first, it syncs to the others. */
  listens: { controlPlane?: string; aiGateway?: string; mcpGateway?: string } = {},
): ServiceSpec[] {
  const controlPlaneUrl = localUrl(listens.controlPlane ?? '0.0.0.0:8080');
  // Project sync to both gateways (the control plane writes the outbox rows, the dispatcher
  // delivers them): the AI gateway on the contract's path, the MCP gateway on its admin path.
  const projectSync = {
    CP_AI_GATEWAY_API_URL: localUrl(listens.aiGateway ?? '0.0.0.0:4000'),
    CP_MCP_GATEWAY_API_URL: localUrl(listens.mcpGateway ?? '0.0.0.0:4444'),
    CP_MCP_GATEWAY_SYNC_PATH: '/admin/sync/control-plane/projects',
  };
  return [
    {
      app: 'control-plane-api',
      label: 'control plane',
      listenVariable: 'CP_LISTEN_ADDR',
      defaultListen: '0.0.0.0:8080',
      env: {
        CP_DATABASE_URL: databases.CP_DATABASE_URL,
        CP_OIDC_ISSUER_URL: issuer,
        CP_OIDC_AUDIENCE: 'control-plane',
        CP_SECRETS_MASTER_KEY: secrets.CP_SECRETS_MASTER_KEY,
        CP_M2M_CLIENT_ID: 'control-plane-m2m',
        CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
        // The suite's module rail and CORS; they also make ai-gateway and mcp-gateway known products.
        CP_SUITE_CONTROL_PLANE_URL: controlPlaneUrl,
        CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
        CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
        ...projectSync,
      },
    },
    {
      app: 'sync-dispatcher',
      label: 'sync dispatcher',
      listenVariable: 'CP_DISPATCHER_LISTEN_ADDR',
      defaultListen: '0.0.0.0:8081',
      env: {
        CP_DATABASE_URL: databases.CP_DATABASE_URL,
        CP_OIDC_ISSUER_URL: issuer,
        CP_M2M_CLIENT_ID: 'control-plane-m2m',
        CP_M2M_CLIENT_SECRET: 'dev-control-plane-m2m-secret',
        ...projectSync,
      },
    },
    {
      app: 'ai-gateway',
      label: 'AI gateway',
      listenVariable: 'AIGW_LISTEN_ADDR',
      defaultListen: '0.0.0.0:4000',
      env: {
        AIGW_DATABASE_URL: databases.AIGW_DATABASE_URL,
        AIGW_MASTER_KEY: secrets.AIGW_MASTER_KEY,
        AIGW_CONFIG: DEMO_GATEWAY_CONFIG,
        FAKE_OPENAI_API_BASE: `${fakeProvidersUrl}/openai`,
        FAKE_ANTHROPIC_API_BASE: `${fakeProvidersUrl}/anthropic`,
        FAKE_GEMINI_API_BASE: `${fakeProvidersUrl}/gemini`,
        FAKE_AZURE_API_BASE: `${fakeProvidersUrl}/azure`,
        FAKE_BEDROCK_API_BASE: `${fakeProvidersUrl}/bedrock`,
        FAKE_VERTEX_API_BASE: `${fakeProvidersUrl}/vertex`,
        AIGW_OIDC_ISSUER_URL: issuer,
        AIGW_CONTROL_PLANE_URL: controlPlaneUrl,
        AIGW_M2M_CLIENT_ID: 'ai-gateway-m2m',
        AIGW_M2M_CLIENT_SECRET: 'dev-ai-gateway-m2m-secret',
      },
    },
    {
      app: 'mcp-gateway',
      label: 'MCP gateway',
      listenVariable: 'MCPGW_LISTEN_ADDR',
      defaultListen: '0.0.0.0:4444',
      env: {
        MCPGW_DATABASE_URL: databases.MCPGW_DATABASE_URL,
        MCPGW_SECRETS_KEY: secrets.MCPGW_SECRETS_KEY,
        MCPGW_CONFIG: DEMO_MCP_CONFIG,
        MCP_EVERYTHING_URL: everythingUrl,
        MCP_EVERYTHING_2026_URL: modernEverythingUrl,
        DEMO_AGENT_URL: demoAgentUrl,
        // What MCPGW_CONFIG's agent sends the demo agent (its static auth, sealed in the database).
        DEMO_AGENT_AUTHORIZATION: `Bearer ${DEMO_AGENT_TOKEN}`,
        MCPGW_OIDC_ISSUER_URL: issuer,
        MCPGW_CONTROL_PLANE_URL: controlPlaneUrl,
        MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
        MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
        // The gateway's own client: token exchange for upstreams that see the person, and who connects an OAuth upstream.
        MCPGW_OIDC_CLIENT_ID: 'mcp-gateway',
        MCPGW_OIDC_CLIENT_SECRET: 'dev-mcp-gateway-secret',
        // MCP clients' sign-in metadata names the gateway by it.
        MCPGW_PUBLIC_URL: localUrl(listens.mcpGateway ?? '0.0.0.0:4444'),
      },
    },
  ];
}

/** host:port to the URL a person on this machine opens. */
export function localUrl(listen: string): string {
  const port = listen.slice(listen.lastIndexOf(':') + 1);
  return `http://localhost:${port}`;
}

export function startService(root: string, spec: ServiceSpec, inherited: NodeJS.ProcessEnv): ChildProcess {
  // The inherited environment wins over the defaults: `CP_SHOP_API_URL=… npm start` adds a sync target.
  const env: NodeJS.ProcessEnv = { ...spec.env, ...withoutEmpty(inherited) };
  const child = spawn(process.execPath, [path.join(root, 'dist/apps', spec.app, 'main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: Ctrl-C reaches only npm start, which stops the services in order.
    detached: true,
  });
  prefixOutput(child, spec.app);
  return child;
}

/**
 * tools/fake-providers as a child process (FAKE_PROVIDERS_PORT, default 8099), once it listens:
 * the upstream of the AI gateway's demo aliases.
 */
export function startFakeProviders(root: string, inherited: NodeJS.ProcessEnv): Promise<StartedTool> {
  return startTool(root, 'fake-providers', 'FAKE_PROVIDERS_PORT', '8099', inherited);
}

/**
 * tools/mcp-everything-server on http://127.0.0.1:3001/mcp (MCP_EVERYTHING_PORT), once it
 * listens: the MCP gateway's demo upstream, the virtual server `everything` of project alpha.
 */
export function startEverythingServer(root: string, inherited: NodeJS.ProcessEnv): Promise<StartedTool> {
  return startTool(root, 'mcp-everything-server', 'MCP_EVERYTHING_PORT', '3001', inherited);
}

/**
 * The everything server again, in the 2026-07-28 revision only (v2 SDK), on
 * http://127.0.0.1:3002/mcp (MCP_EVERYTHING_2026_PORT): the demo's upstream of that era, the
 * virtual server `everything-2026` of project alpha.
 */
export function startModernEverythingServer(root: string, inherited: NodeJS.ProcessEnv): Promise<StartedTool> {
  const port = inherited['MCP_EVERYTHING_2026_PORT'] || '3002';
  return startTool(root, 'mcp-everything-server', 'MCP_EVERYTHING_2026_PORT', port, { ...inherited, MCP_EVERYTHING_PORT: port, MCP_EVERYTHING_ERA: '2026-07-28' });
}

/** The token the demo agent wants; the MCP gateway's demo config sends it as the agent's static auth. */
export const DEMO_AGENT_TOKEN = 'dev-demo-agent-token';

/**
 * tools/demo-agent on http://127.0.0.1:3010 (DEMO_AGENT_PORT), once it listens: an A2A agent built
 * with the official SDK, registered in the MCP gateway's demo config as `helpdesk` of project alpha.
 */
export function startDemoAgent(root: string, inherited: NodeJS.ProcessEnv): Promise<StartedTool> {
  return startTool(root, 'demo-agent', 'DEMO_AGENT_PORT', '3010', { DEMO_AGENT_TOKEN, ...inherited });
}

export interface StartedTool {
  child: ChildProcess;
  url: string;
  /** Starts it again the same way, on the same port (after a crash), without waiting for it. */
  restart: () => ChildProcess;
}

/** `node tools/<name>/src/main.ts`, resolved with the URL it prints as `<name> ready at <url>`. */
function startTool(root: string, name: string, portVariable: string, defaultPort: string, inherited: NodeJS.ProcessEnv): Promise<StartedTool> {
  const env = { [portVariable]: defaultPort, ...withoutEmpty(inherited) };
  const restart = () => {
    const child = spawn(process.execPath, [path.join(root, 'tools', name, 'src/main.ts')], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    prefixOutput(child, name);
    return child;
  };
  const child = restart();
  const ready = new RegExp(`${name} ready at (\\S+)`);
  return new Promise((resolve, reject) => {
    let output = '';
    const exited = (code: number | null) =>
      reject(new Error(`${name} could not start on port ${env[portVariable]} (exit code ${code}): ${output.trim()}\n  set ${portVariable} to another port`));
    child.once('exit', exited);
    const watch = (chunk: string) => {
      output += chunk;
      const url = ready.exec(output)?.[1];
      if (!url) return;
      child.off('exit', exited);
      child.stdout?.off('data', watch);
      resolve({ child, url, restart });
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', (chunk: string) => (output += chunk));
  });
}

/** A child's output lines on ours, each prefixed with its name. */
function prefixOutput(child: ChildProcess, name: string): void {
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
}

function withoutEmpty(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
}

export async function waitHealthy(url: string, child: ChildProcess, timeoutMs = 60000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no answer from ${url}/healthz within ${timeoutMs / 1000} s`);
}
