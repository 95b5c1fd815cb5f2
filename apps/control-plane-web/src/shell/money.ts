import { useCallback } from 'react';
import { formatMoney, type Amount } from './format-money';

/**
 * Formats money as this browser's locale writes it (the workspace has no locale setting of its
 * own): Intl's default locale, which is the browser's, already checked (navigator.language may be `en-US@posix`).
 */
export function useFormatMoney(): (amount: Amount, currency: string) => string {
  return useCallback((amount, currency) => formatMoney(amount, currency), []);
}
