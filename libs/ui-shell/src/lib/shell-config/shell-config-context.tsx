import { createContext, useContext, type ReactNode } from 'react';
import type { ShellConfig } from './shell-config';

/** The product whose UI this is: its key in the suite (`ai-gateway`) and its name. */
export interface ShellProduct {
  key: string;
  title: string;
}

interface ShellContextValue extends ShellConfig {
  product: ShellProduct;
}

const ShellConfigContext = createContext<ShellContextValue | null>(null);

export function ShellConfigProvider({ config, product, children }: { config: ShellConfig; product: ShellProduct; children: ReactNode }) {
  return <ShellConfigContext.Provider value={{ ...config, product }}>{children}</ShellConfigContext.Provider>;
}

export function useShellConfig(): ShellContextValue {
  const config = useContext(ShellConfigContext);
  if (!config) throw new Error('useShellConfig outside ShellConfigProvider');
  return config;
}
