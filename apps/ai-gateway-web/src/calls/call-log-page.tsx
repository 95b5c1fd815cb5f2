import { Alert, Badge, Button, Code, Group, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { NoRoleEmptyState, useFormatInstant, useFormatMoney, useMe } from '@arbor/ui-shell';
import { Fragment, useState } from 'react';
import { useGatewayAccess } from '../access/gateway-access';
import type { CallContent, CallLogSettings } from '../api/gateway-api';
import { CALLS_PER_PAGE, useCallLog, useCallLogSettings } from './call-log-queries';

const OFF_BY_SETTING: Record<NonNullable<CallLogSettings['content_off_by']>, string> = {
  store_prompts_in_spend_logs: 'general_settings.store_prompts_in_spend_logs',
  turn_off_message_logging: 'litellm_settings.turn_off_message_logging',
  disable_spend_logs: 'general_settings.disable_spend_logs',
};

/** What the gateway keeps of calls' content, as its config says. */
function ContentKept({ settings }: { settings: CallLogSettings | undefined }) {
  if (!settings) return null;
  if (settings.content_kept)
    return (
      <Text size="sm">
        Message content is kept (on in the config: <Code>general_settings.store_prompts_in_spend_logs</Code>): each call's messages as sent upstream and its answer, each cut at{' '}
        {settings.max_field_chars} characters.
      </Text>
    );
  return (
    <Text size="sm">
      Message content is not kept (off in the config: <Code>{OFF_BY_SETTING[settings.content_off_by ?? 'store_prompts_in_spend_logs']}</Code>): metadata only.
    </Text>
  );
}

/** A kept field as it reads best: text as it is, JSON indented. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** A call's kept prompt and answer. */
function ContentOf({ content }: { content: CallContent }) {
  return (
    <Stack gap="xs">
      {content.truncated && <Text size="sm">Cut at the gateway's limit per field (truncated).</Text>}
      <Text size="sm" fw={600}>
        Prompt
      </Text>
      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {shown(content.messages)}
      </Code>
      <Text size="sm" fw={600}>
        {content.streamed ? 'Answer (the events the client got)' : 'Answer'}
      </Text>
      {content.response === undefined ? (
        <Text size="sm">No answer kept (the call failed).</Text>
      ) : (
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {shown(content.response)}
        </Code>
      )}
    </Stack>
  );
}

/** The last calls of a project — when, which key, alias and deployment, status, tokens, cost, latency, retries and fallbacks — and their content when the config keeps it. */
export function CallLogPage() {
  const me = useMe().data;
  const access = useGatewayAccess();
  const readable = access?.readable ?? [];
  const preferred = me?.default_project?.slug;
  const [chosen, setChosen] = useState<string | null>(null);
  const project = chosen ?? (preferred && readable.includes(preferred) ? preferred : (readable[0] ?? null));
  const [page, setPage] = useState(1);
  const calls = useCallLog(project, page);
  const settings = useCallLogSettings().data;
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const formatInstant = useFormatInstant();
  const formatMoney = useFormatMoney();
  const withContent = calls.data?.some((call) => call.content !== undefined) ?? false;
  if (!me || !access) return null;
  return (
    <Stack>
      <Title order={2}>Call log</Title>
      {readable.length === 0 ? (
        <NoRoleEmptyState read="see its calls" />
      ) : (
        <>
          <Group align="end">
            <Select
              label="Project"
              data={readable}
              value={project}
              onChange={(value) => {
                setChosen(value);
                setPage(1);
              }}
              allowDeselect={false}
              w={220}
            />
            <Button variant="default" onClick={() => void calls.refetch()} loading={calls.isFetching}>
              Refresh
            </Button>
          </Group>
          <ContentKept settings={settings} />
          {calls.isPending && <Loader aria-label="Loading calls" />}
          {calls.isError && (
            <Alert color="red" title="The calls could not be loaded">
              {calls.error.message}
            </Alert>
          )}
          {calls.data?.length === 0 && page === 1 && (
            <Alert color="gray" title="No calls yet">
              The calls of this project's keys are listed here as they are made.
            </Alert>
          )}
          {calls.data && calls.data.length > 0 && (
            <Table.ScrollContainer minWidth={1000}>
              <Table striped aria-label="Calls">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Time</Table.Th>
                    <Table.Th>Key</Table.Th>
                    <Table.Th>Alias</Table.Th>
                    <Table.Th>Deployment</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Tokens in / out</Table.Th>
                    <Table.Th>Cost</Table.Th>
                    <Table.Th>Latency</Table.Th>
                    <Table.Th>Retries / fallbacks</Table.Th>
                    {withContent && <Table.Th>Content</Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {calls.data.map((call) => (
                    <Fragment key={call.request_id}>
                      <Table.Tr data-call-id={call.request_id}>
                        <Table.Td>{formatInstant(call.startTime)}</Table.Td>
                        <Table.Td>{call.api_key === null ? 'master key' : (call.metadata.key_alias ?? 'unnamed key')}</Table.Td>
                        <Table.Td>{call.model_group}</Table.Td>
                        <Table.Td>
                          {call.model_id ? <Code>{call.model_id}</Code> : 'none answered'}
                          {call.custom_llm_provider && <Text size="sm">{call.custom_llm_provider}</Text>}
                        </Table.Td>
                        <Table.Td>
                          <Badge color={call.status === 'success' ? 'teal.9' : 'red.9'}>{call.metadata.status_code}</Badge>
                          {call.cache_hit === 'True' && <Text size="sm">from the cache</Text>}
                        </Table.Td>
                        <Table.Td>
                          {call.prompt_tokens} / {call.completion_tokens}
                        </Table.Td>
                        <Table.Td>{formatMoney(call.spend, 'USD')}</Table.Td>
                        <Table.Td>{call.request_duration_ms} ms</Table.Td>
                        <Table.Td>
                          {call.metadata.retries} / {call.metadata.fallbacks}
                        </Table.Td>
                        {withContent && (
                          <Table.Td>
                            {call.content ? (
                              <Button
                                size="xs"
                                variant="default"
                                aria-expanded={open.has(call.request_id)}
                                aria-controls={`content-${call.request_id}`}
                                onClick={() => toggle(call.request_id)}
                              >
                                {open.has(call.request_id) ? 'Hide content' : 'Show content'}
                              </Button>
                            ) : (
                              <Text size="sm">none kept</Text>
                            )}
                          </Table.Td>
                        )}
                      </Table.Tr>
                      {call.content && open.has(call.request_id) && (
                        <Table.Tr id={`content-${call.request_id}`}>
                          <Table.Td colSpan={10}>
                            <ContentOf content={call.content} />
                          </Table.Td>
                        </Table.Tr>
                      )}
                    </Fragment>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {calls.data && (page > 1 || calls.data.length === CALLS_PER_PAGE) && (
            <Group>
              <Button variant="default" disabled={page === 1} onClick={() => setPage(page - 1)}>
                Newer
              </Button>
              <Text size="sm">Page {page}</Text>
              <Button variant="default" disabled={calls.data.length < CALLS_PER_PAGE} onClick={() => setPage(page + 1)}>
                Older
              </Button>
            </Group>
          )}
        </>
      )}
    </Stack>
  );
}
