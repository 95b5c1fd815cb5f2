// `node tools/mcp-everything-server/src/main.ts [--stateless] [--era=2026-07-28]`: the everything server on its own.
// MCP_EVERYTHING_PORT (default 3001, 0 for a free one), MCP_EVERYTHING_HOST (default 127.0.0.1),
// MCP_EVERYTHING_STATELESS=true or --stateless for stateless Streamable HTTP,
// MCP_EVERYTHING_ERA=2026-07-28 or --era=2026-07-28 for the 2026-07-28 revision only (v2 SDK).
import { startEverythingServer } from './everything-server.ts';

const env = process.env;

startEverythingServer({
  port: env['MCP_EVERYTHING_PORT'] ? Number(env['MCP_EVERYTHING_PORT']) : 3001,
  host: env['MCP_EVERYTHING_HOST'] || undefined,
  stateless: process.argv.includes('--stateless') || env['MCP_EVERYTHING_STATELESS'] === 'true',
  era: process.argv.includes('--era=2026-07-28') || env['MCP_EVERYTHING_ERA'] === '2026-07-28' ? '2026-07-28' : 'legacy',
}).then(
  (everything) => {
    const stop = (): void => {
      everything.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdout.write(`mcp-everything-server ready at ${everything.url}\n`);
  },
  (error: unknown) => {
    console.error('mcp-everything-server: could not start:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
