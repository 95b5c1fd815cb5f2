import { productAccess } from './product-access';

describe("a person's roles in a product", () => {
  it('lets operators manage and viewers read the projects they hold the role on', () => {
    const access = productAccess(
      {
        workspace: ['ai-gateway'],
        projects: { beta: ['ai-gateway.viewer'], alpha: ['ai-gateway.operator'], gamma: ['mcp-gateway.operator'] },
      },
      'ai-gateway',
      ['alpha', 'beta', 'gamma'],
    );
    expect(access).toEqual({ readable: ['alpha', 'beta'], operable: ['alpha'], workspaceOperator: false, anyRole: true });
  });

  it('counts a role only with the sign-in key, in the workspace or on the project', () => {
    expect(productAccess({ workspace: [], projects: { alpha: ['ai-gateway.operator'] } }, 'ai-gateway', ['alpha'])).toMatchObject({ readable: [], operable: [], anyRole: false });
    expect(productAccess({ workspace: [], projects: { alpha: ['ai-gateway', 'ai-gateway.viewer'] } }, 'ai-gateway', ['alpha'])).toMatchObject({
      readable: ['alpha'],
      operable: [],
    });
    // A workspace role applies where the sign-in key is, here on alpha only.
    expect(productAccess({ workspace: ['ai-gateway.operator'], projects: { alpha: ['ai-gateway'] } }, 'ai-gateway', ['alpha', 'beta'])).toEqual({
      readable: ['alpha'],
      operable: ['alpha'],
      workspaceOperator: false,
      anyRole: true,
    });
  });

  it('makes a workspace operator an operator of every project, and tells the pages that keep changes to the workspace', () => {
    const access = productAccess({ workspace: ['mcp-gateway', 'mcp-gateway.operator'], projects: { alpha: [], beta: ['mcp-gateway'] } }, 'mcp-gateway', ['alpha', 'beta']);
    expect(access).toEqual({ readable: ['alpha', 'beta'], operable: ['alpha', 'beta'], workspaceOperator: true, anyRole: true });
    expect(productAccess({ workspace: ['mcp-gateway.operator'], projects: {} }, 'mcp-gateway', ['alpha']).workspaceOperator).toBe(false);
  });

  it('applies workspace roles to every visible project, though the grouped view lists none of them', () => {
    // admin in the demo data: workspace viewer of both gateways, no project grants.
    const workspace = ['ai-gateway', 'mcp-gateway', 'ai-gateway.viewer', 'mcp-gateway.viewer'];
    expect(productAccess({ workspace, projects: {} }, 'ai-gateway', ['beta', 'alpha'])).toEqual({
      readable: ['alpha', 'beta'],
      operable: [],
      workspaceOperator: false,
      anyRole: true,
    });
    // A workspace operator operates every visible project; a viewer there operates only where granted.
    expect(productAccess({ workspace: ['mcp-gateway', 'mcp-gateway.operator'], projects: {} }, 'mcp-gateway', ['alpha', 'beta'])).toMatchObject({
      readable: ['alpha', 'beta'],
      operable: ['alpha', 'beta'],
    });
    expect(productAccess({ workspace, projects: { gamma: ['ai-gateway.operator'] } }, 'ai-gateway', ['alpha', 'gamma'])).toMatchObject({
      readable: ['alpha', 'gamma'],
      operable: ['gamma'],
    });
  });
});
