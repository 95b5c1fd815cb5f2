import { Center, Loader } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { useAuth } from './auth-context';

/** Everything but the callback needs a signed-in person: without one, off to the issuer's login form. */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const { user, signingOut, signIn } = useAuth();
  const location = useLocation();
  useEffect(() => {
    if (!user && !signingOut) void signIn(`${location.pathname}${location.search}`);
  }, [user, signingOut, signIn, location.pathname, location.search]);
  if (!user) {
    return (
      <Center h="100vh">
        <Loader aria-label="Redirecting to sign-in" />
      </Center>
    );
  }
  return children;
}
