import { createTheme, MantineProvider, Modal, Notification, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { UserManager } from 'oidc-client-ts';
import { useState } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { ApiRequestError } from '../api/api-client';
import { ApiProvider } from '../api/api-context';
import { AuthProvider, CALLBACK_PATH } from '../auth/auth-context';
import { RequireSignIn } from '../auth/require-sign-in';
import { SignInCallback } from '../auth/sign-in-callback';
import { RouteError } from '../common/route-error';
import type { ShellConfig } from '../shell-config/shell-config';
import { ShellConfigProvider, type ShellProduct } from '../shell-config/shell-config-context';
import { Shell, type ShellPage } from '../shell/shell';

// The darkest shades for filled colours and links, and darker dimmed text, so that text keeps a
// contrast of 4.5:1 in both themes (WCAG AA; the browser tests run axe-core on the pages).
// A notification's message in the text colour (its own grey is 3.3:1 on white), and its and a dialog's close button named.
const theme = createTheme({
  primaryColor: 'teal',
  primaryShade: { light: 9, dark: 9 },
  defaultRadius: 'sm',
  components: {
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
      styles: { description: { color: 'var(--mantine-color-text)' } },
    }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});
const contrast: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: { '--mantine-color-dimmed': resolved.colors.gray[7] },
  dark: { '--mantine-color-dimmed': resolved.colors.dark[1] },
});

/** The nonce the serving service put in index.html; the component library marks its <style> elements with it (CSP). */
const styleNonce = () => document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';

/**
 * Server state for the whole app. A 401 from the control plane or the product means the token is
 * no longer accepted (the issuer's keys changed, the session ended): the tokens are dropped,
 * which starts a new sign-in, and the person comes back to the same page.
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

export interface ShellAppProps {
  product: ShellProduct;
  config: ShellConfig;
  manager: UserManager;
  /** The product's pages, rendered inside the shell (every one needs a signed-in person). */
  routes: RouteObject[];
  /** The product's navigation beside the module rail. */
  pages: readonly ShellPage[];
}

/** A product UI of the suite: theme, server state, sign-in, the sign-in callback, and the shell around the product's pages. */
export function ShellApp({ product, config, manager, routes, pages }: ShellAppProps) {
  const [queryClient] = useState(() => createQueryClient(manager));
  const [router] = useState(() =>
    createBrowserRouter([
      { path: CALLBACK_PATH, element: <SignInCallback /> },
      {
        errorElement: <RouteError />,
        element: (
          <RequireSignIn>
            <ApiProvider>
              <Shell pages={pages} />
            </ApiProvider>
          </RequireSignIn>
        ),
        children: routes,
      },
    ]),
  );
  return (
    <MantineProvider theme={theme} cssVariablesResolver={contrast} defaultColorScheme="auto" getStyleNonce={styleNonce}>
      <Notifications />
      <QueryClientProvider client={queryClient}>
        <ShellConfigProvider config={config} product={product}>
          <AuthProvider manager={manager}>
            <RouterProvider router={router} />
          </AuthProvider>
        </ShellConfigProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
