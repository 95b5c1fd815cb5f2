import { Alert, Button, Group, Stack, Table, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { answer, ConfirmButton, fieldError, formError, FormErrorAlert, notifyFailure, useControlPlaneApi, usePaged } from '@arbor/ui-shell';
import { useProjectMutation, useRepositories, type Repository } from './project-queries';
import { parseRepositoryUrl } from './repository-url';

export function RepositoriesSection({ projectId }: { projectId: string }) {
  const repositories = useRepositories(projectId);
  const { items, pager } = usePaged(repositories.data ?? []);
  return (
    <Stack component="section" aria-label="Repositories">
      <Title order={3}>Repositories</Title>
      {repositories.isError && <Alert color="red">{repositories.error.message}</Alert>}
      <Table aria-label="Repositories of the project">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Repository</Table.Th>
            <Table.Th>Branch</Table.Th>
            <Table.Th>Installation id</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((repository) => (
            <RepositoryRow key={repository.id} projectId={projectId} repository={repository} />
          ))}
        </Table.Tbody>
      </Table>
      {pager}
      <AddRepositoryForm projectId={projectId} />
    </Stack>
  );
}

function RepositoryRow({ projectId, repository }: { projectId: string; repository: Repository }) {
  const api = useControlPlaneApi();
  const [branch, setBranch] = useState(repository.branch);
  const [installationId, setInstallationId] = useState(String(repository.installation_id ?? ''));
  const path = { params: { path: { id: projectId, repoId: repository.id } } };
  const update = useProjectMutation((body: { branch: string; installation_id: string }) => answer(api.PATCH('/api/v1/projects/{id}/repositories/{repoId}', { ...path, body })));
  const remove = useProjectMutation(() => answer(api.DELETE('/api/v1/projects/{id}/repositories/{repoId}', path)));
  const changed = branch !== repository.branch || installationId !== String(repository.installation_id ?? '');
  return (
    <Table.Tr>
      <Table.Td>{repository.full_name}</Table.Td>
      <Table.Td>
        <TextInput
          aria-label={`Branch of ${repository.full_name}`}
          size="xs"
          value={branch}
          onChange={(event) => setBranch(event.currentTarget.value)}
          error={fieldError(update.error, 'branch')}
        />
      </Table.Td>
      <Table.Td>
        <TextInput
          aria-label={`Installation id of ${repository.full_name}`}
          size="xs"
          value={installationId}
          onChange={(event) => setInstallationId(event.currentTarget.value)}
          error={fieldError(update.error, 'installation_id')}
        />
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Button size="xs" disabled={!changed} loading={update.isPending} onClick={() => update.mutate({ branch, installation_id: installationId })}>
            Save
          </Button>
          <ConfirmButton
            title={`Remove ${repository.full_name}?`}
            message="The project's products hear that it is gone."
            onConfirm={() => remove.mutate(undefined, { onError: notifyFailure('The repository was not removed') })}
            aria-label={`Remove ${repository.full_name}`}
          >
            Remove
          </ConfirmButton>
        </Group>
        {formError(update.error, ['branch', 'installation_id']) && <Alert color="red">{formError(update.error, ['branch', 'installation_id'])}</Alert>}
      </Table.Td>
    </Table.Tr>
  );
}

const EMPTY = { source_host: 'github.com', owner: '', name: '', branch: 'main', installation_id: '' };

function AddRepositoryForm({ projectId }: { projectId: string }) {
  const api = useControlPlaneApi();
  const [fields, setFields] = useState(EMPTY);
  const add = useProjectMutation((body: typeof EMPTY) => answer(api.POST('/api/v1/projects/{id}/repositories', { params: { path: { id: projectId } }, body })));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(fields, {
      onSuccess: () => {
        setFields(EMPTY);
        setUrl('');
      },
    });
  };
  const input = (field: keyof typeof EMPTY, label: string) => (
    <TextInput
      label={label}
      value={fields[field]}
      onChange={(event) => setFields({ ...fields, [field]: event.currentTarget.value })}
      error={fieldError(add.error, field)}
      required
    />
  );
  const [url, setUrl] = useState('');
  // Judged once the person leaves the field, not at each keystroke of a URL being typed.
  const [urlDone, setUrlDone] = useState(false);
  const location = parseRepositoryUrl(url);
  const fillFrom = (text: string) => {
    setUrl(text);
    const parsed = parseRepositoryUrl(text);
    if (parsed) setFields({ ...fields, source_host: parsed.host, owner: parsed.owner, name: parsed.name });
  };
  return (
    <form onSubmit={submit} aria-label="Add a repository">
      <TextInput
        label="Repository URL"
        description="Paste the repository's address (https://…, git@…) to fill in host, owner and name."
        placeholder="https://github.com/acme/gamma-service"
        value={url}
        onChange={(event) => fillFrom(event.currentTarget.value)}
        onFocus={() => setUrlDone(false)}
        onBlur={() => setUrlDone(true)}
        error={urlDone && url.trim() !== '' && !location ? 'Not a repository URL: expected host/owner/name, https://… or git@host:owner/name.git' : undefined}
        maw={560}
        mb="xs"
      />
      <Group align="start">
        {input('source_host', 'Source host')}
        {input('owner', 'Owner')}
        {input('name', 'Repository name')}
        {input('branch', 'Branch')}
        {input('installation_id', 'Installation id')}
        <Button type="submit" mt={25} loading={add.isPending}>
          Add repository
        </Button>
      </Group>
      <FormErrorAlert error={add.error} fields={Object.keys(EMPTY)} />
    </form>
  );
}
