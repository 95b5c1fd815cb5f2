import { Group, Pagination, Text } from '@mantine/core';
import { useEffect, useState } from 'react';

export const PAGE_SIZE = 20;

/** One page of `items` and the control to move between pages; back to a valid page when the list shrinks. */
export function usePaged<T>(items: readonly T[], pageSize = PAGE_SIZE) {
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(items.length / pageSize));
  useEffect(() => {
    if (page > pages) setPage(pages);
  }, [page, pages]);
  const current = Math.min(page, pages);
  return {
    items: items.slice((current - 1) * pageSize, current * pageSize),
    pager:
      pages > 1 ? (
        <Group justify="space-between" mt="sm">
          <Text size="sm" c="dimmed">
            {items.length} in all
          </Text>
          <Pagination total={pages} value={current} onChange={setPage} size="sm" aria-label="Pages" />
        </Group>
      ) : null,
  };
}
