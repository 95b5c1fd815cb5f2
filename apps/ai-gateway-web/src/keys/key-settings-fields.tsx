import { NumberInput, SimpleGrid, TextInput } from '@mantine/core';
import { fieldError } from '@arbor/ui-shell';
import type { KeySettings } from '../api/gateway-api';

/** The settings of a key as its form holds them: text as typed, numbers or empty (none). */
export interface KeySettingsDraft {
  keyAlias: string;
  aliases: string;
  maxBudget: number | string;
  budgetDuration: string;
  rpmLimit: number | string;
  tpmLimit: number | string;
}

export const EMPTY_SETTINGS: KeySettingsDraft = { keyAlias: '', aliases: '', maxBudget: '', budgetDuration: '', rpmLimit: '', tpmLimit: '' };

export const SETTINGS_FIELDS = ['key_alias', 'aliases', 'max_budget', 'budget_duration', 'rpm_limit', 'tpm_limit'] as const;

const numberOrNull = (value: number | string): number | null => (value === '' ? null : Number(value));

/** The draft as the admin API takes it: an empty field clears the setting. */
export function settingsOf(draft: KeySettingsDraft): KeySettings {
  return {
    key_alias: draft.keyAlias.trim() || null,
    aliases: draft.aliases
      .split(',')
      .map((alias) => alias.trim())
      .filter(Boolean),
    max_budget: numberOrNull(draft.maxBudget),
    budget_duration: draft.budgetDuration.trim() || null,
    rpm_limit: numberOrNull(draft.rpmLimit),
    tpm_limit: numberOrNull(draft.tpmLimit),
  };
}

export function KeySettingsFields({ draft, onChange, error }: { draft: KeySettingsDraft; onChange(draft: KeySettingsDraft): void; error: unknown }) {
  const set = (field: keyof KeySettingsDraft) => (value: number | string) => onChange({ ...draft, [field]: value });
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }}>
      <TextInput label="Name" value={draft.keyAlias} onChange={(event) => set('keyAlias')(event.currentTarget.value)} error={fieldError(error, 'key_alias')} />
      <TextInput
        label="Aliases"
        description="Comma-separated; empty: every alias"
        value={draft.aliases}
        onChange={(event) => set('aliases')(event.currentTarget.value)}
        error={fieldError(error, 'aliases')}
      />
      <NumberInput label="Budget (USD)" min={0} decimalScale={2} value={draft.maxBudget} onChange={set('maxBudget')} error={fieldError(error, 'max_budget')} />
      <TextInput
        label="Budget period"
        description="e.g. 30d; empty: for the key's life"
        value={draft.budgetDuration}
        onChange={(event) => set('budgetDuration')(event.currentTarget.value)}
        error={fieldError(error, 'budget_duration')}
      />
      <NumberInput label="Requests per minute" min={1} allowDecimal={false} value={draft.rpmLimit} onChange={set('rpmLimit')} error={fieldError(error, 'rpm_limit')} />
      <NumberInput label="Tokens per minute" min={1} allowDecimal={false} value={draft.tpmLimit} onChange={set('tpmLimit')} error={fieldError(error, 'tpm_limit')} />
    </SimpleGrid>
  );
}
