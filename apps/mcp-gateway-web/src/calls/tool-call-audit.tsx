import { Alert, Badge, Button, Code, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useFormatInstant } from '@arbor/ui-shell';
import type { ToolCallOutcome } from '../api/mcp-gateway-api';
import { useToolCallAudit } from './calls-queries';

const OUTCOME_COLOURS: Record<ToolCallOutcome, string> = {
  ok: 'teal.9',
  tool_error: 'pink.9',
  blocked: 'grape.9',
  error: 'red.9',
  rate_limited: 'indigo.9',
  denied: 'red.9',
  not_found: 'gray.8',
};

/** Every tool call through a virtual server, newest first: who called which tool of which upstream, how it ended and how long it took. */
export function ToolCallAudit({ server }: { server: string }) {
  const audit = useToolCallAudit(server);
  const formatInstant = useFormatInstant();
  const calls = audit.data?.pages.flatMap((page) => page.tool_calls) ?? [];
  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        Audit
      </Title>
      {audit.isPending && <Loader aria-label="Loading the audit" />}
      {audit.isError && (
        <Alert color="red" title="The audit could not be loaded">
          {audit.error.message}
        </Alert>
      )}
      {audit.data && calls.length === 0 && <Text size="sm">No tool calls through this server yet.</Text>}
      {calls.length > 0 && (
        <Table.ScrollContainer minWidth={800}>
          <Table striped aria-label="Audit of tool calls">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Caller</Table.Th>
                <Table.Th>Upstream</Table.Th>
                <Table.Th>Tool</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>Duration</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {calls.map((call) => (
                <Table.Tr key={call.id} data-tool-call={call.id}>
                  <Table.Td>{formatInstant(call.called_at)}</Table.Td>
                  <Table.Td>
                    {call.caller.name || call.caller.id}{' '}
                    <Text span size="sm" c="dimmed">
                      {call.caller.kind === 'key' ? 'API key' : 'person'}
                    </Text>
                  </Table.Td>
                  <Table.Td>{call.upstream ?? '–'}</Table.Td>
                  <Table.Td>
                    <Code>{call.tool}</Code>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={OUTCOME_COLOURS[call.outcome]}>{call.outcome.replace('_', ' ')}</Badge>
                    {call.error_code !== null && <Text size="sm">error {call.error_code}</Text>}
                  </Table.Td>
                  <Table.Td>{call.duration_ms < 10 ? call.duration_ms.toFixed(1) : Math.round(call.duration_ms)} ms</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {audit.hasNextPage && (
        <Button variant="default" w="fit-content" loading={audit.isFetchingNextPage} onClick={() => void audit.fetchNextPage()}>
          Older calls
        </Button>
      )}
    </Stack>
  );
}
