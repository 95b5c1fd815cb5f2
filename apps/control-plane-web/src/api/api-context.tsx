import { createContext, useContext, useMemo, useRef, type ReactNode } from 'react';
import { useAuth } from '../auth/auth-context';
import { createApiClient, type ApiClient } from './api-client';

const ApiContext = createContext<ApiClient | null>(null);

/** One API client for the app; it reads the current access token at each call, so renewals apply at once. */
export function ApiProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const token = useRef<string | undefined>(undefined);
  token.current = user?.access_token;
  const client = useMemo(() => createApiClient(() => token.current), []);
  return <ApiContext.Provider value={client}>{children}</ApiContext.Provider>;
}

export function useApi(): ApiClient {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useApi outside ApiProvider');
  return client;
}

/** The signed-in person's access token, for calls to other products (the dashboard summaries). */
export function useAccessToken(): string | undefined {
  return useAuth().user?.access_token;
}
