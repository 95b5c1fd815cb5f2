import { noRoleMessage, noRoleText } from './no-role';

describe('the empty state of a person without a role in the product', () => {
  const aiGateway = { key: 'ai-gateway', title: 'AI gateway' };

  it('names the viewer role for reading and the operator role for changing, with the sign-in key', () => {
    const message = noRoleMessage(aiGateway, { read: 'see its keys and spend', change: 'manage them' });
    expect(message.title).toBe('No AI gateway role on any project');
    expect(noRoleText(message)).toBe(
      'Ask a control-plane administrator for ai-gateway.viewer on a project to see its keys and spend, or ai-gateway.operator to manage them, together with the sign-in key ai-gateway.',
    );
    expect(message.body.filter((part) => typeof part !== 'string')).toEqual([{ key: 'ai-gateway.viewer' }, { key: 'ai-gateway.operator' }, { key: 'ai-gateway' }]);
  });

  it('names either role when a page needs no more than reading', () => {
    const message = noRoleMessage({ key: 'mcp-gateway', title: 'MCP gateway' }, { read: 'use its virtual servers' });
    expect(message.title).toBe('No MCP gateway role on any project');
    expect(noRoleText(message)).toBe(
      'Ask a control-plane administrator for mcp-gateway.viewer or mcp-gateway.operator on a project to use its virtual servers, together with the sign-in key mcp-gateway.',
    );
  });

  it("speaks of another team's product by its own key and title", () => {
    expect(noRoleText(noRoleMessage({ key: '3d-viewer', title: '3D viewer' }, { read: 'open its models', change: 'upload them' }))).toContain(
      '3d-viewer.viewer on a project to open its models, or 3d-viewer.operator to upload them, together with the sign-in key 3d-viewer.',
    );
  });
});
