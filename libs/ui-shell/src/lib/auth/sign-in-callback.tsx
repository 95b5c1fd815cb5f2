import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useAuth } from './auth-context';

/** The redirect URI: trades the code for tokens (PKCE verifier from this tab), then goes where the person was. */
export function SignInCallback() {
  const { manager, signIn } = useAuth();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    manager.signinRedirectCallback().then(
      (user) => navigate((user.state as { returnTo?: string } | undefined)?.returnTo ?? '/', { replace: true }),
      (error: Error) => setFailure(error.message),
    );
  }, [manager, navigate]);
  if (failure) {
    return (
      <Center h="100vh">
        <Stack>
          <Alert color="red" title="Sign-in failed">
            {failure}
          </Alert>
          <Button onClick={() => signIn('/')}>Sign in again</Button>
        </Stack>
      </Center>
    );
  }
  return (
    <Center h="100vh">
      <Loader aria-label="Signing in" />
    </Center>
  );
}
