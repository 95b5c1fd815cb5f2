// Test support: a stdio MCP server that answers `initialize`, then exits with code 3 at the first
// request after it, leaving that request unanswered. `node dies-after-initialize.ts`.
import { createInterface } from 'node:readline';

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line) as { id?: number | string; method?: string; params?: { protocolVersion?: string } };
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'dies', version: '1.0.0' } };
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
  } else if (message.id !== undefined) {
    process.exit(3);
  }
}
