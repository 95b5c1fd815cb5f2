import { Alert, Loader, Stack, Text, Title } from '@mantine/core';
import { NoRoleEmptyState, useMe, useProductAccess } from '@arbor/ui-shell';
import { FIXTURE_PRODUCT } from './fixture-api';
import { useHello } from './hello-queries';

/** The one page: the person as the control plane names them, and as this product's API read their token. */
export function HelloPage() {
  const me = useMe().data;
  const access = useProductAccess(FIXTURE_PRODUCT.key);
  const hello = useHello(access?.anyRole === true);
  if (!me || !access) return <Loader aria-label="Loading" />;
  if (!access.anyRole) return <NoRoleEmptyState read="say hello" />;
  return (
    <Stack>
      <Title order={2}>
        Hello from {FIXTURE_PRODUCT.title}, signed in as {me.display_name}
      </Title>
      {hello.isError && (
        <Alert color="red" title="The product's API did not answer">
          {hello.error.message}
        </Alert>
      )}
      {hello.data && <Text data-testid="api-username">Its API read your token as {hello.data.username}.</Text>}
    </Stack>
  );
}
