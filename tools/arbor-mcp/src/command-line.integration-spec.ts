// What a person typing `arbor-mcp …` sees: help on stdout, a clear message on stderr and exit
// code 2 for arguments that cannot work.
import { spawnSync } from 'node:child_process';
import { CLI, REPO_ROOT } from './test-fixtures/cli.ts';

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  // No MCP_SERVER_URL / MCP_AUTH from the environment running the tests.
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('arbor-mcp command line', () => {
  it.each([
    [['wrapper', '--help'], 'arbor-mcp wrapper --url'],
    [['translate', '--help'], 'arbor-mcp translate --stdio'],
    [['--help'], 'Commands:'],
  ])('prints help for %j on stdout and exits 0', (args, expected) => {
    const { status, stdout } = run(...args);
    expect(status).toBe(0);
    expect(stdout).toContain(expected);
  });

  it.each([
    [[], 'a command is required'],
    [['serve'], 'unknown command "serve"'],
    [['wrapper'], 'wrapper needs at least one --url (or MCP_SERVER_URL)'],
    [['wrapper', '--url', 'not a url'], 'not a URL: "not a url"'],
    [['wrapper', '--url', 'ftp://example.com/mcp'], 'not an http(s) URL'],
    [['wrapper', '--url', 'http://localhost:4444/mcp', '--token', 'x'], "Unknown option '--token'"],
    [['translate', '--port', '8000'], 'translate needs exactly one of --stdio or --url'],
    [['translate', '--stdio', 'node server.js'], '--port is required with --stdio'],
    [['translate', '--stdio', 'node server.js', '--port', 'eighty'], '--port must be a number from 0 to 65535'],
    [['translate', '--url', 'http://localhost:4444/mcp', '--port', '8000'], '--port only applies with --stdio'],
    [['translate', '--stdio', 'node server.js', '--url', 'http://localhost:4444/mcp'], 'translate needs exactly one of --stdio or --url'],
  ])('refuses %j with exit code 2 and says why on stderr', (args, expected) => {
    const { status, stdout, stderr } = run(...args);
    expect(status).toBe(2);
    expect(stderr).toContain(expected);
    expect(stdout).toBe('');
  });
});
