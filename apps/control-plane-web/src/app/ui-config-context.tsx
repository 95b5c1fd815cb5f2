import { createContext, useContext, type ReactNode } from 'react';
import type { UiConfig } from './ui-config';

const UiConfigContext = createContext<UiConfig | null>(null);

export function UiConfigProvider({ config, children }: { config: UiConfig; children: ReactNode }) {
  return <UiConfigContext.Provider value={config}>{children}</UiConfigContext.Provider>;
}

export function useUiConfig(): UiConfig {
  const config = useContext(UiConfigContext);
  if (!config) throw new Error('useUiConfig outside UiConfigProvider');
  return config;
}
