import type { Me } from '@arbor/ui-shell';

export const AI_GATEWAY = 'ai-gateway';

/** What the signed-in person may do in the AI gateway, project by project, as its API decides it. */
export interface GatewayAccess {
  /** Projects whose keys and spend the person may read (ai-gateway.viewer or ai-gateway.operator). */
  readable: string[];
  /** Projects whose keys the person may create, change, rotate, block and delete (ai-gateway.operator). */
  operable: string[];
}

/**
 * The person's roles from their effective permissions: a role key counts only together with the
 * product's sign-in key (`ai-gateway`, in the workspace or on the project), as in the contract.
 */
export function gatewayAccess(permissions: Me['permissions']): GatewayAccess {
  const signedInEverywhere = permissions.workspace.includes(AI_GATEWAY);
  const readable: string[] = [];
  const operable: string[] = [];
  for (const [project, keys] of Object.entries(permissions.projects).sort(([a], [b]) => a.localeCompare(b))) {
    if (!signedInEverywhere && !keys.includes(AI_GATEWAY)) continue;
    const operator = keys.includes(`${AI_GATEWAY}.operator`);
    if (operator || keys.includes(`${AI_GATEWAY}.viewer`)) readable.push(project);
    if (operator) operable.push(project);
  }
  return { readable, operable };
}
