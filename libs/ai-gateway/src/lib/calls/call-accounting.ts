import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { Budgets, endUserOf, tagsOf } from '../budgets/budgets';
import { WorstCaseCost } from '../budgets/worst-case-cost';
import { GatewayClock } from '../gateway-clock';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway-settings';
import { GatewayCaller } from '../keys/key-verifier';
import { KeyLimiter } from '../limits/key-limiter';
import { type ProjectRateAdmission, ProjectRates } from '../limits/project-rates';
import { BudgetLimits } from '../budgets/budget-limits';
import { teamModelAccessDenied } from '../gateway-errors';
import { aliasAllowedBy } from '../keys/key-verifier';
import { type CallRecordContent, SpendRecorder } from '../spend/spend-recorder';
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
  /** A failed call's error code (as its client got it). */
  errorCode?: string | null;
  retries?: number;
  fallbacks?: number;
  /** What a stage keeps of the call's messages and answer for its record (only when the config turns content on). */
  content?: CallRecordContent | undefined;
}

/** A call refused before it was admitted (a guardrail, a budget, a rate limit), for the call log. */
export interface RefusedCall {
  alias: string;
  status: number;
  errorCode: string | null;
  callId?: string;
  /** From the request to the refusal. */
  latencyMs: number;
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
    private readonly projectLimits: BudgetLimits,
    private readonly projectRates: ProjectRates,
    private readonly clock: GatewayClock,
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
  ) {
    this.callRecords = settings.litellm.spendLogs?.enabled ?? true;
  }

  /** Every call is appended to call_records (/spend/logs) unless general_settings.disable_spend_logs. */
  private readonly callRecords: boolean;

  /**
   * A call refused before admission — by a guardrail, a budget level, the key's limits — goes to
   * the call log (call_records) with its status and error code; it counts nowhere else (no spend,
   * no call of the key's). Off when general_settings.disable_spend_logs.
   */
  refused(caller: GatewayCaller, body: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined, call: RefusedCall): void {
    if (!this.callRecords) return;
    const key = caller.kind === 'virtual' ? caller.key : undefined;
    const now = this.clock.now();
    this.spend.recordCallRecord({
      id: call.callId,
      startedAt: now - call.latencyMs,
      keyId: key?.id ?? null,
      project: key?.project ?? null,
      endUser: endUserOf(body, headers) ?? null,
      tags: tagsOf(body, headers),
      alias: call.alias,
      deploymentId: null,
      provider: null,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
      status: call.status,
      latencyMs: Math.max(0, call.latencyMs),
      cacheHit: false,
      errorCode: call.errorCode,
      retries: 0,
      fallbacks: 0,
    });
  }

  /** `alias`: the alias the call names (the key's model_max_budget); `body` (as parsed) and `headers`: where its end user is named. */
  async admit(caller: GatewayCaller, alias?: string, body?: Record<string, unknown>, headers?: IncomingHttpHeaders): Promise<CallAdmission> {
    // The key's project's own rules (LiteLLM's team models, rpm_limit, tpm_limit): one lookup when any project has a row.
    const team = caller.kind === 'virtual' && this.projectLimits.any('project') ? this.projectLimits.of('project', caller.key.project) : undefined;
    if (team && alias !== undefined && team.models.length > 0 && !aliasAllowedBy(team.models, alias)) throw teamModelAccessDenied(alias);
    const leveled = this.budgets.apply(caller, body, headers);
    // What the call may cost at most, held on every budget that applies until it settles.
    const reserve = leveled || (caller.kind === 'virtual' && caller.key.maxBudget !== null) ? this.worstCase.of(alias, body, headers) : 0;
    // The levels beside the key's own first; a refusal by the key's limits gives back what they hold.
    const budget = leveled ? await this.budgets.admit(caller, alias, body, headers, reserve) : undefined;
    let key;
    let rates: ProjectRateAdmission | undefined;
    try {
      if (team && caller.kind === 'virtual' && (team.rpmLimit !== null || team.tpmLimit !== null)) rates = await this.projectRates.admit(caller.key.project, team);
      // Throws the OpenAI-format refusal (429 / 400 budget_exceeded) before any upstream call.
      key = caller.kind === 'virtual' ? await this.limiter.admit(caller.key, reserve, alias) : undefined;
    } catch (error) {
      budget?.release();
      rates?.refund();
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
        if (rates) {
          if (call.abandoned) rates.refund();
          else rates.settle(totalTokens(call.usage));
        }
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
            errorCode: call.failed ? (call.errorCode ?? null) : null,
            retries: call.retries ?? 0,
            fallbacks: call.fallbacks ?? 0,
            content: call.content,
          });
        }
        return key ? key.settle({ totalTokens: totalTokens(call.usage), cost: call.cost }) : {};
      },
    };
  }
}
