import type { CatalogueItem } from '../api/mcp-gateway-api';
import { exposedTools, toolNamesOf } from './exposed-tools';

const tool = (upstream: string, name: string, destructive = false): CatalogueItem => ({
  upstream,
  kind: 'tool',
  name,
  description: null,
  servers: [],
  destructive,
  required_roles: {},
});

describe('exposedTools', () => {
  const catalogue = [
    tool('github', 'list_issues'),
    tool('github', 'delete_repository', true),
    tool('jira', 'list_issues'),
    tool('jira', 'create_issue'),
    { ...tool('github', 'readme'), kind: 'prompt' as const },
  ];

  it('names the tools a server takes as its clients see them, prefixing only the names two of its upstreams share', () => {
    expect(exposedTools({ github: '*', jira: ['list_issues'] }, catalogue)).toEqual([
      { name: 'delete_repository', upstream: 'github', destructive: true },
      { name: 'github__list_issues', upstream: 'github', destructive: false },
      { name: 'jira__list_issues', upstream: 'jira', destructive: false },
    ]);
  });

  it('leaves out the tools of upstreams it does not take, and names one upstream’s tools as they are', () => {
    expect(exposedTools({ jira: '*' }, catalogue).map((exposed) => exposed.name)).toEqual(['create_issue', 'list_issues']);
    expect(exposedTools({}, catalogue)).toEqual([]);
  });

  it("lists once each tool name a project's servers expose, for the tools a key may be limited to", () => {
    const selection = (upstream: string, tools: '*' | string[]) => ({ upstream, tools, resources: '*' as const, prompts: '*' as const });
    expect(
      toolNamesOf([{ upstreams: [selection('jira', '*')] }, { upstreams: [selection('jira', ['create_issue']), selection('github', ['delete_repository'])] }], catalogue),
    ).toEqual(['create_issue', 'delete_repository', 'list_issues']);
  });
});
