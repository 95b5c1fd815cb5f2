// Test-only (not exported): the BUILT control plane (dist/apps/control-plane-api) on a fresh
// database, a counting proxy in front of it, and a few admin calls to seed it.
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createNetServer, Socket } from 'node:net';
import path from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test code, left out of the built package (tsconfig.lib.json), which imports nothing of ours
import { createTestDatabase, personToken, testIssuer, TestDatabase } from '@arbor/testing';

export const workspaceRoot = path.resolve(__dirname, '../../../..');

export interface BuiltControlPlane {
  url: string;
  database: TestDatabase;
  /** An admin call; throws unless the answer is 2xx. */
  admin<T = unknown>(method: string, route: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startBuiltControlPlane(): Promise<BuiltControlPlane> {
  const main = path.join(workspaceRoot, 'dist/apps/control-plane-api/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run npx nx run control-plane-api:build (the contract:test target does)`);
  const database = await createTestDatabase('arbor_contract');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [main], {
    cwd: workspaceRoot,
    env: {
      PATH: process.env['PATH'] ?? '',
      CP_DATABASE_URL: database.url,
      CP_OIDC_ISSUER_URL: testIssuer(),
      CP_OIDC_AUDIENCE: 'control-plane',
      CP_SECRETS_MASTER_KEY: Buffer.alloc(32, 42).toString('base64'),
      CP_LOG: 'off',
      CP_LISTEN_ADDR: `127.0.0.1:${port}`,
      // Products with a suite URL are known to the control plane, so their permission keys can be granted.
      CP_SUITE_AI_GATEWAY_URL: 'http://localhost:4000',
      CP_SUITE_MCP_GATEWAY_URL: 'http://localhost:4444',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`control-plane-api exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`control-plane-api did not answer /healthz within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let adminToken: Promise<string> | undefined;
  return {
    url,
    database,
    admin: async <T>(method: string, route: string, body?: unknown): Promise<T> => {
      adminToken ??= personToken('admin');
      const response = await fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${await adminToken}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await database.drop();
    },
  };
}

/** The `sub` of a token (unverified; tests only). */
export function subjectOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
}

/** A person's first call asking for their own permissions provisions them in the control plane. */
export async function provision(controlPlaneUrl: string, token: string): Promise<string> {
  const response = await fetch(`${controlPlaneUrl}/api/v1/permissions/effective?subject=${encodeURIComponent(subjectOf(token))}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`provisioning answered ${response.status}`);
  return ((await response.json()) as { user_id: string }).user_id;
}

export interface ObservedRequest {
  path: string;
  ifNoneMatch?: string;
  status?: number;
}

/**
 * A reverse proxy that records every request (path, If-None-Match, status), can go down (closes
 * connections without an answer) and can rewrite Cache-Control so that max-age is short.
 */
export class CountingProxy {
  readonly requests: ObservedRequest[] = [];
  down = false;
  /** When set, replaces the upstream Cache-Control header. */
  cacheControl?: string;
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly upstream: string) {}

  get url(): string {
    if (!this.server) throw new Error('the proxy is not started');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  requestsTo(prefix: string): ObservedRequest[] {
    return this.requests.filter((request) => request.path.startsWith(prefix));
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => void this.forward(request, response));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const observed: ObservedRequest = { path: request.url ?? '' };
    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string') observed.ifNoneMatch = ifNoneMatch;
    this.requests.push(observed);
    if (this.down) {
      request.socket.destroy();
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'if-none-match', 'accept']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(`${this.upstream}${request.url}`, { headers });
    observed.status = upstream.status;
    const body = Buffer.from(await upstream.arrayBuffer());
    // As the request, the answer carries on only what the contract's client reads; the body is read whole and framed anew here.
    for (const name of ['content-type', 'cache-control', 'etag']) {
      const value = upstream.headers.get(name);
      if (value !== null) response.setHeader(name, value);
    }
    if (this.cacheControl !== undefined && upstream.headers.has('cache-control')) response.setHeader('cache-control', this.cacheControl);
    response.writeHead(upstream.status).end(body);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
