/** Every IANA time zone this browser knows (UTC first), searchable, each with its current offset. */
export function timeZoneOptions(now = new Date()): { value: string; label: string }[] {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
  return zones.map((zone) => {
    const offset = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(now).find((part) => part.type === 'timeZoneName')?.value;
    return { value: zone, label: offset && zone !== 'UTC' ? `${zone} (${offset})` : zone };
  });
}
