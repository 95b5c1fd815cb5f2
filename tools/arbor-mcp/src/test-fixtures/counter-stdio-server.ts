// Test support: a tiny stdio MCP server with state of its own (a counter) and its process id, so
// a test can tell whether two clients share a process. `node counter-stdio-server.ts`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

let count = 0;
const server = new McpServer({ name: 'counter', version: '1.0.0' });

server.registerTool('increment', { description: "Adds one to this process's counter" }, () => {
  count += 1;
  return { content: [{ type: 'text', text: String(count) }] };
});
server.registerTool('pid', { description: 'The id of the process answering' }, () => ({
  content: [{ type: 'text', text: String(process.pid) }],
}));
server.registerTool('count', { description: 'Counts to n, reporting progress', inputSchema: { n: z.number() } }, async ({ n }, extra) => {
  const progressToken = extra._meta?.progressToken;
  for (let progress = 1; progress <= n; progress++) {
    if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: n } });
  }
  return { content: [{ type: 'text', text: `counted to ${n}` }] };
});

await server.connect(new StdioServerTransport());
