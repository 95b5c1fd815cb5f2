import { useCallback } from 'react';
import { formatInstant } from './format-instant';
import { useWorkspaceSettings } from './shell-queries';

/** Formats instants in the workspace time zone (UTC until the settings have loaded). */
export function useFormatInstant(): (iso: string | null | undefined) => string {
  const timeZone = useWorkspaceSettings().data?.timezone ?? 'UTC';
  return useCallback((iso) => (iso ? formatInstant(iso, timeZone) : '—'), [timeZone]);
}
