import { NumberInput, SimpleGrid, TextInput } from '@mantine/core';
import { fieldError } from '@arbor/ui-shell';
import type { KeySettingsDraft } from './key-settings';

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
