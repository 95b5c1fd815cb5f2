import { applyDecorators } from '@nestjs/common';
import { PROJECT_SLUG } from '@arbor/contract';
import { ArrayMaxSize, IsArray, IsInt, IsISO8601, IsNotEmpty, IsNumber, IsObject, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

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
