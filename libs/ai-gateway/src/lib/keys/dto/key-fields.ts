import { applyDecorators } from '@nestjs/common';
import { PROJECT_SLUG } from '@arbor/contract';
import { ArrayMaxSize, IsArray, IsInt, IsISO8601, IsNotEmpty, IsNumber, IsObject, IsString, Matches, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { excerpt } from '@arbor/platform';

// The control plane's project slugs, as the contract states them (and the table checks).
export { PROJECT_SLUG };

/** LiteLLM's budget durations: 30s, 30m, 30h, 30d, 1mo. */
export const BUDGET_DURATION = /^[1-9][0-9]{0,5}(s|m|h|d|mo)$/;

export const IsProjectSlug = () =>
  applyDecorators(IsString(), Matches(PROJECT_SLUG, { message: '$property must be a project slug: 1 to 64 lower-case letters, digits and hyphens' }));

/** Names of the config's guardrails (checked against it by the service). */
export const IsGuardrailList = () => applyDecorators(IsArray(), ArrayMaxSize(100), IsString({ each: true }), IsNotEmpty({ each: true }), MaxLength(200, { each: true }));

export const IsAliasList = () => applyDecorators(IsArray(), ArrayMaxSize(1000), IsString({ each: true }), IsNotEmpty({ each: true }), MaxLength(200, { each: true }));

export const IsExpiry = () => applyDecorators(IsISO8601({ strict: true }, { message: '$property must be an ISO 8601 date-time' }));

export const IsMetadata = () => applyDecorators(IsObject());

export const IsBudget = () => applyDecorators(IsNumber({ allowNaN: false, allowInfinity: false }), Min(0));

export const IsBudgetDuration = () => applyDecorators(IsString(), Matches(BUDGET_DURATION, { message: '$property must look like 30s, 30m, 30h, 30d or 1mo' }));

/** LiteLLM's key_alias: printable, unique among keys. */
export const IsKeyAlias = () => applyDecorators(IsString(), IsNotEmpty(), MaxLength(200));

export const IsLimit = () => applyDecorators(IsInt(), Min(1), Max(2_147_483_647));

/** One alias's budget on a key (LiteLLM's model_max_budget entry), as stored. */
export interface ModelBudget {
  max_budget: number;
  /** null: a lifetime budget for the alias. */
  budget_duration: string | null;
}

const MAX_MODEL_BUDGETS = 1000;

/**
 * LiteLLM's model_max_budget: `{alias: {budget_limit, time_period}}` (LiteLLM's BudgetConfig also
 * reads `max_budget` and `budget_duration`; budget_limit may be a decimal string), read as stored.
 * Undefined: not a valid one (IsModelBudgets says why).
 */
export function modelBudgets(value: unknown): Record<string, ModelBudget> | undefined {
  return modelBudgetsProblem(value) === undefined ? readModelBudgets(value as Record<string, Record<string, unknown>>) : undefined;
}

function readModelBudgets(value: Record<string, Record<string, unknown>>): Record<string, ModelBudget> {
  const read: Record<string, ModelBudget> = {};
  for (const [alias, entry] of Object.entries(value)) {
    const limit = entry['budget_limit'] ?? entry['max_budget'];
    const duration = entry['time_period'] ?? entry['budget_duration'];
    read[alias] = { max_budget: Number(limit), budget_duration: typeof duration === 'string' ? duration : null };
  }
  return read;
}

function modelBudgetsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of model names to {budget_limit, time_period}';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_MODEL_BUDGETS) return `may name at most ${MAX_MODEL_BUDGETS} models`;
  for (const [alias, entry] of entries) {
    const at = `"${excerpt(alias)}"`;
    if (alias === '' || alias.length > 200) return 'model names must be 1 to 200 characters';
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `${at} must be {budget_limit, time_period}`;
    const fields = entry as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((field) => !['budget_limit', 'max_budget', 'time_period', 'budget_duration'].includes(field));
    if (unknown.length > 0) return `${at} has fields not served: ${unknown.map((field) => excerpt(field)).join(', ')} (give budget_limit and time_period)`;
    const limit = fields['budget_limit'] ?? fields['max_budget'];
    const amount = typeof limit === 'string' && /^\d+(\.\d+)?(e-?\d+)?$/i.test(limit) ? Number(limit) : limit;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return `${at}.budget_limit must be a number of USD, 0 or more`;
    const duration = fields['time_period'] ?? fields['budget_duration'];
    if (duration !== undefined && duration !== null && (typeof duration !== 'string' || !BUDGET_DURATION.test(duration)))
      return `${at}.time_period must look like 30s, 30m, 30h, 1d, 7d, 30d or 1mo`;
  }
  return undefined;
}

export const IsModelBudgets = () =>
  ValidateBy({
    name: 'isModelBudgets',
    validator: {
      validate: (value: unknown) => modelBudgetsProblem(value) === undefined,
      defaultMessage: (args) => `$property: ${modelBudgetsProblem(args?.value) ?? 'invalid'}`,
    },
  });

/** LiteLLM's model_rpm_limit / model_tpm_limit: a whole number per alias, at most as many aliases as model_max_budget. */
function modelLimitsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of model names to whole numbers';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_MODEL_BUDGETS) return `may name at most ${MAX_MODEL_BUDGETS} models`;
  for (const [alias, limit] of entries) {
    if (alias === '' || alias.length > 200) return 'model names must be 1 to 200 characters';
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 2_147_483_647) return `"${excerpt(alias)}" must be a whole number of at least 1`;
  }
  return undefined;
}

export const IsModelLimits = () =>
  ValidateBy({
    name: 'isModelLimits',
    validator: {
      validate: (value: unknown) => modelLimitsProblem(value) === undefined,
      defaultMessage: (args) => `$property: ${modelLimitsProblem(args?.value) ?? 'invalid'}`,
    },
  });

/** A person's control-plane user id (LiteLLM's user_id): one word of at most 128 characters. */
export const IsUserId = () => applyDecorators(IsString(), MaxLength(128), Matches(/^\S+$/, { message: '$property must be a user id: no spaces' }));
