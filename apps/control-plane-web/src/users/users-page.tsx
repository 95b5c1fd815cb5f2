import { Alert, Anchor, Badge, Button, Group, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { answer, ConfirmButton, type ControlPlaneSchemas, fieldError, FormErrorAlert, notifyFailure, useControlPlaneApi, useFormatInstant, useMe, usePaged } from '@arbor/ui-shell';

type User = ControlPlaneSchemas['UserResponse'];

/** The users matching `search` (all without it), read a page of 500 at a time (the table pages what it shows). */
export function useUsers(search = '') {
  const api = useControlPlaneApi();
  return useQuery({
    queryKey: ['users', search],
    queryFn: async () => {
      const users: User[] = [];
      let after: string | null = null;
      do {
        const query = { limit: 500, ...(search ? { q: search } : {}), ...(after ? { after_id: after } : {}) };
        const page: ControlPlaneSchemas['UserListResponse'] = await answer(api.GET('/api/v1/users', { params: { query } }));
        users.push(...page.users);
        after = page.next_after_id;
      } while (after);
      return users;
    },
  });
}

function useUserMutation<V>(mutationFn: (variables: V) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => client.invalidateQueries({ queryKey: ['users'] }) });
}

export function UsersPage() {
  const [search, setSearch] = useState('');
  const users = useUsers(search);
  const { items, pager } = usePaged(users.data ?? []);
  return (
    <Stack>
      <Title order={2}>Users</Title>
      <CreateUserForm />
      <TextInput label="Search" placeholder="Email or name" value={search} onChange={(event) => setSearch(event.currentTarget.value)} w={320} />
      {users.isError && <Alert color="red">{users.error.message}</Alert>}
      <Table striped aria-label="Users">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Email</Table.Th>
            <Table.Th>Since</Table.Th>
            <Table.Th>Administrator</Table.Th>
            <Table.Th w={110}>Account</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((user) => (
            <UserRow key={user.id} user={user} />
          ))}
        </Table.Tbody>
      </Table>
      {pager}
    </Stack>
  );
}

function UserRow({ user }: { user: User }) {
  const api = useControlPlaneApi();
  const me = useMe().data;
  const formatInstant = useFormatInstant();
  const update = useUserMutation((body: ControlPlaneSchemas['UpdateUserDto']) => answer(api.PATCH('/api/v1/users/{id}', { params: { path: { id: user.id } }, body })));
  // The API refuses to let an administrator lock themselves out; the page does not offer it.
  const self = me?.id === user.id;
  const label = user.display_name || user.email || user.id;
  const sourceId = useId();
  return (
    <Table.Tr>
      <Table.Td>{user.display_name}</Table.Td>
      <Table.Td>{user.email ?? '—'}</Table.Td>
      <Table.Td>{formatInstant(user.created_at)}</Table.Td>
      <Table.Td>
        {user.identity_provider_admin ? (
          // The realm role lives in the identity provider: nothing here can take it away.
          <Stack gap={2}>
            <Group gap="xs" wrap="nowrap">
              <Switch aria-label={`${label} is an administrator (from identity provider role)`} aria-describedby={sourceId} checked disabled />
              {/* In the text colour: a disabled switch alone reads as "off". */}
              <Text size="sm" aria-hidden>
                Administrator (from identity provider role)
              </Text>
            </Group>
            <Text id={sourceId} size="xs" c="dimmed" maw={280}>
              The realm role control-plane-admin makes them an administrator; change it in the identity provider.
            </Text>
          </Stack>
        ) : (
          <Switch
            aria-label={`${label} is an administrator`}
            checked={user.admin}
            disabled={self || update.isPending}
            onChange={(event) => update.mutate({ admin: event.currentTarget.checked }, { onError: notifyFailure('Not changed') })}
          />
        )}
      </Table.Td>
      <Table.Td>{user.disabled ? <Badge color="gray.7">disabled</Badge> : <Badge color="teal.9">active</Badge>}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Anchor component={Link} to={`/permissions/${user.id}`} size="sm">
            Permissions
          </Anchor>
          {!self &&
            (user.disabled ? (
              <Button size="xs" variant="default" onClick={() => update.mutate({ disabled: false }, { onError: notifyFailure('Not enabled') })}>
                Enable
              </Button>
            ) : (
              <ConfirmButton
                title={`Disable ${label}?`}
                message="They keep their grants but get no permissions until enabled again; every product refuses them."
                onConfirm={() => update.mutate({ disabled: true }, { onError: notifyFailure('Not disabled') })}
                aria-label={`Disable ${label}`}
              >
                Disable
              </ConfirmButton>
            ))}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

function CreateUserForm() {
  const api = useControlPlaneApi();
  const [email, setEmail] = useState('');
  const [displayName, setDisplayName] = useState('');
  const create = useUserMutation((body: ControlPlaneSchemas['CreateUserDto']) => answer(api.POST('/api/v1/users', { body })));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { email, admin: false, ...(displayName ? { display_name: displayName } : {}) },
      {
        onSuccess: () => {
          setEmail('');
          setDisplayName('');
        },
      },
    );
  };
  return (
    <form onSubmit={submit} aria-label="Pre-create a user">
      <Group align="start">
        <TextInput label="Email" type="email" value={email} onChange={(event) => setEmail(event.currentTarget.value)} error={fieldError(create.error, 'email')} required />
        <TextInput label="Display name" value={displayName} onChange={(event) => setDisplayName(event.currentTarget.value)} error={fieldError(create.error, 'display_name')} />
        <Button type="submit" mt={25} loading={create.isPending}>
          Pre-create user
        </Button>
      </Group>
      <FormErrorAlert error={create.error} fields={['email', 'display_name']} />
    </form>
  );
}
