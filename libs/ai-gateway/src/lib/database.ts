import { VirtualKey } from './keys/virtual-key.entity';
import { CreateVirtualKeys1763800000100 } from './migrations/1763800000100-CreateVirtualKeys';
import { AddVirtualKeySpend1763800000200 } from './migrations/1763800000200-AddVirtualKeySpend';
import { CreateSpendDaily1763800000300 } from './migrations/1763800000300-CreateSpendDaily';
import { AddSpendDailyEstimates1763800000400 } from './migrations/1763800000400-AddSpendDailyEstimates';
import { CreateStoredResponses1764000000100 } from './migrations/1764000000100-CreateStoredResponses';
import { CreateCallsHourly1764000000200 } from './migrations/1764000000200-CreateCallsHourly';
import { AddControlPlaneProjectIds1764000000300 } from './migrations/1764000000300-AddControlPlaneProjectIds';
import { CreateSpendProjectDaily1764000000400 } from './migrations/1764000000400-CreateSpendProjectDaily';
import { AddVirtualKeyRepository1764000000500 } from './migrations/1764000000500-AddVirtualKeyRepository';
import { AddSpendDailyCacheHits1764100000100 } from './migrations/1764100000100-AddSpendDailyCacheHits';
import { AddVirtualKeyAlias1764100000200 } from './migrations/1764100000200-AddVirtualKeyAlias';
import { CreateStoredResponseEvents1764100000300 } from './migrations/1764100000300-CreateStoredResponseEvents';
import { IndexAnsweredResponses1764100000400 } from './migrations/1764100000400-IndexAnsweredResponses';
import { StoredResponse } from './stored-responses/stored-response.entity';
import { CreateOwnedResources1764000000600 } from './migrations/1764000000600-CreateOwnedResources';
import { OwnedResource } from './resources/owned-resource.entity';
import { IndexOwnedUpstreamIds1764200000100 } from './migrations/1764200000100-IndexOwnedUpstreamIds';
import { MoneyAsNumeric1764300000100 } from './migrations/1764300000100-MoneyAsNumeric';
import { AddVirtualKeyGuardrails1764400000100 } from './migrations/1764400000100-AddVirtualKeyGuardrails';
import { CreateBudgetSpend1764600350100 } from './migrations/1764600350100-CreateBudgetSpend';
import { AddVirtualKeyModelBudgets1764600350200 } from './migrations/1764600350200-AddVirtualKeyModelBudgets';
import { AddVirtualKeySoftBudget1764600350300 } from './migrations/1764600350300-AddVirtualKeySoftBudget';
import { AddVirtualKeyUserId1764600350600 } from './migrations/1764600350600-AddVirtualKeyUserId';
import { AddVirtualKeyModelLimits1764600350700 } from './migrations/1764600350700-AddVirtualKeyModelLimits';
import { AddCallRecordOutcomes1764600350800 } from './migrations/1764600350800-AddCallRecordOutcomes';
import { AddProjectGuardrails1764600350900 } from './migrations/1764600350900-AddProjectGuardrails';
import { AddProjectRatesAndModels1764600351000 } from './migrations/1764600351000-AddProjectRatesAndModels';
import { AddCallRecordContent1764600351100 } from './migrations/1764600351100-AddCallRecordContent';
import { CreateBudgetLimits1764600350400 } from './migrations/1764600350400-CreateBudgetLimits';
import { CreateCallRecords1764600350500 } from './migrations/1764600350500-CreateCallRecords';
import { BudgetLimit } from './budgets/budget-limit.entity';

/** For the gateway service's DatabaseModule.forRoot. */
export const AI_GATEWAY_ENTITIES = [VirtualKey, StoredResponse, OwnedResource, BudgetLimit];
export const AI_GATEWAY_MIGRATIONS = [
  CreateVirtualKeys1763800000100,
  AddVirtualKeySpend1763800000200,
  CreateSpendDaily1763800000300,
  AddSpendDailyEstimates1763800000400,
  CreateStoredResponses1764000000100,
  CreateCallsHourly1764000000200,
  AddControlPlaneProjectIds1764000000300,
  CreateSpendProjectDaily1764000000400,
  AddVirtualKeyRepository1764000000500,
  AddSpendDailyCacheHits1764100000100,
  AddVirtualKeyAlias1764100000200,
  CreateStoredResponseEvents1764100000300,
  IndexAnsweredResponses1764100000400,
  CreateOwnedResources1764000000600,
  IndexOwnedUpstreamIds1764200000100,
  MoneyAsNumeric1764300000100,
  AddVirtualKeyGuardrails1764400000100,
  CreateBudgetSpend1764600350100,
  AddVirtualKeyModelBudgets1764600350200,
  AddVirtualKeySoftBudget1764600350300,
  CreateBudgetLimits1764600350400,
  CreateCallRecords1764600350500,
  AddVirtualKeyUserId1764600350600,
  AddVirtualKeyModelLimits1764600350700,
  AddCallRecordOutcomes1764600350800,
  AddProjectGuardrails1764600350900,
  AddProjectRatesAndModels1764600351000,
  AddCallRecordContent1764600351100,
];
