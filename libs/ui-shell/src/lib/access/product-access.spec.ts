import { productAccess } from './product-access';

describe("a person's roles in a product", () => {
  it('lets operators manage and viewers read the projects they hold the role on', () => {
    const access = productAccess(
      {
        workspace: ['ai-gateway'],
        projects: { beta: ['ai-gateway.viewer'], alpha: ['ai-gateway.operator'], gamma: ['mcp-gateway.operator'] },
      },
      'ai-gateway',
    );
    expect(access).toEqual({ readable: ['alpha', 'beta'], operable: ['alpha'], workspaceOperator: false, anyRole: true });
  });

  it('counts a role only with the sign-in key, in the workspace or on the project', () => {
    expect(productAccess({ workspace: [], projects: { alpha: ['ai-gateway.operator'] } }, 'ai-gateway')).toMatchObject({ readable: [], operable: [], anyRole: false });
    expect(productAccess({ workspace: [], projects: { alpha: ['ai-gateway', 'ai-gateway.viewer'] } }, 'ai-gateway')).toMatchObject({ readable: ['alpha'], operable: [] });
  });

  it('makes a workspace operator an operator of every project, and tells the pages that keep changes to the workspace', () => {
    const access = productAccess({ workspace: ['mcp-gateway', 'mcp-gateway.operator'], projects: { alpha: [], beta: ['mcp-gateway'] } }, 'mcp-gateway');
    expect(access).toEqual({ readable: ['alpha', 'beta'], operable: ['alpha', 'beta'], workspaceOperator: true, anyRole: true });
    expect(productAccess({ workspace: ['mcp-gateway.operator'], projects: {} }, 'mcp-gateway').workspaceOperator).toBe(false);
  });
});
