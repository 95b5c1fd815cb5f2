// The four services as `npm start` runs them: the built dist/apps/<app>/main.js, each with the
// environment it reads. Defaults point at the dev identity provider and the dev databases;
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

export function serviceSpecs(issuer: string, databases: Record<DatabaseVariable, string>, secrets: DevSecrets): ServiceSpec[] {
  const controlPlaneUrl = 'http://localhost:8080';
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
        MCPGW_OIDC_ISSUER_URL: issuer,
        MCPGW_CONTROL_PLANE_URL: controlPlaneUrl,
        MCPGW_M2M_CLIENT_ID: 'mcp-gateway-m2m',
        MCPGW_M2M_CLIENT_SECRET: 'dev-mcp-gateway-m2m-secret',
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
  });
  const prefix = `[${spec.app}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  return child;
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
