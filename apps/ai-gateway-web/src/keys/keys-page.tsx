import { Alert, Badge, Button, Code, Group, Loader, Modal, Paper, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ConfirmButton, FormErrorAlert, NoRoleEmptyState, notifyFailure, useFormatInstant, useFormatMoney, useMe, usePaged } from '@arbor/ui-shell';
import { useGatewayAccess } from '../access/gateway-access';
import type { GatewayKey } from '../api/gateway-api';
import { useCreateKey, useDeleteKey, useKeys, useRotateKey, useSetKeyBlocked, useUpdateKey } from './keys-queries';
import { KeySecretDialog } from './key-secret-dialog';
import { EMPTY_SETTINGS, newKeySettingsOf, SETTINGS_FIELDS, settingsOf, type KeySettingsDraft } from './key-settings';
import { KeySettingsFields } from './key-settings-fields';

/** Virtual keys of the projects the person may see: operators manage them, viewers read them (never a secret). */
export function KeysPage() {
  const me = useMe().data;
  const access = useGatewayAccess();
  const keys = useKeys((access?.readable.length ?? 0) > 0);
  const [secret, setSecret] = useState<string | null>(null);
  const formatMoney = useFormatMoney();
  const formatInstant = useFormatInstant();
  const { items, pager } = usePaged(keys.data ?? []);
  if (!me || !access) return null;
  return (
    <Stack>
      <Title order={2}>Keys</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see its keys and spend" change="manage them" />
      ) : (
        <>
          {access.operable.length > 0 ? (
            <CreateKeyForm projects={access.operable} defaultProject={me.default_project?.slug} onCreated={setSecret} />
          ) : (
            <Text c="dimmed">You may read the keys of {access.readable.join(', ')}; making and changing keys needs ai-gateway.operator there.</Text>
          )}
          {keys.isPending && <Loader aria-label="Loading keys" />}
          {keys.isError && (
            <Alert color="red" title="The keys could not be loaded">
              {keys.error.message}
            </Alert>
          )}
          {keys.data?.length === 0 && (
            <Alert color="gray" title="No keys yet">
              {access.operable.length > 0 ? 'Make the first one above.' : 'An operator of the project makes them.'}
            </Alert>
          )}
          {items.length > 0 && (
            <Table.ScrollContainer minWidth={900}>
              <Table striped aria-label="Keys">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Key</Table.Th>
                    <Table.Th>Project</Table.Th>
                    <Table.Th>Aliases</Table.Th>
                    <Table.Th>Spend / budget</Table.Th>
                    <Table.Th>Limits</Table.Th>
                    <Table.Th>Expires</Table.Th>
                    <Table.Th>State</Table.Th>
                    <Table.Th>Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((key) => (
                    <Table.Tr key={key.id} data-key-id={key.id}>
                      <Table.Td>
                        <Text fw={500}>{key.key_alias ?? 'unnamed'}</Text>
                        <Code>{key.key_hint}</Code>
                      </Table.Td>
                      <Table.Td>
                        {key.project}
                        {key.repository && <Text size="sm">repository {key.repository}</Text>}
                      </Table.Td>
                      <Table.Td>{key.aliases.length > 0 ? key.aliases.join(', ') : 'every alias'}</Table.Td>
                      <Table.Td>
                        {formatMoney(key.spend, 'USD')} / {key.max_budget === null ? 'no budget' : formatMoney(key.max_budget, 'USD')}
                        {key.budget_duration && <Text size="sm">per {key.budget_duration}</Text>}
                      </Table.Td>
                      <Table.Td>
                        {key.rpm_limit ?? '∞'} rpm · {key.tpm_limit ?? '∞'} tpm
                      </Table.Td>
                      <Table.Td>{key.expires_at ? formatInstant(key.expires_at) : 'never'}</Table.Td>
                      <Table.Td>
                        <Badge color={key.blocked ? 'red.9' : 'teal.9'}>{key.blocked ? 'blocked' : 'active'}</Badge>
                      </Table.Td>
                      <Table.Td>{access.operable.includes(key.project) ? <KeyActions gatewayKey={key} onRotated={setSecret} /> : <Text size="sm">read only</Text>}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {pager}
        </>
      )}
      <KeySecretDialog secret={secret} onClose={() => setSecret(null)} />
    </Stack>
  );
}

function CreateKeyForm({ projects, defaultProject, onCreated }: { projects: string[]; defaultProject: string | undefined; onCreated(secret: string): void }) {
  const [project, setProject] = useState<string | null>(defaultProject && projects.includes(defaultProject) ? defaultProject : (projects[0] ?? null));
  const [draft, setDraft] = useState<KeySettingsDraft>(EMPTY_SETTINGS);
  const create = useCreateKey();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!project) return;
    create.mutate(
      { project, ...newKeySettingsOf(draft) },
      {
        onSuccess: (created) => {
          setDraft(EMPTY_SETTINGS);
          if (created?.key) onCreated(created.key);
        },
      },
    );
  };
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label="New key">
      <Stack>
        <Title order={3} size="h4">
          New key
        </Title>
        <Select label="Project" data={projects} value={project} onChange={setProject} allowDeselect={false} w={240} />
        <KeySettingsFields draft={draft} onChange={setDraft} error={create.error} />
        <FormErrorAlert error={create.error} fields={['project', ...SETTINGS_FIELDS]} />
        <Group>
          <Button type="submit" loading={create.isPending} disabled={!project}>
            Make key
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function draftOf(key: GatewayKey): KeySettingsDraft {
  return {
    keyAlias: key.key_alias ?? '',
    aliases: key.aliases.join(', '),
    maxBudget: key.max_budget ?? '',
    budgetDuration: key.budget_duration ?? '',
    rpmLimit: key.rpm_limit ?? '',
    tpmLimit: key.tpm_limit ?? '',
  };
}

function KeyActions({ gatewayKey, onRotated }: { gatewayKey: GatewayKey; onRotated(secret: string): void }) {
  const [editing, setEditing] = useState<KeySettingsDraft | null>(null);
  const update = useUpdateKey();
  const rotate = useRotateKey();
  const setBlocked = useSetKeyBlocked();
  const remove = useDeleteKey();
  const name = gatewayKey.key_alias ?? gatewayKey.key_hint;
  const save = (event: FormEvent) => {
    event.preventDefault();
    if (editing) update.mutate({ id: gatewayKey.id, settings: settingsOf(editing) }, { onSuccess: () => setEditing(null) });
  };
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="default" onClick={() => setEditing(draftOf(gatewayKey))} aria-label={`Edit ${name}`}>
        Edit
      </Button>
      <Button
        size="xs"
        variant="default"
        loading={setBlocked.isPending}
        aria-label={`${gatewayKey.blocked ? 'Unblock' : 'Block'} ${name}`}
        onClick={() => setBlocked.mutate({ id: gatewayKey.id, blocked: !gatewayKey.blocked }, { onError: notifyFailure('The key was not changed') })}
      >
        {gatewayKey.blocked ? 'Unblock' : 'Block'}
      </Button>
      <ConfirmButton
        title={`Rotate ${name}?`}
        message="The key stops working at once; its new secret is shown once."
        loading={rotate.isPending}
        aria-label={`Rotate ${name}`}
        onConfirm={() =>
          rotate.mutate(gatewayKey.id, {
            onSuccess: (rotated) => rotated?.key && onRotated(rotated.key),
            onError: notifyFailure('The key was not rotated'),
          })
        }
      >
        Rotate
      </ConfirmButton>
      <ConfirmButton
        title={`Delete ${name}?`}
        message="Calls with this key are refused from now on. Its spend stays in the usage figures."
        loading={remove.isPending}
        aria-label={`Delete ${name}`}
        onConfirm={() => remove.mutate(gatewayKey.id, { onError: notifyFailure('The key was not deleted') })}
      >
        Delete
      </ConfirmButton>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={`Edit ${name}`} centered lockScroll={false} size="lg">
        {editing && (
          <form onSubmit={save} aria-label={`Settings of ${name}`}>
            <Stack>
              <KeySettingsFields draft={editing} onChange={setEditing} error={update.error} />
              <FormErrorAlert error={update.error} fields={SETTINGS_FIELDS} />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setEditing(null)}>
                  Cancel
                </Button>
                <Button type="submit" loading={update.isPending}>
                  Save
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>
    </Group>
  );
}
