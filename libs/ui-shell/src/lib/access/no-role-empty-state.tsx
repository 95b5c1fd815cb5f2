import { Alert, Code } from '@mantine/core';
import { Fragment } from 'react';
import { useShellConfig } from '../shell-config/shell-config-context';
import { noRoleMessage, type RoleNeed } from './no-role';

/**
 * A page's empty state for a person with no role of this product on any project (useProductAccess
 * finds nothing readable): which role would let them in, never a raw 403.
 */
export function NoRoleEmptyState(need: RoleNeed) {
  const { product } = useShellConfig();
  const message = noRoleMessage(product, need);
  return (
    <Alert color="gray" title={message.title}>
      {message.body.map((part, index) => (
        <Fragment key={index}>{typeof part === 'string' ? part : <Code>{part.key}</Code>}</Fragment>
      ))}
    </Alert>
  );
}
