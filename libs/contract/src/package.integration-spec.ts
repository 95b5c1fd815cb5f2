// Done when: the built package (dist/libs/contract) installed by path into a scratch Nest app
// outside the workspace (no path aliases, no workspace tsconfig) guards routes with
// @RequirePermission against the real control plane and receives a sync call, over real HTTP
// with dev-idp tokens.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test code, left out of the built package (tsconfig.lib.json), which imports nothing of ours
import { machineToken, personToken, testIssuer } from '@arbor/testing';
import { BuiltControlPlane, provision, startBuiltControlPlane, workspaceRoot } from './testing/built-control-plane';

const DIST = path.join(workspaceRoot, 'dist/libs/contract');

const SCRATCH_MAIN = `
import 'reflect-metadata';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  ControlPlaneModule,
  ControlPlaneSyncModule,
  CurrentCaller,
  CurrentPermissions,
  DashboardSummaryModule,
  RequirePermission,
  VerifiedCaller,
} from '@arbor/contract';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(name + ' is not set');
  return value;
};
const received: string[][] = [];

@Controller()
class GatewayController {
  @Get('projects/:project/keys')
  @RequirePermission('ai-gateway', 'operator')
  keys(@Param('project') project: string, @CurrentCaller() caller: VerifiedCaller, @CurrentPermissions() permissions: string[]) {
    return { project, subject: caller.subject, permissions };
  }

  @Get('by-id/:projectId/usage')
  @RequirePermission('ai-gateway', 'viewer')
  usage(@Param('projectId') projectId: string) {
    return { projectId };
  }

  @Get('models')
  @RequirePermission('ai-gateway')
  models(@CurrentCaller() caller: VerifiedCaller) {
    return { kind: caller.kind, client: caller.clientId ?? null };
  }

  @Get('synced')
  synced() {
    return received;
  }
}

@Module({
  imports: [
    ControlPlaneModule.forRoot({
      baseUrl: env('CONTROL_PLANE_URL'),
      issuer: env('OIDC_ISSUER'),
      clientId: 'ai-gateway-m2m',
      clientSecret: env('M2M_SECRET'),
      audience: 'ai-gateway',
      // This product lets the control plane's machine client list models, and nothing else.
      authorizeMachine: (caller, requirement) => caller.clientId === 'control-plane-m2m' && requirement.role === undefined,
    }),
    ControlPlaneSyncModule.forRoot({
      issuer: env('OIDC_ISSUER'),
      audience: 'ai-gateway',
      handler: (slugs) => {
        received.push(slugs);
      },
    }),
    DashboardSummaryModule.forRoot({
      product: 'ai-gateway',
      title: 'AI gateway',
      summary: (viewer) => ({
        status: 'ok',
        tiles: [
          {
            label: 'Projects you operate',
            value: viewer.projectsWith('operator').length,
            unit: null,
            breakdown: viewer.projectsWith().map((project) => ({ project, value: viewer.projectsWith('operator').includes(project) ? 1 : 0 })),
          },
        ],
      }),
    }),
  ],
  controllers: [GatewayController],
})
class AppModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  console.log('scratch listening ' + (app.getHttpServer().address() as { port: number }).port);
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/** Links a dependency from the workspace's node_modules, as `npm install` would have placed it. */
function linkDependency(nodeModules: string, name: string): void {
  const source = path.join(workspaceRoot, 'node_modules', name);
  if (!existsSync(source)) throw new Error(`${name} is not installed in the workspace`);
  mkdirSync(path.dirname(path.join(nodeModules, name)), { recursive: true });
  symlinkSync(source, path.join(nodeModules, name), 'dir');
}

describe('the published package in a scratch Nest app', () => {
  let cp: BuiltControlPlane;
  let scratch: string;
  let app: ChildProcess | undefined;
  let appUrl: string;
  let output = '';
  let aliceToken: string;
  let bobToken: string;
  let alphaId: string;

  beforeAll(async () => {
    // The build target's own script: rebuilt here so the test never runs against a stale dist.
    execFileSync(process.execPath, [path.join(workspaceRoot, 'libs/contract/tools/build.cjs')], { cwd: workspaceRoot, stdio: 'pipe' });

    cp = await startBuiltControlPlane();
    [aliceToken, bobToken] = await Promise.all([personToken('alice'), personToken('bob')]);
    const alice = await provision(cp.url, aliceToken);
    const bob = await provision(cp.url, bobToken);
    alphaId = (await cp.admin<{ id: string }>('POST', '/api/v1/projects', { slug: 'alpha', name: 'Alpha' })).id;
    await cp.admin('POST', '/api/v1/projects', { slug: 'beta', name: 'Beta' });
    await cp.admin('PUT', `/api/v1/users/${alice}/permissions`, { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator', 'ai-gateway.viewer'] } });
    // bob: a role key on alpha but not the sign-in key.
    await cp.admin('PUT', `/api/v1/users/${bob}/permissions`, { workspace: ['mcp-gateway'], projects: { alpha: ['ai-gateway.operator'] } });

    scratch = mkdtempSync(path.join(tmpdir(), 'arbor-contract-scratch-'));
    const nodeModules = path.join(scratch, 'node_modules');
    // "Installed by path": the package directory as npm would place it for a file: dependency.
    cpSync(DIST, path.join(nodeModules, '@arbor/contract'), { recursive: true });
    const published = JSON.parse(readFileSync(path.join(DIST, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    // Only what the package declares (plus the app's own HTTP platform and Node types): an undeclared dependency fails here.
    for (const name of [...Object.keys(published.dependencies), ...Object.keys(published.peerDependencies), '@nestjs/platform-express', '@types/node']) {
      linkDependency(nodeModules, name);
    }
    writeFileSync(
      path.join(scratch, 'package.json'),
      JSON.stringify({
        name: 'scratch-product',
        private: true,
        dependencies: { '@arbor/contract': `file:${DIST}`, ...published.peerDependencies, '@nestjs/platform-express': '^12.0.0' },
      }),
    );
    writeFileSync(
      path.join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          skipLibCheck: false,
          types: ['node'],
          outDir: 'out',
          rootDir: 'src',
        },
        include: ['src'],
      }),
    );
    mkdirSync(path.join(scratch, 'src'));
    writeFileSync(path.join(scratch, 'src/main.ts'), SCRATCH_MAIN);
    // The package's .d.ts must type-check in a plain app (skipLibCheck off).
    execFileSync(process.execPath, [path.join(workspaceRoot, 'node_modules/typescript/bin/tsc'), '-p', path.join(scratch, 'tsconfig.json')], {
      cwd: scratch,
      stdio: 'pipe',
    });

    app = spawn(process.execPath, [path.join(scratch, 'out/main.js')], {
      cwd: scratch,
      env: { PATH: process.env['PATH'] ?? '', CONTROL_PLANE_URL: cp.url, OIDC_ISSUER: testIssuer(), M2M_SECRET: 'dev-ai-gateway-m2m-secret' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    appUrl = await new Promise<string>((resolve, reject) => {
      app!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /scratch listening (\d+)/.exec(output);
        if (match) resolve(`http://127.0.0.1:${match[1]}`);
      });
      app!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      app!.once('exit', (code) => reject(new Error(`the scratch app exited with ${code}:\n${output}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (app && app.exitCode === null) {
      const exited = new Promise((resolve) => app!.once('exit', resolve));
      app.kill('SIGTERM');
      await exited;
    }
    await cp?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const get = async (route: string, token?: string) => {
    const response = await fetch(`${appUrl}${route}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };

  it('lives outside the workspace and requires nothing of ours but itself', () => {
    expect(path.relative(workspaceRoot, scratch).startsWith('..')).toBe(true);
    const files = readdirSync(DIST, { recursive: true, encoding: 'utf8' });
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'package.json', 'README.md']));
    for (const file of files.filter((name) => name.endsWith('.js') || name.endsWith('.d.ts'))) {
      expect({ file, arbor: /["']@arbor\//.test(readFileSync(path.join(DIST, file), 'utf8')) }).toEqual({ file, arbor: false });
    }
  });

  it('lets a person with the sign-in key and the role through, on the project named by slug', async () => {
    const response = await get('/projects/alpha/keys', aliceToken);
    expect(response).toEqual({
      status: 200,
      body: { project: 'alpha', subject: expect.any(String), permissions: ['ai-gateway', 'ai-gateway.operator', 'ai-gateway.viewer'] },
    });
    expect((await get(`/by-id/${alphaId}/usage`, aliceToken)).status).toBe(200);
    expect((await get('/models', aliceToken)).status).toBe(200);
  });

  it('refuses a person without the role on that project, and a role key without the sign-in key', async () => {
    const beta = await get('/projects/beta/keys', aliceToken);
    expect(beta.status).toBe(403);
    expect(beta.body).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('ai-gateway.operator') } });
    expect((await get('/projects/alpha/keys', bobToken)).status).toBe(403);
    expect((await get('/models', bobToken)).status).toBe(403);
    expect((await get('/projects/nowhere/keys', aliceToken)).status).toBe(404);
  });

  it('refuses a missing token and a token for another audience with 401', async () => {
    expect(await get('/models')).toEqual({ status: 401, body: { error: { code: 'missing_token', message: expect.any(String) } } });
    const wrongAudience = await get('/models', await machineToken('ai-gateway-m2m'));
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.body).toEqual({ error: { code: 'invalid_token', message: expect.stringMatching(/audience/) } });
  });

  it("leaves machines to the product's hook", async () => {
    const controlPlane = await machineToken('control-plane-m2m');
    expect(await get('/models', controlPlane)).toEqual({ status: 200, body: { kind: 'machine', client: 'control-plane-m2m' } });
    expect((await get('/projects/alpha/keys', controlPlane)).status).toBe(403);
  });

  it("receives a sync call from the control plane's machine client and refuses anyone else", async () => {
    const post = async (token: string) =>
      fetch(`${appUrl}/api/v1/sync/control-plane/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ slugs: ['alpha', 'beta'] }),
      });
    expect((await post(await machineToken('control-plane-m2m'))).status).toBe(204);
    expect((await post(aliceToken)).status).toBe(403);
    expect((await post(await machineToken('ai-gateway-m2m'))).status).toBe(401);
    expect((await get('/synced')).body).toEqual([['alpha', 'beta']]);
  });

  it('serves the dashboard summary for the signed-in person', async () => {
    expect(await get('/api/v1/dashboard/summary', aliceToken)).toEqual({
      status: 200,
      body: {
        product: 'ai-gateway',
        title: 'AI gateway',
        status: 'ok',
        tiles: [{ label: 'Projects you operate', value: 1, unit: null, breakdown: [{ project: 'alpha', value: 1 }] }],
      },
    });
    const bob = await get('/api/v1/dashboard/summary', bobToken);
    expect(bob.body?.['tiles']).toEqual([{ label: 'Projects you operate', value: 0, unit: null, breakdown: [] }]);
    expect((await get('/api/v1/dashboard/summary', await machineToken('control-plane-m2m'))).status).toBe(403);
  });
});
