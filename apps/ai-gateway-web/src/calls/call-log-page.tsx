import { Alert, Badge, Button, Code, Group, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { NoRoleEmptyState, useFormatInstant, useFormatMoney, useMe } from '@arbor/ui-shell';
import { useState } from 'react';
import { useGatewayAccess } from '../access/gateway-access';
import { CALLS_PER_PAGE, useCallLog } from './call-log-queries';

/** The last calls of a project as metadata — when, which key, alias and deployment, status, tokens, cost, latency, retries and fallbacks — never their content. */
export function CallLogPage() {
  const me = useMe().data;
  const access = useGatewayAccess();
  const readable = access?.readable ?? [];
  const preferred = me?.default_project?.slug;
  const [chosen, setChosen] = useState<string | null>(null);
  const project = chosen ?? (preferred && readable.includes(preferred) ? preferred : (readable[0] ?? null));
  const [page, setPage] = useState(1);
  const calls = useCallLog(project, page);
  const formatInstant = useFormatInstant();
  const formatMoney = useFormatMoney();
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
          <Text size="sm">Metadata only: the gateway keeps no prompt and no answer.</Text>
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
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {calls.data.map((call) => (
                    <Table.Tr key={call.request_id} data-call-id={call.request_id}>
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
                    </Table.Tr>
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
