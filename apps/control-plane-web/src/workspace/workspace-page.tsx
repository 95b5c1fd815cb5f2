import { Alert, Button, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { answer } from '../api/api-client';
import { useApi } from '../api/api-context';
import { fieldError, formError } from '../common/errors';
import { useWorkspaceSettings } from '../shell/shell-queries';
import { TimeZonePicker } from './time-zone-picker';

export function WorkspacePage() {
  const api = useApi();
  const client = useQueryClient();
  const settings = useWorkspaceSettings();
  const [name, setName] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  useEffect(() => {
    if (settings.data) {
      setName(settings.data.name);
      setTimezone(settings.data.timezone);
    }
  }, [settings.data]);
  const save = useMutation({
    mutationFn: (body: { name: string; timezone: string }) => answer(api.PUT('/api/v1/workspace/settings', { body })),
    onSuccess: (saved) => client.setQueryData(['workspace'], saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ name, timezone });
  };
  const other = formError(save.error, ['name', 'timezone']);
  return (
    <Stack>
      <Title order={2}>Workspace</Title>
      <form onSubmit={submit} aria-label="Workspace settings">
        <Stack maw={420}>
          <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={fieldError(save.error, 'name')} required />
          <TimeZonePicker value={timezone} onChange={setTimezone} error={fieldError(save.error, 'timezone')} />
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
