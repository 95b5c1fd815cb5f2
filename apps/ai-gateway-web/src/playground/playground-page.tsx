import { Alert, Button, Code, Group, Loader, Paper, PasswordInput, Select, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useRef, useState, type FormEvent } from 'react';
import { FormErrorAlert, NoRoleEmptyState, useFormatInstant, useFormatMoney, useMe } from '@arbor/ui-shell';
import { useGatewayAccess } from '../access/gateway-access';
import { useCreateKey } from '../keys/keys-queries';
import type { ChatTurn, ChatUsage } from './chat-stream';
import { useChatStream, useKeyModels, type PlaygroundKey } from './playground-queries';

const PLAYGROUND_KEY_LIFETIME_MS = 60 * 60 * 1000;

/**
 * A chat with one of the gateway's aliases, streamed, with the x-arbor-* headers and the cost of
 * each answer. The gateway never gives a key's secret back, so the person pastes one, or (as an
 * operator) makes a key that expires in an hour; either stays in this page's memory only.
 */
export function PlaygroundPage() {
  const me = useMe().data;
  const access = useGatewayAccess();
  const [key, setKey] = useState<PlaygroundKey | null>(null);
  if (!me || !access) return null;
  return (
    <Stack>
      <Title order={2}>Playground</Title>
      {access.readable.length === 0 ? (
        <NoRoleEmptyState read="paste one of its keys here and chat" change="make a key here" />
      ) : key ? (
        <>
          <Group>
            <Text>
              Calling with <Code>{key.label}</Code>
            </Text>
            <Button size="xs" variant="default" onClick={() => setKey(null)}>
              Use another key
            </Button>
          </Group>
          <Chat key={key.id} gatewayKey={key} />
        </>
      ) : (
        <KeyChoice operable={access.operable} defaultProject={me.default_project?.slug} onChosen={setKey} />
      )}
    </Stack>
  );
}

function KeyChoice({ operable, defaultProject, onChosen }: { operable: string[]; defaultProject: string | undefined; onChosen(key: PlaygroundKey): void }) {
  const [pasted, setPasted] = useState('');
  const [project, setProject] = useState<string | null>(defaultProject && operable.includes(defaultProject) ? defaultProject : (operable[0] ?? null));
  const create = useCreateKey();
  const formatInstant = useFormatInstant();
  const usePasted = (event: FormEvent) => {
    event.preventDefault();
    const secret = pasted.trim();
    if (secret) onChosen({ id: crypto.randomUUID(), secret, label: `${secret.slice(0, 9)}…${secret.slice(-4)}` });
  };
  const makeKey = (event: FormEvent) => {
    event.preventDefault();
    if (!project) return;
    const expiresAt = new Date(Date.now() + PLAYGROUND_KEY_LIFETIME_MS).toISOString();
    create.mutate(
      { project, key_alias: 'playground', expires_at: expiresAt },
      { onSuccess: (made) => made?.key && onChosen({ id: made.id, secret: made.key, label: `${made.key_hint} of ${made.project}, expires ${formatInstant(expiresAt)}` }) },
    );
  };
  return (
    <Stack>
      <Text>The gateway shows a key's secret only once, when it is made. Paste one of your keys, or make a key for this playground that expires in an hour.</Text>
      <Paper withBorder p="md" component="form" onSubmit={usePasted} aria-label="Paste a key">
        <Group align="end">
          <PasswordInput label="Key" placeholder="sk-arbor-…" value={pasted} onChange={(event) => setPasted(event.currentTarget.value)} autoComplete="off" w={420} />
          <Button type="submit" disabled={pasted.trim() === ''}>
            Use this key
          </Button>
        </Group>
      </Paper>
      {operable.length > 0 && (
        <Paper withBorder p="md" component="form" onSubmit={makeKey} aria-label="Make a playground key">
          <Group align="end">
            <Select label="Project" data={operable} value={project} onChange={setProject} allowDeselect={false} w={240} />
            <Button type="submit" loading={create.isPending} disabled={!project}>
              Make a one-hour key
            </Button>
          </Group>
          <FormErrorAlert error={create.error} fields={[]} />
        </Paper>
      )}
    </Stack>
  );
}

