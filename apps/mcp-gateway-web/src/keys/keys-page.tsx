import { Alert, Button, Code, Group, Loader, Paper, Select, Stack, Table, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { ConfirmButton, fieldError, FormErrorAlert, NoRoleEmptyState, notifyFailure, SecretShownOnceDialog, useFormatInstant, useMe, usePaged } from '@arbor/ui-shell';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMcpAccess } from '../access/mcp-access';
import type { CatalogueItem, VirtualServer } from '../api/mcp-gateway-api';
import { toolNamesOf } from '../servers/exposed-tools';
import { useCatalogue, useServers } from '../servers/servers-queries';
import { useCreateMcpKey, useMcpKeys, useRevokeMcpKey } from './keys-queries';

/** Gateway API keys for MCP clients that cannot sign in (agents, CI), by project: made with the secret shown once, revoked. */
export function KeysPage() {
  const me = useMe().data;
  const access = useMcpAccess();
  const keys = useMcpKeys((access?.readable.length ?? 0) > 0);
  const servers = useServers((access?.operable.length ?? 0) > 0);
  const catalogue = useCatalogue((access?.operable.length ?? 0) > 0);
  const revoke = useRevokeMcpKey();
  const formatInstant = useFormatInstant();
  const [secret, setSecret] = useState<string | null>(null);
  const { items, pager } = usePaged(keys.data ?? []);
  if (!me || !access) return null;
  const preferred = me.default_project?.slug;
  return (
    <Stack>
      <Title order={2}>API keys</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="see the gateway API keys of its MCP clients" change="make and revoke them" />
      ) : (
        <>
          {access.operable.length > 0 ? (
            <CreateKeyForm
              projects={access.operable}
              defaultProject={preferred && access.operable.includes(preferred) ? preferred : (access.operable[0] ?? null)}
              servers={servers.data ?? []}
              catalogue={catalogue.data ?? []}
              onCreated={setSecret}
            />
          ) : (
            <Text c="dimmed">You may read the API keys of {access.readable.join(', ')}; making and revoking them needs mcp-gateway.operator there.</Text>
          )}
          {keys.isPending && <Loader aria-label="Loading keys" />}
          {keys.isError && (
            <Alert color="red" title="The keys could not be loaded">
              {keys.error.message}
            </Alert>
          )}
          {keys.data?.length === 0 && (
            <Alert color="gray" title="No keys yet">
              {access.operable.length > 0
                ? "Make the first one above: a client sends it as a bearer token to the project's virtual servers."
                : 'An operator of the project makes them.'}
            </Alert>
          )}
          {items.length > 0 && (
            <Table striped aria-label="API keys">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Project</Table.Th>
                  <Table.Th>Tools</Table.Th>
                  <Table.Th>Made</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((key) => {
                  const name = key.name || key.key_hint;
                  return (
                    <Table.Tr key={key.id} data-key-id={key.id}>
                      <Table.Td>
                        <Text fw={500}>{key.name || 'unnamed'}</Text>
                        <Code>{key.key_hint}</Code>
                      </Table.Td>
                      <Table.Td>{key.project}</Table.Td>
                      <Table.Td>{key.tools === null ? 'every tool' : key.tools.join(', ')}</Table.Td>
                      <Table.Td>{formatInstant(key.created_at)}</Table.Td>
                      <Table.Td>{key.expires_at ? formatInstant(key.expires_at) : 'never'}</Table.Td>
                      <Table.Td>
                        {access.operable.includes(key.project) ? (
                          <ConfirmButton
                            title={`Revoke ${name}?`}
                            message="Clients using it are refused from now on."
                            loading={revoke.isPending}
                            aria-label={`Revoke ${name}`}
                            onConfirm={() => revoke.mutate(key.id, { onError: notifyFailure('The key was not revoked') })}
                          >
                            Revoke
                          </ConfirmButton>
                        ) : (
                          <Text size="sm">read only</Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          )}
          {pager}
        </>
      )}
      <SecretShownOnceDialog secret={secret} onClose={() => setSecret(null)} title="Your new key">
        <Text size="sm">
          An MCP client sends it as <Code>Authorization: Bearer …</Code> to the project's virtual servers; the <Link to="/virtual-servers">Virtual servers</Link> page has each
          client's config.
        </Text>
      </SecretShownOnceDialog>
    </Stack>
  );
}

function CreateKeyForm(props: { projects: string[]; defaultProject: string | null; servers: VirtualServer[]; catalogue: CatalogueItem[]; onCreated(secret: string): void }) {
  const { projects, onCreated } = props;
  const [project, setProject] = useState<string | null>(props.defaultProject);
  const [name, setName] = useState('');
  const [tools, setTools] = useState<string[]>([]);
  const create = useCreateMcpKey();
  // The names the project's servers expose; a prefixed `<upstream>__<tool>` may be typed too.
  const offered = toolNamesOf(
    props.servers.filter((server) => server.project === project),
    props.catalogue,
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!project) return;
    create.mutate(
      { project, ...(name.trim() ? { name: name.trim() } : {}), ...(tools.length > 0 ? { tools } : {}) },
      {
        onSuccess: (created) => {
          setName('');
          setTools([]);
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
        <Group align="end">
          <Select label="Project" data={projects} value={project} onChange={setProject} allowDeselect={false} w={240} error={fieldError(create.error, 'project')} />
          <TextInput label="Name" placeholder="CI agent" value={name} onChange={(event) => setName(event.currentTarget.value)} error={fieldError(create.error, 'name')} />
          <TagsInput
            label="Limited to the tools"
            description="None chosen: every tool of the project's servers"
            placeholder="every tool"
            data={offered}
            value={tools}
            onChange={setTools}
            clearable
            error={fieldError(create.error, 'tools')}
            w={360}
          />
          <Button type="submit" loading={create.isPending} disabled={!project}>
            Make key
          </Button>
        </Group>
        <FormErrorAlert error={create.error} fields={['project', 'name', 'expires_at', 'tools']} />
      </Stack>
    </Paper>
  );
}
