import { Button, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { answer, ConfirmButton, fieldError, FormErrorAlert, notifyFailure, useControlPlaneApi, useFormatInstant } from '@arbor/ui-shell';
import { useProjectMutation, useRepositorySecret } from './project-queries';

/** Write-only: the page says whether a token is set and since when, never what it is. */
export function RepositoryTokenSection({ projectId }: { projectId: string }) {
  const api = useControlPlaneApi();
  const state = useRepositorySecret(projectId);
  const formatInstant = useFormatInstant();
  const [value, setValue] = useState('');
  const path = { params: { path: { id: projectId } } };
  const save = useProjectMutation((token: string) => answer(api.PUT('/api/v1/projects/{id}/repository-secret', { ...path, body: { value: token } })));
  const clear = useProjectMutation(() => answer(api.DELETE('/api/v1/projects/{id}/repository-secret', path)));
  const configured = state.data?.configured === true;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(value, { onSuccess: () => setValue('') });
  };
  return (
    <Stack component="section" aria-label="Repository token">
      <Title order={3}>Repository token</Title>
      <Text data-testid="token-state">{configured ? `A token is set (since ${formatInstant(state.data?.updated_at)}).` : 'No token is set.'}</Text>
      <form onSubmit={submit}>
        <Group align="start">
          <PasswordInput
            label={configured ? 'New token' : 'Token'}
            autoComplete="off"
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            error={fieldError(save.error, 'value')}
            w={320}
            required
          />
          <Button type="submit" mt={25} loading={save.isPending}>
            {configured ? 'Replace token' : 'Set token'}
          </Button>
        </Group>
        <FormErrorAlert error={save.error} fields={['value']} />
      </form>
      {configured && (
        <Group>
          <ConfirmButton
            title="Clear the repository token?"
            message="Products can no longer read the project's repositories with it."
            onConfirm={() => clear.mutate(undefined, { onError: notifyFailure('The token was not cleared') })}
          >
            Clear token
          </ConfirmButton>
        </Group>
      )}
    </Stack>
  );
}