function Chat({ gatewayKey }: { gatewayKey: PlaygroundKey }) {
  const models = useKeyModels(gatewayKey);
  const chat = useChatStream(gatewayKey);
  const [alias, setAlias] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [streaming, setStreaming] = useState('');
  const [headers, setHeaders] = useState<[string, string][] | null>(null);
  const abort = useRef<AbortController | null>(null);
  const chosen = alias ?? models.data?.[0] ?? null;

  const send = (event: FormEvent) => {
    event.preventDefault();
    const content = draft.trim();
    if (!chosen || !content) return;
    const asked: ChatTurn[] = [...turns, { role: 'user', content }];
    setTurns(asked);
    setDraft('');
    setStreaming('');
    setHeaders(null);
    abort.current = new AbortController();
    let answer = '';
    chat.mutate(
      {
        alias: chosen,
        turns: asked,
        signal: abort.current.signal,
        listener: {
          onHeaders: setHeaders,
          onText: (text) => {
            answer += text;
            setStreaming(answer);
          },
        },
      },
      {
        onSettled: () => {
          if (answer) setTurns([...asked, { role: 'assistant', content: answer }]);
          setStreaming('');
        },
      },
    );
  };

  if (models.isPending) return <Loader aria-label="Loading the key's models" />;
  if (models.isError)
    return (
      <Alert color="red" title="The gateway refused this key">
        {models.error.message}
      </Alert>
    );
  if (models.data.length === 0)
    return (
      <Alert color="gray" title="This key may call no alias">
        An operator of its project can give it aliases on the Keys page.
      </Alert>
    );
  return (
    <Stack>
      <Select label="Alias" data={models.data} value={chosen} onChange={setAlias} allowDeselect={false} w={320} />
      <Stack gap="xs" aria-label="Conversation" role="log" aria-live="polite">
        {turns.map((turn, index) => (
          <Turn key={index} turn={turn} />
        ))}
        {chat.isPending && <Turn turn={{ role: 'assistant', content: streaming || '…' }} streaming />}
      </Stack>
      {chat.isError && (
        <Alert color="red" title="The call failed">
          {chat.error.message}
        </Alert>
      )}
      <form onSubmit={send} aria-label="Message">
        <Stack>
          <Textarea label="Message" autosize minRows={2} value={draft} onChange={(event) => setDraft(event.currentTarget.value)} />
          <Group>
            <Button type="submit" loading={chat.isPending} disabled={!draft.trim()}>
              Send
            </Button>
            {chat.isPending && (
              <Button variant="default" onClick={() => abort.current?.abort()}>
                Stop
              </Button>
            )}
          </Group>
        </Stack>
      </form>
      {headers && <CallFacts headers={headers} usage={chat.isSuccess ? chat.data : undefined} />}
    </Stack>
  );
}

function Turn({ turn, streaming = false }: { turn: ChatTurn; streaming?: boolean }) {
  return (
    <Paper withBorder p="sm" data-role={turn.role} data-streaming={streaming || undefined}>
      <Text size="sm" fw={600}>
        {turn.role === 'user' ? 'You' : 'Assistant'}
      </Text>
      <Text style={{ whiteSpace: 'pre-wrap' }}>{turn.content}</Text>
    </Paper>
  );
}

/** The gateway's headers of the last call (as soon as they arrive), and its usage and cost once the stream ended (undefined before). */
function CallFacts({ headers, usage }: { headers: [string, string][]; usage: ChatUsage | null | undefined }) {
  const formatMoney = useFormatMoney();
  return (
    <Paper withBorder p="md" aria-label="Last call">
      <Stack>
        <Text data-testid="playground-cost">
          {usage === undefined
            ? 'Cost: when the answer has ended.'
            : usage
              ? `Cost ${usage.cost === null ? 'unknown' : formatMoney(usage.cost, 'USD')} · ${usage.prompt_tokens} tokens in · ${usage.completion_tokens} out`
              : 'The answer gave no usage.'}
        </Text>
        <Table aria-label="Gateway headers" withRowBorders>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Header</Table.Th>
              <Table.Th>Value</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {headers.map(([name, value]) => (
              <Table.Tr key={name}>
                <Table.Td>
                  <Code>{name}</Code>
                </Table.Td>
                <Table.Td>{value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Paper>
  );
}
