import { Alert } from '@mantine/core';
import type { ReactNode } from 'react';
import { useMe } from '@arbor/ui-shell';

/** Administration pages: a member who follows a link sees why there is nothing, not a wall of errors. */
export function AdminOnly({ children }: { children: ReactNode }) {
  const me = useMe().data;
  if (!me?.admin) {
    return (
      <Alert color="gray" title="Administrators only">
        This page is for administrators of the control plane.
      </Alert>
    );
  }
  return children;
}
