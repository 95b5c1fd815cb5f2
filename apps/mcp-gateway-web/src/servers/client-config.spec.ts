import { clientSnippets, serverAddress } from './client-config';

describe('the client configuration a person copies for a virtual server', () => {
  it("points at the server's Streamable HTTP endpoint on this gateway", () => {
    expect(serverAddress('http://localhost:4444/', 'everything')).toBe('http://localhost:4444/servers/everything/mcp');
  });

  it('gives Claude Code a command, and Cursor and VS Code the JSON their config files take, each with the key as a bearer token', () => {
    const [claude, cursor, vscode] = clientSnippets('everything', 'http://localhost:4444/servers/everything/mcp', 'mcpk-123');
    expect(claude.text).toBe('claude mcp add --transport http everything http://localhost:4444/servers/everything/mcp --header "Authorization: Bearer mcpk-123"');
    expect(JSON.parse(cursor.text)).toEqual({ mcpServers: { everything: { url: 'http://localhost:4444/servers/everything/mcp', headers: { Authorization: 'Bearer mcpk-123' } } } });
    expect(JSON.parse(vscode.text)).toEqual({
      servers: { everything: { type: 'http', url: 'http://localhost:4444/servers/everything/mcp', headers: { Authorization: 'Bearer mcpk-123' } } },
    });
  });
});
