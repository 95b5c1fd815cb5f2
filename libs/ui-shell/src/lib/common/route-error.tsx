import { Alert, Button, Center, Stack } from '@mantine/core';
import { useRouteError } from 'react-router';

/** A page that failed to render: say so, and offer a way back, instead of a blank screen. */
export function RouteError() {
  const error = useRouteError();
  return (
    <Center p="xl">
      <Stack>
        <Alert color="red" title="This page failed" role="alert">
          {error instanceof Error ? error.message : String(error)}
        </Alert>
        <Button component="a" href="/" w="fit-content">
          Back to the start page
        </Button>
      </Stack>
    </Center>
  );
}
