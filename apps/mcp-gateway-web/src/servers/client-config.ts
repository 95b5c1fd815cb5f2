/** An MCP client a person connects to a virtual server, and what it is told. */
export interface ClientSnippet {
  client: 'Claude Code' | 'Cursor' | 'VS Code';
  /** Where it goes: a command to run, or the file to add it to. */
  where: string;
  text: string;
}

const KEY_PLACEHOLDER = '<your gateway API key>';

/**
 * How Claude Code, Cursor and VS Code reach a virtual server over Streamable HTTP, with a gateway
 * API key (Keys page) as the bearer token; each in the form the client's own docs give.
 */
export function clientSnippets(serverId: string, address: string, key = KEY_PLACEHOLDER): ClientSnippet[] {
  const authorization = `Bearer ${key}`;
  return [
    { client: 'Claude Code', where: 'Run in a terminal', text: `claude mcp add --transport http ${serverId} ${address} --header "Authorization: ${authorization}"` },
    {
      client: 'Cursor',
      where: 'Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      text: JSON.stringify({ mcpServers: { [serverId]: { url: address, headers: { Authorization: authorization } } } }, null, 2),
    },
    {
      client: 'VS Code',
      where: 'Add to .vscode/mcp.json',
      text: JSON.stringify({ servers: { [serverId]: { type: 'http', url: address, headers: { Authorization: authorization } } } }, null, 2),
    },
  ];
}

/** The address of a virtual server's MCP endpoint on this gateway. */
export function serverAddress(gatewayOrigin: string, serverId: string): string {
  return `${gatewayOrigin.replace(/\/$/, '')}/servers/${encodeURIComponent(serverId)}/mcp`;
}
