/** An instant as people of the workspace read it: in the workspace's time zone, with the zone named. */
export function formatInstant(iso: string, timeZone: string, locale?: string): string {
  // dateStyle and timeStyle cannot be combined with timeZoneName, so the fields are named one by one.
  return new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(
    new Date(iso),
  );
}
