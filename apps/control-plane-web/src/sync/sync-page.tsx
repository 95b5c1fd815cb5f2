import { Alert, Badge, Button, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { answer, moduleTitle, notifyFailure, useControlPlaneApi, useFormatInstant, usePaged } from '@arbor/ui-shell';

/** What the sync dispatcher still owes products: pending and failing by product, and "retry now". */
export function SyncPage() {
  const api = useControlPlaneApi();
  const client = useQueryClient();
  const formatInstant = useFormatInstant();
  const [state, setState] = useState<'pending' | 'failing'>('failing');
  const deliveries = useQuery({
    queryKey: ['sync', state],
    queryFn: () => answer(api.GET('/api/v1/sync/deliveries', { params: { query: { state, limit: 500 } } })),
    refetchInterval: 10_000,
  });
  const retry = useMutation({
    mutationFn: (id: string) => answer(api.POST('/api/v1/sync/deliveries/{id}/retry', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['sync'] }),
    onError: notifyFailure('Not retried'),
  });
  const { items, pager } = usePaged(deliveries.data?.deliveries ?? []);
  return (
    <Stack>
      <Title order={2}>Sync deliveries</Title>
      <Table aria-label="Backlog by product" w="fit-content">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Product</Table.Th>
            <Table.Th>Pending</Table.Th>
            <Table.Th>Failing</Table.Th>
            <Table.Th>Oldest pending since</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(deliveries.data?.summary ?? []).map((product) => (
            <Table.Tr key={product.product}>
              <Table.Td>{moduleTitle(product.product)}</Table.Td>
              <Table.Td>{product.pending}</Table.Td>
              <Table.Td>{product.failing > 0 ? <Badge color="red">{product.failing}</Badge> : 0}</Table.Td>
              <Table.Td>{formatInstant(product.oldest_pending_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <SegmentedControl
        aria-label="Deliveries shown"
        w="fit-content"
        value={state}
        onChange={(value) => setState(value as 'pending' | 'failing')}
        data={[
          { value: 'failing', label: 'Failing' },
          { value: 'pending', label: 'All pending' },
        ]}
      />
      {deliveries.isError && <Alert color="red">{deliveries.error.message}</Alert>}
      {deliveries.data && deliveries.data.deliveries.length === 0 && <Text c="dimmed">Nothing {state}: every product has heard of every change.</Text>}
      {items.length > 0 && (
        <Table striped aria-label="Deliveries">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Product</Table.Th>
              <Table.Th>Projects</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Last error</Table.Th>
              <Table.Th>Next attempt</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((delivery) => (
              <Table.Tr key={delivery.id}>
                <Table.Td>{moduleTitle(delivery.product)}</Table.Td>
                <Table.Td>{delivery.slugs.join(', ')}</Table.Td>
                <Table.Td>{delivery.attempts}</Table.Td>
                <Table.Td>
                  {delivery.last_status ? `${delivery.last_status} ` : ''}
                  {delivery.last_error ?? ''}
                </Table.Td>
                <Table.Td>{formatInstant(delivery.next_attempt_at)}</Table.Td>
                <Table.Td>
                  <Button size="xs" variant="light" disabled={delivery.in_flight} onClick={() => retry.mutate(delivery.id)}>
                    Retry now
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {pager}
    </Stack>
  );
}
