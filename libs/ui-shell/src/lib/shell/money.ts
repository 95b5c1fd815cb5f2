import { useCallback } from 'react';
import { formatMoney, type Amount } from './format-money';
import { useWorkspaceSettings } from './shell-queries';

/** Formats money in the workspace's locale, or the browser's when the workspace leaves it open (or until the settings have loaded). */
export function useFormatMoney(): (amount: Amount, currency: string) => string {
  const locale = useWorkspaceSettings().data?.locale ?? undefined;
  return useCallback((amount, currency) => formatMoney(amount, currency, locale), [locale]);
}
