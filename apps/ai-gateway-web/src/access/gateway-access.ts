import { useProductAccess, type ProductAccess } from '@arbor/ui-shell';

export const AI_GATEWAY = 'ai-gateway';

/** What the signed-in person may do in the AI gateway (keys and spend: viewers read, operators manage); undefined while loading. */
export function useGatewayAccess(): ProductAccess | undefined {
  return useProductAccess(AI_GATEWAY);
}
