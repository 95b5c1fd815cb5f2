import type { Client } from 'openapi-fetch';
import { createContext, useContext, useMemo, useRef, type ReactNode, type RefObject } from 'react';
import { useAuth } from '../auth/auth-context';
import { useShellConfig } from '../shell-config/shell-config-context';
import { createApiClient, type ControlPlaneClient, type ControlPlanePaths } from './api-client';

interface ApiClients {
  /** The signed-in person's current access token, read at each call so that renewals apply at once. */
  token: RefObject<string | undefined>;
  controlPlane: ControlPlaneClient;
}

const ApiContext = createContext<ApiClients | null>(null);

/** The API clients of the app: the control plane's (the shell endpoints), and the product's own through useApiClient. */
export function ApiProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const { controlPlaneUrl } = useShellConfig();
  const token = useRef<string | undefined>(undefined);
  token.current = user?.access_token;
  const clients = useMemo(() => ({ token, controlPlane: createApiClient<ControlPlanePaths>(() => token.current, controlPlaneUrl) }), [controlPlaneUrl]);
  return <ApiContext.Provider value={clients}>{children}</ApiContext.Provider>;
}

function useApiClients(): ApiClients {
  const clients = useContext(ApiContext);
  if (!clients) throw new Error('useApi… outside ApiProvider');
  return clients;
}

/** The control plane's API (shell endpoints, and everything else the control plane's own UI calls). */
export function useControlPlaneApi(): ControlPlaneClient {
  return useApiClients().controlPlane;
}

/**
 * A typed client of this product's own API (same origin unless `baseUrl` says otherwise), with
 * the person's token: `const api = useApiClient<paths>()` with `paths` generated from the
 * product's OpenAPI document.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- openapi-fetch's own constraint on a paths type
export function useApiClient<Paths extends {}>(baseUrl = window.location.origin): Client<Paths> {
  const { token } = useApiClients();
  return useMemo(() => createApiClient<Paths>(() => token.current, baseUrl), [token, baseUrl]);
}

/** The signed-in person's access token, for calls to other products (the dashboard summaries). */
export function useAccessToken(): string | undefined {
  return useAuth().user?.access_token;
}
