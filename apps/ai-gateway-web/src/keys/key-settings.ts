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

/** The draft of a new key: an empty name is left out (a key has none unless named), the rest as settingsOf. */
export function newKeySettingsOf(draft: KeySettingsDraft): KeySettings {
  const { key_alias, ...settings } = settingsOf(draft);
  return key_alias === null ? settings : { key_alias, ...settings };
}
