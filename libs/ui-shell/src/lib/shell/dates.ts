import { useCallback } from 'react';
import { formatInstant } from './format-instant';
import { useWorkspaceSettings } from './shell-queries';

/** Formats instants in the workspace time zone (UTC until the settings have loaded) and locale (else the browser's). */
export function useFormatInstant(): (iso: string | null | undefined) => string {
  const settings = useWorkspaceSettings().data;
  const timeZone = settings?.timezone ?? 'UTC';
  const locale = settings?.locale ?? undefined;
  return useCallback((iso) => (iso ? formatInstant(iso, timeZone, locale) : '—'), [timeZone, locale]);
}
