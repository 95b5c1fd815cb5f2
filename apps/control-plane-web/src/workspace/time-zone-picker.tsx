import { Select } from '@mantine/core';
import { useMemo } from 'react';

/** Every IANA time zone this browser knows (UTC first), searchable, each with its current offset. */
export function timeZoneOptions(now = new Date()): { value: string; label: string }[] {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
  return zones.map((zone) => {
    const offset = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(now).find((part) => part.type === 'timeZoneName')?.value;
    return { value: zone, label: offset && offset !== 'GMT' ? `${zone} (${offset})` : zone };
  });
}

interface TimeZonePickerProps {
  value: string;
  onChange(zone: string): void;
  error?: string;
}

export function TimeZonePicker({ value, onChange, error }: TimeZonePickerProps) {
  const options = useMemo(() => {
    const known = timeZoneOptions();
    // A zone the server has that this browser does not list stays choosable.
    return known.some((option) => option.value === value) ? known : [{ value, label: value }, ...known];
  }, [value]);
  return (
    <Select
      label="Time zone"
      searchable
      data={options}
      value={value}
      onChange={(zone) => zone && onChange(zone)}
      error={error}
      nothingFoundMessage="No such time zone"
      w={360}
      allowDeselect={false}
    />
  );
}
