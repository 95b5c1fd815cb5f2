import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { DeploymentCooldowns } from '../deployment-cooldowns';
import { DeploymentRouter } from '../deployment-router';
import { ModelPrices } from '../pricing/model-prices';

const PER_MILLION = 1_000_000;

/** A deployment's last failure on the replica that answered. */
export class DeploymentFailureResponse {
  @ApiProperty({ type: 'integer', example: 503, description: "The upstream's status." })
  status!: number;

  @ApiProperty({ type: String, nullable: true })
  code!: string | null;

  @ApiProperty()
  message!: string;

  @ApiProperty({ format: 'date-time' })
  at!: string;
}

/** A deployment of an alias as operators look at it: where calls go, what they cost, whether it is in the rotation. */
export class AliasDeploymentResponse {
  @ApiProperty()
  id!: string;

  @ApiProperty({ example: 'openai' })
  provider!: string;

  @ApiProperty({ example: 'gpt-4o-mini', description: "The provider's model name (a wildcard deployment's as configured, e.g. `anthropic/*`)." })
  model!: string;

  @ApiProperty({ type: Number, nullable: true, description: 'List price in USD per million prompt tokens; null when no price is known (its calls cost 0).' })
  input_usd_per_million!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'List price in USD per million completion tokens; null when no price is known.' })
  output_usd_per_million!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  rpm!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  tpm!: number | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: "Until when the router skips it after failures (this replica's view, shared through Redis); null: in the rotation.",
  })
  cooling_down_until!: string | null;

  @ApiProperty({ type: DeploymentFailureResponse, nullable: true, description: 'Its last failure on this replica; null: none since the start.' })
  last_error!: DeploymentFailureResponse | null;
}

export class AliasResponse {
  @ApiProperty({ example: 'gpt-4o-mini' })
  alias!: string;

  @ApiProperty({ type: [AliasDeploymentResponse] })
  deployments!: AliasDeploymentResponse[];
}

/** GET /api/v1/aliases. */
export class AliasListResponse {
  @ApiProperty({ type: [AliasResponse] })
  aliases!: AliasResponse[];
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
