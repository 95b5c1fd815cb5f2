import { createTheme, MantineProvider, Notification, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { UserManager } from 'oidc-client-ts';
import { useState } from 'react';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { ApiRequestError } from '../api/api-client';
import { ApiProvider } from '../api/api-context';
import { AuthProvider, CALLBACK_PATH } from '../auth/auth-context';
import { RequireSignIn } from '../auth/require-sign-in';
import { SignInCallback } from '../auth/sign-in-callback';
import { RouteError } from '../common/route-error';
import { Shell } from '../shell/shell';
import { appRoutes } from './routes';
import type { UiConfig } from './ui-config';
import { UiConfigProvider } from './ui-config-context';

// The darkest shades for filled colours and links, and darker dimmed text, so that text keeps a
// contrast of 4.5:1 in both themes (WCAG AA; the browser tests run axe-core on the pages).
// A notification's message in the text colour (its own grey is 3.3:1 on white), and its close button named.
const theme = createTheme({
  primaryColor: 'teal',
  primaryShade: { light: 9, dark: 9 },
  defaultRadius: 'sm',
  components: {
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
      styles: { description: { color: 'var(--mantine-color-text)' } },
    }),
  },
});
const contrast: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: { '--mantine-color-dimmed': resolved.colors.gray[7] },
  dark: { '--mantine-color-dimmed': resolved.colors.dark[1] },
});

/** The nonce control-plane-api put in index.html; the component library marks its <style> elements with it (CSP). */
const styleNonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';

/**
 * Server state for the whole app. A 401 from the control plane means the token is no longer
 * accepted (the issuer's keys changed, the session ended): the tokens are dropped, which starts
 * a new sign-in, and the person comes back to the same page.
 */
function createQueryClient(manager: UserManager): QueryClient {
  const signInAgainOn401 = (error: Error) => {
    if (error instanceof ApiRequestError && error.status === 401) void manager.removeUser();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: signInAgainOn401 }),
    mutationCache: new MutationCache({ onError: signInAgainOn401 }),
    defaultOptions: {
      // A refusal (4xx) does not change by asking again.
      queries: { retry: (failures, error) => !(error instanceof ApiRequestError && error.status < 500) && failures < 2, staleTime: 10_000 },
    },
  });
}

export function App({ config, manager }: { config: UiConfig; manager: UserManager }) {
  const [queryClient] = useState(() => createQueryClient(manager));
  const [router] = useState(() =>
    createBrowserRouter([
      { path: CALLBACK_PATH, element: <SignInCallback /> },
      {
        errorElement: <RouteError />,
        element: (
          <RequireSignIn>
            <ApiProvider>
              <Shell />
            </ApiProvider>
          </RequireSignIn>
        ),
        children: appRoutes,
      },
    ]),
  );
  return (
    <MantineProvider theme={theme} cssVariablesResolver={contrast} defaultColorScheme="auto" getStyleNonce={() => styleNonce}>
      <Notifications />
      <QueryClientProvider client={queryClient}>
        <UiConfigProvider config={config}>
          <AuthProvider manager={manager}>
            <RouterProvider router={router} />
          </AuthProvider>
        </UiConfigProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
