import type { McpAccessGrant } from '../access/mcp-access';
import type { CatalogueItemRef } from '../catalogue/catalogue-access';
import type { VirtualServerDefinition } from '../registry/server-registry';
import { InMemoryServerRegistry } from '../transports/testing/test-gateway';
import { ToolAccessPolicy } from './tool-access-policy';

const ALL = { tools: '*', resources: '*', prompts: '*' } as const;

const servers: VirtualServerDefinition[] = [
  {
    id: 'repos',
    project: 'alpha',
    name: 'Repositories',
    selections: [{ upstream: 'github', ...ALL }],
    toolRoles: { deploy: 'operator', github__wipe: 'viewer' },
    resourceRoles: { 'repo://{name}/secrets': 'operator', 'note://payroll': 'operator' },
    promptRoles: { incident_review: 'operator' },
  },
  { id: 'plain', project: 'beta', name: 'Plain', selections: [{ upstream: 'github', ...ALL }] },
];
const policy = new ToolAccessPolicy(new InMemoryServerRegistry([], servers));

const viewer: McpAccessGrant = { principal: 'bob', servers: ['repos', 'plain'] };
const operator: McpAccessGrant = { principal: 'alice', servers: ['repos', 'plain'], operates: new Set(['repos']) };
const tool = (name: string, destructive = false): CatalogueItemRef => ({ kind: 'tool', upstream: 'github', name, ...(destructive ? { destructive } : {}) });
const permits = (grant: McpAccessGrant, item: CatalogueItemRef, serverId: string | null = 'repos') => policy.permits({ serverId, grant, sessions: false }, item);

describe('tool roles and key scopes (ToolAccessPolicy)', () => {
  it('lets any role use a tool not named, and only operators one named operator', () => {
    expect(permits(viewer, tool('search'))).toBe(true);
    expect(permits(viewer, tool('deploy'))).toBe(false);
    expect(permits(operator, tool('deploy'))).toBe(true);
  });

  it('keeps a destructive tool for operators unless the server names it, by name or prefixed by its upstream', () => {
    expect(permits(viewer, tool('drop', true))).toBe(false);
    expect(permits(operator, tool('drop', true))).toBe(true);
    expect(permits(viewer, tool('wipe', true))).toBe(true);
  });

  it('judges resources by URI or by the template they were read through, and prompts by name', () => {
    expect(permits(viewer, { kind: 'resource', upstream: 'github', name: 'note://payroll' })).toBe(false);
    expect(permits(viewer, { kind: 'resource', upstream: 'github', name: 'note://readme' })).toBe(true);
    expect(permits(viewer, { kind: 'resource', upstream: 'github', name: 'repo://app/secrets', template: 'repo://{name}/secrets' })).toBe(false);
    expect(permits(operator, { kind: 'resource', upstream: 'github', name: 'repo://app/secrets', template: 'repo://{name}/secrets' })).toBe(true);
    expect(permits(viewer, { kind: 'prompt', upstream: 'github', name: 'incident_review' })).toBe(false);
  });

  it('shows a key scoped to tools only those, whatever its role', () => {
    const key: McpAccessGrant = { principal: 'key:1', servers: ['repos'], operates: new Set(['repos']), tools: new Set(['deploy']) };
    expect(permits(key, tool('deploy'))).toBe(true);
    expect(permits(key, tool('search'))).toBe(false);
    // Its scope is about tools: prompts and resources follow the roles.
    expect(permits(key, { kind: 'prompt', upstream: 'github', name: 'incident_review' })).toBe(true);
  });

  it('on /mcp, lets a caller use an item one of its servers selecting it lets it use there', () => {
    expect(permits(viewer, tool('deploy'), null)).toBe(true); // `plain` names no roles
    expect(permits({ principal: 'bob', servers: ['repos'] }, tool('deploy'), null)).toBe(false);
    expect(permits({ principal: 'bob', servers: [] }, tool('search'), null)).toBe(false);
    // A resource read through a template a server selects by name is that server's.
    const templated = new ToolAccessPolicy(
      new InMemoryServerRegistry([], [{ id: 'docs', project: 'alpha', name: 'Docs', selections: [{ upstream: 'wiki', tools: [], resources: ['page://{id}'], prompts: [] }] }]),
    );
    const page = { kind: 'resource' as const, upstream: 'wiki', name: 'page://7', template: 'page://{id}' };
    expect(templated.permits({ serverId: null, grant: { principal: 'bob', servers: ['docs'] }, sessions: false }, page)).toBe(true);
  });
});
