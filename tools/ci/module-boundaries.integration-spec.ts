import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);

/** Lints `source` as if it were the file at `asPath`, returning ESLint's exit code and report. */
function lintAs(asPath: string, source: string): { status: number | null; output: string } {
  const result = spawnSync(bin('eslint'), ['--stdin', '--stdin-filename', asPath], {
    cwd: root,
    input: source,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false' },
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

describe('module boundaries', () => {
  it('refuses an app importing another app', () => {
    const { status, output } = lintAs('apps/ai-gateway/src/boundary-fixture.ts', "import { main } from '../../control-plane-api/src/main';\nexport const leaked = main;\n");
    expect(status).toBe(1);
    expect(output).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses a shared library importing an app', () => {
    const { status, output } = lintAs(
      'libs/config/src/boundary-fixture.ts',
      "import { mcpGatewayService } from '../../../apps/mcp-gateway/src/mcp-gateway.module';\nexport const leaked = mcpGatewayService;\n",
    );
    expect(status).toBe(1);
    expect(output).toContain('@nx/enforce-module-boundaries');
  });

  it('lets an app import a shared library through its alias', () => {
    const { status, output } = lintAs('apps/ai-gateway/src/boundary-fixture.ts', "import { loadConfig } from '@arbor/config';\nexport const allowed = loadConfig;\n");
    expect(output).not.toContain('enforce-module-boundaries');
    expect(status).toBe(0);
  });

  it('gives apps dependencies on libraries only', () => {
    const file = path.join(root, 'tmp', `graph-${process.pid}.json`);
    const result = spawnSync(bin('nx'), ['graph', `--file=${file}`], { cwd: root, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } });
    expect(result.status).toBe(0);
    const { graph } = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      graph: { nodes: Record<string, { type: string; data: { tags?: string[] } }>; dependencies: Record<string, { target: string }[]> };
    };
    fs.rmSync(file, { force: true });
    const apps = Object.keys(graph.nodes).filter((name) => graph.nodes[name].data.tags?.includes('type:app'));
    expect(apps.sort()).toEqual(['ai-gateway', 'ai-gateway-web', 'control-plane-api', 'control-plane-web', 'mcp-gateway', 'mcp-gateway-web', 'sync-dispatcher']);
    for (const app of apps) {
      const targets = graph.dependencies[app].map((d) => d.target).filter((t) => graph.nodes[t]);
      expect(targets.length).toBeGreaterThan(0);
      for (const target of targets) expect(graph.nodes[target].type).toBe('lib');
    }
  });
});
