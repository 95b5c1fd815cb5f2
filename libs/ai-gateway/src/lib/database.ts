import { VirtualKey } from './keys/virtual-key.entity';
import { CreateVirtualKeys1763800000100 } from './migrations/1763800000100-CreateVirtualKeys';

/** For the gateway service's DatabaseModule.forRoot. */
export const AI_GATEWAY_ENTITIES = [VirtualKey];
export const AI_GATEWAY_MIGRATIONS = [CreateVirtualKeys1763800000100];
