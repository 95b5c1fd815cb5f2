import { Select } from '@mantine/core';
import { useMemo } from 'react';
import { timeZoneOptions } from './time-zone-options';

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
