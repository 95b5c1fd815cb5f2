import { can, formatPermissionKey, keysForProject, parsePermissionKey, PERMISSION_KEY_PATTERN, projectsWhere, rolesIn } from './permission-keys';

describe('permission keys', () => {
  it('parses and formats sign-in keys and role keys', () => {
    expect(parsePermissionKey('ai-gateway')).toEqual({ product: 'ai-gateway' });
    expect(parsePermissionKey('ai-gateway.operator')).toEqual({ product: 'ai-gateway', role: 'operator' });
    for (const bad of ['', 'ai-gateway.', '.operator', 'a.b.c', 'AI', 'ai gateway', '-ai', 'ai.-x', 'ai_gateway']) expect(parsePermissionKey(bad)).toBeNull();
    // Product keys come from CP_SUITE_<PRODUCT>_URL: CP_SUITE_3D_VIEWER_URL names `3d-viewer`.
    expect(parsePermissionKey('3d-viewer.operator')).toEqual({ product: '3d-viewer', role: 'operator' });
    expect(can(['3d-viewer', '3d-viewer.viewer'], '3d-viewer', 'viewer')).toBe(true);
    expect(formatPermissionKey('mcp-gateway')).toBe('mcp-gateway');
    expect(formatPermissionKey('mcp-gateway', 'viewer')).toBe('mcp-gateway.viewer');
    expect(() => formatPermissionKey('a.b')).toThrow(/product key/);
    expect(() => formatPermissionKey('a', 'b.c')).toThrow(/role/);
  });

  it('can() counts a role key only together with the sign-in key of its product', () => {
    expect(can(['ai-gateway.operator'], 'ai-gateway', 'operator')).toBe(false);
    expect(can(['ai-gateway.operator'], 'ai-gateway')).toBe(false);
    expect(can(['mcp-gateway', 'ai-gateway.operator'], 'ai-gateway', 'operator')).toBe(false);
    expect(can(['ai-gateway', 'ai-gateway.operator'], 'ai-gateway', 'operator')).toBe(true);
    expect(can(new Set(['ai-gateway', 'ai-gateway.operator']), 'ai-gateway', 'operator')).toBe(true);
    expect(can(['ai-gateway', 'ai-gateway.viewer'], 'ai-gateway', 'operator')).toBe(false);
    expect(can(['ai-gateway'], 'ai-gateway')).toBe(true);
    expect(can([], 'ai-gateway')).toBe(false);
  });

  it('lists roles and merges a grouped view for one project', () => {
    expect(rolesIn(['ai-gateway.operator', 'ai-gateway.viewer'], 'ai-gateway')).toEqual([]);
    expect(rolesIn(['ai-gateway', 'ai-gateway.operator', 'mcp-gateway.viewer'], 'ai-gateway')).toEqual(['operator']);
    const view = { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'] } };
    expect(keysForProject(view, 'alpha')).toEqual(['ai-gateway', 'ai-gateway.operator']);
    expect(keysForProject(view, 'beta')).toEqual(['ai-gateway']);
  });
});

describe('PERMISSION_KEY_PATTERN', () => {
  it('accepts exactly what parsePermissionKey parses', () => {
    const pattern = new RegExp(PERMISSION_KEY_PATTERN);
    for (const key of ['ai-gateway', 'ai-gateway.operator', '3d-viewer', 'a.b', '', 'a.b.c', 'A', '-a', 'a.', 'a b', 'a.1x', 'x1-.y']) {
      expect([key, pattern.test(key)]).toEqual([key, parsePermissionKey(key) !== null]);
    }
  });
});

describe('projectsWhere', () => {
  it('names the projects where a role counts, workspace keys included', () => {
    const view = { workspace: ['ai-gateway'], projects: { alpha: ['ai-gateway.operator'], beta: ['ai-gateway.viewer'], gamma: ['mcp-gateway.operator'] } };
    expect(projectsWhere(view, 'ai-gateway', 'operator')).toEqual(['alpha']);
    expect(projectsWhere(view, 'ai-gateway')).toBe('all');
    expect(projectsWhere(view, 'mcp-gateway', 'operator')).toEqual([]);
  });

  it('answers all when the role is granted at workspace level', () => {
    expect(projectsWhere({ workspace: ['ai-gateway', 'ai-gateway.operator'], projects: {} }, 'ai-gateway', 'operator')).toBe('all');
  });
});
