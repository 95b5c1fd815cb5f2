import { ActionIcon, Button, Group, NumberInput, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { fieldError, FormErrorAlert } from '@arbor/ui-shell';
import { useState, type FormEvent } from 'react';
import type { Transport, Upstream, UpstreamBody } from '../api/mcp-gateway-api';
import { authBody, authDraftOf } from './upstream-auth';
import { UpstreamAuthFields } from './upstream-auth-fields';
import { useSaveUpstream } from './upstreams-queries';

const FIELDS = ['name', 'url', 'transport', 'headers', 'auth', 'timeout_ms', 'max_concurrency'] as const;

interface HeaderDraft {
  name: string;
  value: string;
}

/**
 * Registers or changes an upstream and how the gateway authenticates to it. Header values and an
 * OAuth client secret are write-only: an upstream's form shows only header names, and changing
 * headers replaces them all (the API's rule), so the values are typed again.
 */
export function UpstreamForm({ upstream, onDone }: { upstream: Upstream | null; onDone(): void }) {
  const [name, setName] = useState(upstream?.name ?? '');
  const [url, setUrl] = useState(upstream?.url ?? '');
  const [transport, setTransport] = useState<Transport>(upstream?.transport ?? 'streamable-http');
  const [timeoutMs, setTimeoutMs] = useState<number | string>(upstream?.timeout_ms ?? 60_000);
  const [maxConcurrency, setMaxConcurrency] = useState<number | string>(upstream?.max_concurrency ?? 10);
  const [replaceHeaders, setReplaceHeaders] = useState(upstream === null);
  const [headers, setHeaders] = useState<HeaderDraft[]>([]);
  const [auth, setAuth] = useState(() => authDraftOf(upstream?.auth));
  const save = useSaveUpstream();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: UpstreamBody = {
      ...(upstream ? {} : { name: name.trim() }),
      url: url.trim(),
      transport,
      ...(timeoutMs !== '' ? { timeout_ms: Number(timeoutMs) } : {}),
      ...(maxConcurrency !== '' ? { max_concurrency: Number(maxConcurrency) } : {}),
      ...(replaceHeaders ? { headers: Object.fromEntries(headers.filter((header) => header.name.trim() !== '').map((header) => [header.name.trim(), header.value])) } : {}),
      auth: authBody(auth),
    };
    save.mutate({ name: upstream?.name ?? null, body }, { onSuccess: onDone });
  };
  const setHeader = (index: number, change: Partial<HeaderDraft>) => setHeaders(headers.map((header, at) => (at === index ? { ...header, ...change } : header)));
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label={upstream ? `Settings of ${upstream.name}` : 'New upstream'}>
      <Stack>
        <Title order={3} size="h4">
          {upstream ? `Edit ${upstream.name}` : 'Register an upstream'}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput
            label="Name"
            required
            disabled={upstream !== null}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fieldError(save.error, 'name')}
          />
          <TextInput
            label="Address"
            required
            placeholder="https://tools.example.com/mcp"
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
            error={fieldError(save.error, 'url')}
          />
          <Select
            label="Transport"
            data={[
              { value: 'streamable-http', label: 'Streamable HTTP' },
              { value: 'sse', label: 'HTTP+SSE (legacy)' },
            ]}
            value={transport}
            onChange={(value) => value && setTransport(value as Transport)}
            allowDeselect={false}
            error={fieldError(save.error, 'transport')}
          />
          <NumberInput label="Timeout per call (ms)" min={1} allowDecimal={false} value={timeoutMs} onChange={setTimeoutMs} error={fieldError(save.error, 'timeout_ms')} />
          <NumberInput label="Calls at once" min={1} allowDecimal={false} value={maxConcurrency} onChange={setMaxConcurrency} error={fieldError(save.error, 'max_concurrency')} />
        </SimpleGrid>
        <UpstreamAuthFields draft={auth} onChange={setAuth} stored={upstream?.auth} error={fieldError(save.error, 'auth')} />
        <Stack gap="xs">
          <Text fw={600} size="sm">
            Headers
          </Text>
          <Text size="sm">
            Sent on every request to the upstream, stored encrypted and never shown again.
            {upstream && upstream.header_names.length > 0 && ` It has: ${upstream.header_names.join(', ')}.`}
          </Text>
          {upstream && !replaceHeaders ? (
            <Button variant="default" w="fit-content" onClick={() => setReplaceHeaders(true)}>
              Replace the headers
            </Button>
          ) : (
            <>
              {headers.map((header, index) => (
                <Group key={index} align="end">
                  <TextInput label="Header name" value={header.name} onChange={(event) => setHeader(index, { name: event.currentTarget.value })} />
                  <TextInput
                    label="Header value"
                    type="password"
                    autoComplete="off"
                    value={header.value}
                    onChange={(event) => setHeader(index, { value: event.currentTarget.value })}
                  />
                  <ActionIcon variant="default" size="lg" aria-label={`Remove header ${index + 1}`} onClick={() => setHeaders(headers.filter((_, at) => at !== index))}>
                    ×
                  </ActionIcon>
                </Group>
              ))}
              <Group>
                <Button variant="default" onClick={() => setHeaders([...headers, { name: '', value: '' }])}>
                  Add a header
                </Button>
                {upstream && <Text size="sm">Saving replaces every header with these (none: no headers).</Text>}
              </Group>
            </>
          )}
          {fieldError(save.error, 'headers') && (
            <Text c="red" size="sm">
              {fieldError(save.error, 'headers')}
            </Text>
          )}
        </Stack>
        <FormErrorAlert error={save.error} fields={FIELDS} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            {upstream ? 'Save' : 'Register'}
          </Button>
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
