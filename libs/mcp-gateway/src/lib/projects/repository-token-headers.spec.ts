import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ControlPlaneClient, TokenVerifier } from '@arbor/contract';
import { McpControlPlaneAccess } from '../admin/admin-access';
import { UpstreamDefinition } from '../registry/server-registry';
import { InMemoryServerRegistry } from '../transports/testing/test-gateway';
import { RepositoryTokenHeaders } from './repository-token-headers';
import { RepositoryTokenHosts } from './repository-token-hosts';

const TOKEN = 'ghs_alphaRepositoryToken';

const upstream = (name: string, url: string): UpstreamDefinition => ({
  name,
  url,
  transport: 'streamable-http',
  headers: { authorization: 'Bearer {{project.repository_token}}', 'x-static': 'kept out' },
  timeoutMs: 10_000,
  maxConcurrency: 4,
});

describe("the project's repository token on calls to an upstream", () => {
  const approved = upstream('git', 'https://Git.Example.com./mcp');
  const operators = upstream('mine', 'http://203.0.113.9:8080/mcp');
  const registry = new InMemoryServerRegistry(
    [approved, operators],
    [{ id: 'alpha-tools', project: 'alpha', name: 'Alpha tools', selections: [{ upstream: 'git', tools: '*', resources: '*', prompts: '*' }] }],
  );
  const asked: string[] = [];
  const client = {
    findProject: async ({ slug }: { slug: string }) => (asked.push(`project ${slug}`), { id: 'p-alpha', slug }),
    getRepositoryToken: async (projectId: string) => (asked.push(`token of ${projectId}`), { value: TOKEN }),
  } as unknown as ControlPlaneClient;
  const headers = new RepositoryTokenHeaders(registry, new RepositoryTokenHosts(['git.example.com']), new McpControlPlaneAccess({} as TokenVerifier, client));

  beforeEach(() => (asked.length = 0));

  it('goes to an upstream on a host an administrator approved', async () => {
    expect(await headers.resolve('alpha-tools', approved)).toEqual({ authorization: `Bearer ${TOKEN}` });
  });

  it("is refused to an operator's own upstream, without ever being read from the control plane", async () => {
    const refused = await headers.resolve('alpha-tools', operators).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toContain('The upstream "mine" asks for {{project.repository_token}} in its headers, and its host 203.0.113.9');
    expect((refused as McpError).message).toContain('MCPGW_REPOSITORY_TOKEN_HOSTS');
    expect((refused as McpError).data).toEqual({ code: 'repository_token_not_allowed' });
    expect(JSON.stringify(refused)).not.toContain(TOKEN);
    expect(asked).toEqual([]);
  });

  it('goes nowhere when no host is approved', async () => {
    const none = new RepositoryTokenHeaders(registry, new RepositoryTokenHosts(), new McpControlPlaneAccess({} as TokenVerifier, client));
    await expect(none.resolve('alpha-tools', approved)).rejects.toThrow('MCPGW_REPOSITORY_TOKEN_HOSTS');
    expect(asked).toEqual([]);
  });
});
