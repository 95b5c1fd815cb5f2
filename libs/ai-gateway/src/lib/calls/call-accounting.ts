import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { Budgets, endUserOf, tagsOf } from '../budgets/budgets';
import { WorstCaseCost } from '../budgets/worst-case-cost';
import { GatewayClock } from '../gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { GatewayCaller } from '../keys/key-verifier';
import { KeyLimiter } from '../limits/key-limiter';
import { SpendRecorder } from '../spend/spend-recorder';
import { GatewayDeployment } from '../config/gateway-config';
import { CallUsage, totalTokens } from './usage';

/** How a call ended, for limits and spend. */
export interface SettledCall {
  alias: string;
  deployment: GatewayDeployment | undefined;
  usage: CallUsage;
  cost: number;
  /** The call ended in an error (its answer was an error, or no upstream answered). */
  failed?: boolean;
  /** Answered by a stage from an earlier call's answer (the response cache): the deployment that answered it first (it costs nothing now). */
  replayed?: { deploymentId: string; provider: string };
  /** Admitted but never made (a realtime session ended before its next response): frees the slot, records nothing. */
  abandoned?: boolean;
  /** The status the client got, when the route knows it (else 200, or 500 for a failed call). */
  status?: number | undefined;
  /** The call's id (x-arbor-call-id), when the route made one. */
  callId?: string;
}

/** A call let through by the caller's limits; settled exactly once when it ends. */
export interface CallAdmission {
  /** x-ratelimit-* describing the caller's own limits. */
  readonly rateLimitHeaders: Record<string, string>;
  /** Records tokens and spend and frees the call's slot; the caller's spend after it, when it has one. */
  settle(call: SettledCall): { keySpend?: number };
}

/** Budgets, rate limits and spend around each call. */
@Injectable()
export class CallAccounting {
  constructor(
    private readonly limiter: KeyLimiter,
    private readonly spend: SpendRecorder,
    private readonly budgets: Budgets,
    private readonly worstCase: WorstCaseCost,
    private readonly clock: GatewayClock,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.callRecords = settings.litellm.spendLogs?.enabled ?? true;
  }

  /** Every call is appended to call_records (/spend/logs) unless general_settings.disable_spend_logs. */
  private readonly callRecords: boolean;

  /** `alias`: the alias the call names (the key's model_max_budget); `body` (as parsed) and `headers`: where its end user is named. */
  async admit(caller: GatewayCaller, alias?: string, body?: Record<string, unknown>, headers?: IncomingHttpHeaders): Promise<CallAdmission> {
    const leveled = this.budgets.apply(caller, body, headers);
    // What the call may cost at most, held on every budget that applies until it settles.
    const reserve = leveled || (caller.kind === 'virtual' && caller.key.maxBudget !== null) ? this.worstCase.of(alias, body, headers) : 0;
    // The levels beside the key's own first; a refusal by the key's limits gives back what they hold.
    const budget = leveled ? await this.budgets.admit(caller, alias, body, headers, reserve) : undefined;
    let key;
    try {
      // Throws the OpenAI-format refusal (429 / 400 budget_exceeded) before any upstream call.
      key = caller.kind === 'virtual' ? await this.limiter.admit(caller.key, reserve, alias) : undefined;
    } catch (error) {
      budget?.release();
      throw error;
    }
    const keyId = caller.kind === 'virtual' ? caller.key.id : null;
    const project = caller.kind === 'virtual' ? caller.key.project : null;
    const projectId = caller.kind === 'virtual' ? caller.key.projectId : null;
    const startedAt = this.clock.now();
    return {
      rateLimitHeaders: key?.rateLimitHeaders() ?? {},
      settle: (call) => {
        if (project !== null && !call.abandoned) this.spend.recordCall(project, projectId, call.failed === true);
        const servedBy = call.deployment ? { deploymentId: call.deployment.id, provider: call.deployment.provider } : call.replayed;
        if (servedBy && !call.abandoned) {
          this.spend.record({
            keyId,
            project,
            projectId,
            alias: call.alias,
            ...servedBy,
            cacheHit: call.replayed !== undefined,
            promptTokens: call.usage.promptTokens,
            completionTokens: call.usage.completionTokens,
            costUsd: call.cost,
            estimated: call.usage.estimated === true,
          });
        }
        if (budget && !call.abandoned) budget.settle(call.cost);
        if (this.callRecords && !call.abandoned) {
          this.spend.recordCallRecord({
            id: call.callId,
            startedAt,
            keyId,
            project,
            endUser: endUserOf(body, headers) ?? null,
            tags: tagsOf(body, headers),
            alias: call.alias,
            deploymentId: servedBy?.deploymentId ?? null,
            provider: servedBy?.provider ?? null,
            promptTokens: call.usage.promptTokens,
            completionTokens: call.usage.completionTokens,
            costUsd: call.cost,
            status: call.failed ? (call.status ?? 500) : (call.status ?? 200),
            latencyMs: Math.max(0, this.clock.now() - startedAt),
            cacheHit: call.replayed !== undefined,
          });
        }
        return key ? key.settle({ totalTokens: totalTokens(call.usage), cost: call.cost }) : {};
      },
    };
  }
}
