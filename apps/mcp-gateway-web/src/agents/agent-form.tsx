import { ActionIcon, Button, Checkbox, Group, Paper, Select, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { fieldError, FormErrorAlert } from '@arbor/ui-shell';
import { useState, type FormEvent } from 'react';
import type { Agent, AgentAuthType, AgentBody } from '../api/mcp-gateway-api';
import { useSaveAgent } from './agents-queries';

const FIELDS = ['name', 'url', 'project', 'description', 'auth'] as const;

const AUTH_TYPES: { value: AgentAuthType; label: string }[] = [
  { value: 'none', label: 'None' },
  { value: 'static', label: 'Static headers' },
  { value: 'token_exchange', label: "Token exchange (the caller's identity)" },
  { value: 'oauth', label: 'OAuth (each person their own account)' },
];

interface AuthDraft {
  type: AgentAuthType;
  headers: { name: string; value: string }[];
  audience: string;
  scope: string;
  clientId: string;
  clientSecret: string;
  clientCredentials: boolean;
}

function authDraftOf(agent: Agent | null): AuthDraft {
  const auth = agent?.auth;
  return {
    type: auth?.type ?? 'none',
    headers: [],
    audience: auth?.audience ?? '',
    scope: auth?.scope ?? '',
    clientId: auth?.client_id ?? '',
    clientSecret: '',
    clientCredentials: auth?.client_credentials ?? false,
  };
}

/** The auth as the API takes it; an OAuth client secret left empty keeps the stored one (the API's rule for the same client). */
function authBody(draft: AuthDraft): NonNullable<AgentBody['auth']> {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  switch (draft.type) {
    case 'static':
      return { type: 'static', headers: Object.fromEntries(draft.headers.filter((header) => header.name.trim() !== '').map((header) => [header.name.trim(), header.value])) };
    case 'token_exchange':
      return { type: 'token_exchange', audience: draft.audience.trim(), scope: optional(draft.scope) };
    case 'oauth':
      return {
        type: 'oauth',
        client_id: optional(draft.clientId),
        client_secret: draft.clientSecret || undefined,
        scope: optional(draft.scope),
        client_credentials: draft.clientCredentials,
      };
    default:
      return { type: 'none' };
  }
}

/**
 * Registers or changes an A2A agent: the gateway reads its card before it keeps anything, so a
 * card it cannot read (or an address the guard refuses) is shown beside the address. Secrets
 * (header values, an OAuth client secret) are write-only: the form shows what is kept, never the
 * values, and changing the auth replaces it (the API's rule), so the values are typed again.
 */
export function AgentForm({ agent, projects, onDone }: { agent: Agent | null; projects: string[]; onDone(): void }) {
  const [name, setName] = useState(agent?.name ?? '');
  const [url, setUrl] = useState(agent?.url ?? '');
  const [project, setProject] = useState<string | null>(agent?.project ?? projects[0] ?? null);
  const [description, setDescription] = useState(agent?.description ?? '');
  const [replaceAuth, setReplaceAuth] = useState(agent === null);
  const [auth, setAuth] = useState<AuthDraft>(() => authDraftOf(agent));
  const save = useSaveAgent();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: AgentBody = {
      ...(agent ? {} : { name: name.trim() }),
      ...(agent === null || url.trim() !== agent.url ? { url: url.trim() } : {}),
      ...(project && project !== agent?.project ? { project } : {}),
      description: description.trim() || (agent ? null : undefined),
      ...(replaceAuth ? { auth: authBody(auth) } : {}),
    };
    save.mutate({ name: agent?.name ?? null, body }, { onSuccess: onDone });
  };
  const change = (next: Partial<AuthDraft>) => setAuth({ ...auth, ...next });
  const setHeader = (index: number, next: Partial<AuthDraft['headers'][number]>) =>
    change({ headers: auth.headers.map((header, at) => (at === index ? { ...header, ...next } : header)) });
  const kept = agent && (agent.auth.header_names.length > 0 ? `headers ${agent.auth.header_names.join(', ')}` : agent.auth.has_client_secret ? 'a client secret' : null);
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label={agent ? `Settings of ${agent.name}` : 'New agent'}>
      <Stack>
        <Title order={3} size="h4">
          {agent ? `Edit ${agent.name}` : 'Register an agent'}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput label="Name" required disabled={agent !== null} value={name} onChange={(event) => setName(event.currentTarget.value)} error={fieldError(save.error, 'name')} />
          <TextInput
            label="Address"
            required
            placeholder="https://helpdesk.example.com"
            description="The agent's base URL or its card's URL"
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
            error={fieldError(save.error, 'url')}
          />
          <Select label="Project" required data={projects} value={project} onChange={setProject} allowDeselect={false} error={fieldError(save.error, 'project')} />
        </SimpleGrid>
        <Textarea
          label="Description"
          description="Shown beside the card's own; the agent's tool description begins with it"
          autosize
          minRows={1}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
          error={fieldError(save.error, 'description')}
        />
        <Stack gap="xs">
          <Text fw={600} size="sm">
            How the gateway authenticates to the agent
          </Text>
          <Text size="sm">
            Callers' own credentials never reach the agent. Secrets are stored encrypted and never shown again.
            {agent && ` It uses: ${AUTH_TYPES.find((type) => type.value === agent.auth.type)?.label ?? agent.auth.type}${kept ? ` (${kept})` : ''}.`}
          </Text>
          {agent && !replaceAuth ? (
            <Button variant="default" w="fit-content" onClick={() => setReplaceAuth(true)}>
              Replace the auth
            </Button>
          ) : (
            <>
              <Select label="Auth" data={AUTH_TYPES} value={auth.type} onChange={(value) => value && change({ type: value as AgentAuthType })} allowDeselect={false} w={360} />
              {auth.type === 'static' && (
                <>
                  {auth.headers.map((header, index) => (
                    <Group key={index} align="end">
                      <TextInput label="Header name" value={header.name} onChange={(event) => setHeader(index, { name: event.currentTarget.value })} />
                      <TextInput
                        label="Header value"
                        type="password"
                        autoComplete="off"
                        value={header.value}
                        onChange={(event) => setHeader(index, { value: event.currentTarget.value })}
                      />
                      <ActionIcon
                        variant="default"
                        size="lg"
                        aria-label={`Remove header ${index + 1}`}
                        onClick={() => change({ headers: auth.headers.filter((_, at) => at !== index) })}
                      >
                        ×
                      </ActionIcon>
                    </Group>
                  ))}
                  <Button variant="default" w="fit-content" onClick={() => change({ headers: [...auth.headers, { name: '', value: '' }] })}>
                    Add a header
                  </Button>
                </>
              )}
              {auth.type === 'token_exchange' && (
                <Group align="end">
                  <TextInput label="Audience" required value={auth.audience} onChange={(event) => change({ audience: event.currentTarget.value })} />
                  <TextInput label="Scope" value={auth.scope} onChange={(event) => change({ scope: event.currentTarget.value })} />
                </Group>
              )}
              {auth.type === 'oauth' && (
                <Group align="end">
                  <TextInput
                    label="Client id"
                    description="Empty: the gateway registers a client"
                    value={auth.clientId}
                    onChange={(event) => change({ clientId: event.currentTarget.value })}
                  />
                  <TextInput
                    label="Client secret"
                    type="password"
                    autoComplete="off"
                    description={agent?.auth.has_client_secret ? 'Empty: the stored one is kept' : undefined}
                    value={auth.clientSecret}
                    onChange={(event) => change({ clientSecret: event.currentTarget.value })}
                  />
                  <TextInput label="Scope" value={auth.scope} onChange={(event) => change({ scope: event.currentTarget.value })} />
                  <Checkbox
                    label="Machine callers use the client-credentials grant"
                    checked={auth.clientCredentials}
                    onChange={(event) => change({ clientCredentials: event.currentTarget.checked })}
                  />
                </Group>
              )}
            </>
          )}
          {fieldError(save.error, 'auth') && (
            <Text c="red" size="sm">
              {fieldError(save.error, 'auth')}
            </Text>
          )}
        </Stack>
        <FormErrorAlert error={save.error} fields={FIELDS} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            {agent ? 'Save' : 'Register'}
          </Button>
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
