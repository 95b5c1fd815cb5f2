import { IsOptional } from 'class-validator';
import { IsBudget, IsBudgetDuration, IsExpiry, IsLimit } from './key-fields';

/** The nullable settings a key is created with and updated by: absent keeps, `null` clears. */
export class KeySettingsDto {
  @IsOptional()
  @IsExpiry()
  expires_at?: string | null;

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
