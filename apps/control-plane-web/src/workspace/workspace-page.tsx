import { Alert, Button, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { answer, fieldError, formatMoney, formError, useControlPlaneApi, useWorkspaceSettings } from '@arbor/ui-shell';
import { TimeZonePicker } from './time-zone-picker';

/** Two amounts as a locale writes them, to show what a tag does before it is saved (an unknown tag: the browser's way). */
function moneyExample(locale: string): string {
  const tag = locale.trim() || undefined;
  return `${formatMoney(1234.5, 'USD', tag)} and ${formatMoney(0.0013, 'USD', tag)}`;
}

export function WorkspacePage() {
  const api = useControlPlaneApi();
  const client = useQueryClient();
  const settings = useWorkspaceSettings();
  const [name, setName] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  const [locale, setLocale] = useState('');
  useEffect(() => {
    if (settings.data) {
      setName(settings.data.name);
      setTimezone(settings.data.timezone);
      setLocale(settings.data.locale ?? '');
    }
  }, [settings.data]);
  const save = useMutation({
    mutationFn: (body: { name: string; timezone: string; locale: string | null }) => answer(api.PUT('/api/v1/workspace/settings', { body })),
    onSuccess: (saved) => client.setQueryData(['workspace'], saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ name, timezone, locale: locale.trim() || null });
  };
  const other = formError(save.error, ['name', 'timezone', 'locale']);
  return (
    <Stack>
      <Title order={2}>Workspace</Title>
      <form onSubmit={submit} aria-label="Workspace settings">
        <Stack maw={420}>
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={fieldError(save.error, 'name')} required />
          <TimeZonePicker value={timezone} onChange={setTimezone} error={fieldError(save.error, 'timezone')} />
          <TextInput
            label="Locale"
            description={`How numbers, money and dates are written, as a language tag (en-US, de-DE, fr); empty: each person's browser language. For example ${moneyExample(locale)}.`}
            placeholder="Each person's browser language"
            value={locale}
            onChange={(event) => setLocale(event.currentTarget.value)}
            error={fieldError(save.error, 'locale')}
          />
          {other && <Alert color="red">{other}</Alert>}
          {save.isSuccess && <Alert color="green">Saved. Every product UI shows times in {save.data.timezone}.</Alert>}
          <Button type="submit" loading={save.isPending} w="fit-content">
            Save settings
          </Button>
        </Stack>
      </form>
    </Stack>
  );
}
