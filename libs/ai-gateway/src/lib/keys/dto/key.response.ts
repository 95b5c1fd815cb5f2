import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { VirtualKey } from '../virtual-key.entity';
import type { ModelBudget } from './key-fields';

/** One alias's budget on a key (LiteLLM's model_max_budget entry), as stored. */
export class ModelBudgetResponse implements ModelBudget {
  @ApiProperty({ minimum: 0, example: 10, description: 'USD per budget period.' })
  max_budget!: number;

  @ApiProperty({ type: String, nullable: true, example: '1d', description: 'null: a lifetime budget for the alias.' })
  budget_duration!: string | null;
}

/** A key as the admin API shows it: never the key, except `key` once on create and rotate. */
@ApiExtraModels(ModelBudgetResponse)
export class KeyResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiPropertyOptional({ example: 'sk-arbor-…', description: 'The key itself: only in the answers to create and rotate, never again.' })
  key?: string;

  @ApiProperty({ example: 'sk-arbor-…a1b2', description: 'Enough of the key to tell it apart.' })
  key_hint!: string;

  @ApiProperty({ example: 'alpha' })
  project!: string;

  @ApiProperty({ type: String, nullable: true, example: 'github.com/acme/payments', description: 'The one repository of the project the key is for; null: the whole project.' })
  repository!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'search-backend', description: "LiteLLM's key_alias; null: none." })
  key_alias!: string | null;

  @ApiProperty({ type: [String], description: 'Aliases the key may call; empty: every alias.' })
  aliases!: string[];

  @ApiProperty({ type: [String], description: 'Guardrails that run on every call of the key.' })
  guardrails!: string[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at!: string | null;

  @ApiProperty()
  blocked!: boolean;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata!: Record<string, unknown>;

  @ApiProperty({ type: Number, nullable: true, description: 'USD per budget period; null: none.' })
  max_budget!: number | null;

  @ApiProperty({ type: String, nullable: true, example: '30d' })
  budget_duration!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  rpm_limit!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  tpm_limit!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  max_parallel_requests!: number | null;

  @ApiProperty({ type: Number, nullable: true, description: 'USD in the budget period that raises an alert; null: none.' })
  soft_budget!: number | null;

  @ApiProperty({ type: String, nullable: true, description: "The person the key is for (a control-plane user id); null: nobody's." })
  user_id!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: "Requests per minute per alias (LiteLLM's model_rpm_limit); {}: none." })
  model_rpm_limit!: Record<string, number>;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' }, description: "Tokens per minute per alias (LiteLLM's model_tpm_limit); {}: none." })
  model_tpm_limit!: Record<string, number>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(ModelBudgetResponse) },
    description: "A budget per alias (LiteLLM's model_max_budget); {}: none.",
  })
  model_max_budget!: Record<string, ModelBudget>;

  @ApiProperty({ description: 'Lifetime spend in USD as written so far (at most a second behind the calls); budget state: GET /api/v1/keys/{id}/spend.' })
  spend!: number;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  updated_at!: string;
}

/** GET /api/v1/keys. */
export class KeyListResponse {
  @ApiProperty({ type: [KeyResponse], description: 'Oldest first.' })
  keys!: KeyResponse[];
}

export function keyResponse(row: VirtualKey, key?: string): KeyResponse {
  return {
    id: row.id,
    ...(key !== undefined ? { key } : {}),
    key_hint: row.keyHint,
    project: row.project,
    repository: row.repository,
    key_alias: row.keyAlias,
    aliases: row.aliases,
    guardrails: row.guardrails,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    blocked: row.blocked,
    metadata: row.metadata,
    max_budget: row.maxBudget,
    budget_duration: row.budgetDuration,
    rpm_limit: row.rpmLimit,
    tpm_limit: row.tpmLimit,
    max_parallel_requests: row.maxParallelRequests,
    soft_budget: row.softBudget,
    user_id: row.userId,
    model_rpm_limit: row.modelRpmLimit,
    model_tpm_limit: row.modelTpmLimit,
    model_max_budget: row.modelMaxBudget,
    spend: row.spend,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
