import { gatewayAccess } from './gateway-access';

describe("a person's roles in the AI gateway", () => {
  it('lets operators manage and viewers read the projects they hold the role on', () => {
    const access = gatewayAccess({
      workspace: ['ai-gateway'],
      projects: { beta: ['ai-gateway.viewer'], alpha: ['ai-gateway.operator'], gamma: ['mcp-gateway.operator'] },
    });
    expect(access).toEqual({ readable: ['alpha', 'beta'], operable: ['alpha'] });
  });

  it('counts a role only with the sign-in key, in the workspace or on the project', () => {
    expect(gatewayAccess({ workspace: [], projects: { alpha: ['ai-gateway.operator'] } })).toEqual({ readable: [], operable: [] });
    expect(gatewayAccess({ workspace: [], projects: { alpha: ['ai-gateway', 'ai-gateway.viewer'] } })).toEqual({ readable: ['alpha'], operable: [] });
  });
});
