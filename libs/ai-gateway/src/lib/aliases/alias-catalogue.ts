import { Injectable } from '@nestjs/common';
import { DeploymentCooldowns } from '../deployment-cooldowns';
import { DeploymentRouter } from '../deployment-router';
import { ModelPrices } from '../pricing/model-prices';

const PER_MILLION = 1_000_000;

/** A deployment of an alias as operators look at it: where calls go, what they cost, whether it is in the rotation. */
export interface AliasDeploymentResponse {
  id: string;
  provider: string;
  /** The provider's model name (a wildcard deployment's as configured, e.g. `anthropic/*`). */
  model: string;
  /** List price in USD per million prompt and completion tokens; null when no price is known (its calls cost 0). */
  input_usd_per_million: number | null;
  output_usd_per_million: number | null;
  rpm: number | null;
  tpm: number | null;
  /** Until when the router skips it after failures (this replica's view, shared through Redis); null: in the rotation. */
  cooling_down_until: string | null;
  /** Its last failure on this replica (the upstream's status, code and message, and when); null: none since the start. */
  last_error: { status: number; code: string | null; message: string; at: string } | null;
}

export interface AliasResponse {
  alias: string;
  deployments: AliasDeploymentResponse[];
}

/** The configured aliases with their deployments, prices and health, read from the router's own state. */
@Injectable()
export class AliasCatalogue {
  constructor(
    private readonly router: DeploymentRouter,
    private readonly prices: ModelPrices,
    private readonly cooldowns: DeploymentCooldowns,
  ) {}

  list(): AliasResponse[] {
    return this.router
      .aliases()
      .sort((a, b) => a.localeCompare(b))
      .map((alias) => ({
        alias,
        deployments: this.router.deploymentsOf(alias).map((deployment): AliasDeploymentResponse => {
          const price = this.prices.listPrice(deployment);
          const coolingUntil = this.cooldowns.coolingUntil(deployment.id);
          const lastError = this.cooldowns.lastError(deployment.id);
          return {
            id: deployment.id,
            provider: deployment.provider,
            model: deployment.model,
            input_usd_per_million: price ? price.inputCostPerToken * PER_MILLION : null,
            output_usd_per_million: price ? price.outputCostPerToken * PER_MILLION : null,
            rpm: deployment.rpm ?? null,
            tpm: deployment.tpm ?? null,
            cooling_down_until: coolingUntil === undefined ? null : new Date(coolingUntil).toISOString(),
            last_error: lastError ? { status: lastError.status, code: lastError.code, message: lastError.message, at: new Date(lastError.at).toISOString() } : null,
          };
        }),
      }));
  }
}
