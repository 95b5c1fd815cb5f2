import { IsOptional } from 'class-validator';
import { Omittable } from '@arbor/platform';
import { IsAliasList, IsBudget, IsBudgetDuration, IsExpiry, IsLimit, IsMetadata, IsProjectSlug } from './key-fields';

/** Fields left out stay as they are; `null` clears the nullable ones. */
export class UpdateKeyDto {
  @Omittable()
  @IsProjectSlug()
  project?: string;

  @Omittable()
  @IsAliasList()
  aliases?: string[];

  @IsOptional()
  @IsExpiry()
  expires_at?: string | null;

  @Omittable()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @IsOptional()
  @IsBudget()
  max_budget?: number | null;

  @IsOptional()
  @IsBudgetDuration()
  budget_duration?: string | null;

  @IsOptional()
  @IsLimit()
  rpm_limit?: number | null;

  @IsOptional()
  @IsLimit()
  tpm_limit?: number | null;

  @IsOptional()
  @IsLimit()
  max_parallel_requests?: number | null;
}
