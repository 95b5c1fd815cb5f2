import { IsOptional } from 'class-validator';
import { IsAliasList, IsBudget, IsBudgetDuration, IsExpiry, IsLimit, IsMetadata, IsProjectSlug } from './key-fields';

export class CreateKeyDto {
  @IsProjectSlug()
  project!: string;

  /** Empty or absent: every alias. */
  @IsOptional()
  @IsAliasList()
  aliases?: string[];

  @IsOptional()
  @IsExpiry()
  expires_at?: string | null;

  @IsOptional()
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
