import { Alert, Badge, Code, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { NoRoleEmptyState, useFormatInstant, useFormatMoney, useMe } from '@arbor/ui-shell';
import { useGatewayAccess } from '../access/gateway-access';
import { useAliases } from './models-queries';

/** Every alias keys can call: its deployments, provider, list price per million tokens and health. */
export function ModelsPage() {
  const me = useMe().data;
  const access = useGatewayAccess();
  const readable = access?.readable ?? [];
  const aliases = useAliases(readable.length > 0);
  const formatMoney = useFormatMoney();
  const formatInstant = useFormatInstant();
  const price = (usd: number | null) => (usd === null ? 'unknown' : formatMoney(usd, 'USD'));
  if (!me || !access) return null;
  return (
    <Stack>
      <Title order={2}>Models</Title>
      {readable.length === 0 ? (
        <NoRoleEmptyState read="see the models its keys can call" />
      ) : (
        <>
          <Text>Call a model by its alias; the gateway picks a deployment, and skips one that is cooling down after failures.</Text>
          {aliases.isPending && <Loader aria-label="Loading models" />}
          {aliases.isError && (
            <Alert color="red" title="The models could not be loaded">
              {aliases.error.message}
            </Alert>
          )}
          {aliases.data?.length === 0 && (
            <Alert color="gray" title="No aliases configured">
              The gateway's configuration (AIGW_CONFIG, its model_list) names none yet.
            </Alert>
          )}
          {aliases.data && aliases.data.length > 0 && (
            <Table.ScrollContainer minWidth={800}>
              <Table aria-label="Models" withRowBorders>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Alias</Table.Th>
                    <Table.Th>Deployment</Table.Th>
                    <Table.Th>Provider and model</Table.Th>
                    <Table.Th>Per million tokens in / out</Table.Th>
                    <Table.Th>Limits</Table.Th>
                    <Table.Th>Health</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {aliases.data.flatMap((alias) =>
                    alias.deployments.map((deployment, index) => (
                      <Table.Tr key={`${alias.alias}/${deployment.id}`} data-alias={alias.alias}>
                        {index === 0 && (
                          <Table.Td rowSpan={alias.deployments.length} fw={600}>
                            {alias.alias}
                          </Table.Td>
                        )}
                        <Table.Td>
                          <Code>{deployment.id}</Code>
                        </Table.Td>
                        <Table.Td>
                          {deployment.provider}/{deployment.model}
                        </Table.Td>
                        <Table.Td>
                          {price(deployment.input_usd_per_million)} / {price(deployment.output_usd_per_million)}
                        </Table.Td>
                        <Table.Td>
                          {deployment.rpm ?? '∞'} rpm · {deployment.tpm ?? '∞'} tpm
                        </Table.Td>
                        <Table.Td>
                          {deployment.cooling_down_until ? (
                            <Badge color="orange.9">cooling down until {formatInstant(deployment.cooling_down_until)}</Badge>
                          ) : (
                            <Badge color="teal.9">in rotation</Badge>
                          )}
                          {deployment.last_error && (
                            <Text size="sm" data-testid="last-error">
                              Last error {formatInstant(deployment.last_error.at)}: {deployment.last_error.status}
                              {deployment.last_error.code && ` ${deployment.last_error.code}`} — {deployment.last_error.message}
                            </Text>
                          )}
                        </Table.Td>
                      </Table.Tr>
                    )),
                  )}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </Stack>
  );
}
