import { ApiProperty } from '@nestjs/swagger';

/** Calls, tokens and cost of a slice of spend (UTC days, as spend_daily counts them). */
export class SpendTotals {
  @ApiProperty({ type: 'integer' })
  requests!: number;

  @ApiProperty({ type: 'integer' })
  prompt_tokens!: number;

  @ApiProperty({ type: 'integer' })
  completion_tokens!: number;

  @ApiProperty({ description: 'USD.' })
  cost_usd!: number;

  @ApiProperty({ type: 'integer', description: 'Of requests: calls whose usage the gateway counted itself (the client hung up mid-stream).' })
  estimated_requests!: number;

  @ApiProperty({ description: 'Of cost_usd: the cost of those calls.' })
  estimated_cost_usd!: number;

  @ApiProperty({ type: 'integer', description: 'Of requests: calls answered from the response cache (they cost nothing).' })
  cache_hit_requests!: number;
}

export class SpendByAlias extends SpendTotals {
  @ApiProperty()
  alias!: string;
}

export class SpendByDeployment extends SpendTotals {
  @ApiProperty()
  deployment_id!: string;

  @ApiProperty()
  provider!: string;
}

export class SpendByDay extends SpendTotals {
  @ApiProperty({ format: 'date' })
  day!: string;
}

export class SpendByKey extends SpendTotals {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null: the master key.' })
  key_id!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'null: the master key, or a key since deleted.' })
  key_hint!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The key's name (key_alias); null: none, the master key, or a key since deleted." })
  key_alias!: string | null;
}

export class SpendByRepository extends SpendTotals {
  @ApiProperty({ type: String, nullable: true, description: 'The repository its keys are scoped to; null: keys of the whole project (and the master key).' })
  repository!: string | null;
}

export class SpendByPerson extends SpendTotals {
  @ApiProperty({ type: String, nullable: true, description: 'The person its keys are for; null: keys made for nobody (and the master key).' })
  user_id!: string | null;
}

/** Calls of a project's keys in one UTC day, answered or failed (refused before any upstream call: not counted). */
export class CallsOfDay {
  @ApiProperty({ format: 'date' })
  day!: string;

  @ApiProperty({ type: 'integer' })
  calls!: number;

  @ApiProperty({ type: 'integer' })
  errors!: number;
}

export class SpendBreakdown {
  @ApiProperty({ type: String, format: 'date', nullable: true })
  from!: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true })
  to!: string | null;

  @ApiProperty({ type: SpendTotals })
  totals!: SpendTotals;

  @ApiProperty({ type: [SpendByAlias] })
  by_alias!: SpendByAlias[];

  @ApiProperty({ type: [SpendByDeployment] })
  by_deployment!: SpendByDeployment[];

  @ApiProperty({ type: [SpendByDay] })
  by_day!: SpendByDay[];
}

/** A key's budget as it stands. */
export class KeyBudgetState {
  @ApiProperty({ type: Number, nullable: true })
  max_budget!: number | null;

  @ApiProperty({ type: String, nullable: true })
  budget_duration!: string | null;

  @ApiProperty({ description: "Spend counted against max_budget: the current period's, or the lifetime's without a duration." })
  spend!: number;

  @ApiProperty({ type: Number, nullable: true })
  remaining!: number | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the current period ends; null without a duration.' })
  reset_at!: string | null;
}

/** GET /api/v1/keys/{id}/spend. */
export class KeySpendReport extends SpendBreakdown {
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  @ApiProperty()
  project!: string;

  @ApiProperty({ description: 'Lifetime spend in USD.' })
  spend!: number;

  @ApiProperty({ type: KeyBudgetState })
  budget!: KeyBudgetState;
}

/** GET /api/v1/spend: a project's spend, by day, key, alias, deployment, repository and person. */
export class ProjectSpendReport extends SpendBreakdown {
  @ApiProperty()
  project!: string;

  @ApiProperty({ type: [SpendByKey] })
  by_key!: SpendByKey[];

  @ApiProperty({ type: [SpendByRepository] })
  by_repository!: SpendByRepository[];

  @ApiProperty({ type: [SpendByPerson] })
  by_person!: SpendByPerson[];

  @ApiProperty({ type: [CallsOfDay], description: "Calls of the project's keys by UTC day, answered or failed." })
  calls_by_day!: CallsOfDay[];
}
