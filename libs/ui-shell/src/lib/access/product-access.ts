import type { ControlPlaneSchemas } from '../api/api-client';

type Permissions = ControlPlaneSchemas['MeResponse']['permissions'];

/** What the signed-in person may do in one product, project by project, as its API decides it. */
export interface ProductAccess {
  /** Projects where the person holds `<product>.viewer` or `<product>.operator`. */
  readable: string[];
  /** Projects where the person holds `<product>.operator`. */
  operable: string[];
  /** `<product>.operator` at workspace level (with the sign-in key there): what a product keeps to workspace operators. */
  workspaceOperator: boolean;
  /** Any role of the product anywhere (with its sign-in key). */
  anyRole: boolean;
}

/**
 * The person's roles in `product` from their effective permissions, on each project they may see
 * (`visibleProjects`, the slugs of GET /api/v1/me/projects) or hold keys on. The grouped view does
 * not repeat workspace keys per project, so they are applied here to every one of those projects.
 * A role key counts only together with the product's sign-in key (in the workspace or on the
 * project), as in the contract.
 */
export function productAccess(permissions: Permissions, product: string, visibleProjects: readonly string[]): ProductAccess {
  const signedInEverywhere = permissions.workspace.includes(product);
  const workspaceOperator = signedInEverywhere && permissions.workspace.includes(`${product}.operator`);
  const workspaceViewer = signedInEverywhere && permissions.workspace.includes(`${product}.viewer`);
  const readable: string[] = [];
  const operable: string[] = [];
  const projects = [...new Set([...visibleProjects, ...Object.keys(permissions.projects)])].sort((a, b) => a.localeCompare(b));
  for (const project of projects) {
    const keys = new Set([...permissions.workspace, ...(permissions.projects[project] ?? [])]);
    if (!keys.has(product)) continue;
    const operator = keys.has(`${product}.operator`);
    if (operator || keys.has(`${product}.viewer`)) readable.push(project);
    if (operator) operable.push(project);
  }
  return { readable, operable, workspaceOperator, anyRole: workspaceOperator || workspaceViewer || readable.length > 0 };
}
