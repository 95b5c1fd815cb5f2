import { productAccess, type Me, type ProductAccess } from '@arbor/ui-shell';

export const AI_GATEWAY = 'ai-gateway';

/** What the signed-in person may do in the AI gateway (keys and spend: viewers read, operators manage). */
export function gatewayAccess(permissions: Me['permissions']): ProductAccess {
  return productAccess(permissions, AI_GATEWAY);
}
