import { VirtualKey } from './keys/virtual-key.entity';
import { CreateVirtualKeys1763800000100 } from './migrations/1763800000100-CreateVirtualKeys';
import { AddVirtualKeySpend1763800000200 } from './migrations/1763800000200-AddVirtualKeySpend';
import { CreateSpendDaily1763800000300 } from './migrations/1763800000300-CreateSpendDaily';
import { AddSpendDailyEstimates1763800000400 } from './migrations/1763800000400-AddSpendDailyEstimates';
import { CreateCallsHourly1763800000500 } from './migrations/1763800000500-CreateCallsHourly';
import { AddControlPlaneProjectIds1763800000600 } from './migrations/1763800000600-AddControlPlaneProjectIds';
import { CreateSpendProjectDaily1763800000700 } from './migrations/1763800000700-CreateSpendProjectDaily';
import { AddVirtualKeyRepository1763800000800 } from './migrations/1763800000800-AddVirtualKeyRepository';

/** For the gateway service's DatabaseModule.forRoot. */
export const AI_GATEWAY_ENTITIES = [VirtualKey];
export const AI_GATEWAY_MIGRATIONS = [
  CreateVirtualKeys1763800000100, AddVirtualKeySpend1763800000200, CreateSpendDaily1763800000300, AddSpendDailyEstimates1763800000400,
  CreateCallsHourly1763800000500,
  AddControlPlaneProjectIds1763800000600,
  CreateSpendProjectDaily1763800000700,
  AddVirtualKeyRepository1763800000800,
];
