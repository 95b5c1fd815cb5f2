import { holds, idleRoleKeys, sameGrants, toggle, type GrantSet } from './grant-set';

const products = [
  { key: 'ai-gateway', roles: [{ key: 'ai-gateway.operator' }, { key: 'ai-gateway.viewer' }] },
  { key: 'mcp-gateway', roles: [{ key: 'mcp-gateway.operator' }, { key: 'mcp-gateway.viewer' }] },
];

describe('the grants matrix model', () => {
  const empty: GrantSet = { workspace: [], projects: {} };

  it('gives and takes a key on the workspace and on a project, leaving the rest alone', () => {
    const withWorkspace = toggle(empty, { scope: 'workspace' }, 'ai-gateway', true);
    const withProject = toggle(withWorkspace, { scope: 'project', slug: 'alpha' }, 'ai-gateway.operator', true);
    expect(withProject).toEqual({ workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } });
    expect(holds(withProject, { scope: 'project', slug: 'alpha' }, 'ai-gateway.operator')).toBe(true);
    expect(holds(withProject, { scope: 'project', slug: 'beta' }, 'ai-gateway.operator')).toBe(false);
    expect(empty).toEqual({ workspace: [], projects: {} });
  });

  it('drops a project whose last key is taken, so the PUT body names only projects with grants', () => {
    const granted = toggle(empty, { scope: 'project', slug: 'alpha' }, 'mcp-gateway', true);
    expect(toggle(granted, { scope: 'project', slug: 'alpha' }, 'mcp-gateway', false)).toEqual(empty);
  });

  it('names role keys that count for nothing without the sign-in key', () => {
    const grants: GrantSet = { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator', 'mcp-gateway.viewer'] } };
    expect(idleRoleKeys(grants, products)).toEqual(['alpha: mcp-gateway.viewer']);
  });

  it('compares grant sets whatever their order', () => {
    expect(sameGrants({ workspace: ['b', 'a'], projects: { x: ['k'] } }, { workspace: ['a', 'b'], projects: { x: ['k'], y: [] } })).toBe(true);
    expect(sameGrants({ workspace: ['a'], projects: {} }, { workspace: [], projects: {} })).toBe(false);
  });
});
