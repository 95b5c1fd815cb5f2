import { SegmentedControl, useMantineColorScheme, type MantineColorScheme } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useMe, useSetTheme, type Theme } from './shell-queries';

const colorSchemeOf = (theme: Theme): MantineColorScheme => (theme === 'system' ? 'auto' : theme);

/** Light / dark / system: applied at once, saved for every product UI with PUT /api/v1/me/theme. */
export function ThemeControl() {
  const me = useMe().data;
  const setTheme = useSetTheme();
  const { setColorScheme } = useMantineColorScheme();
  const apply = useRef(setColorScheme);
  apply.current = setColorScheme;
  // The saved theme wins over this browser's last choice whenever the profile's theme is (re)read.
  const saved = me?.theme;
  useEffect(() => {
    if (saved) apply.current(colorSchemeOf(saved));
  }, [saved]);
  const choose = (value: string) => {
    const theme = value as Theme;
    setColorScheme(colorSchemeOf(theme));
    setTheme.mutate(theme);
  };
  return (
    <SegmentedControl
      aria-label="Theme"
      size="xs"
      value={setTheme.isPending ? setTheme.variables : (me?.theme ?? 'system')}
      onChange={choose}
      disabled={me?.disabled}
      data={[
        { value: 'light', label: 'Light' },
        { value: 'dark', label: 'Dark' },
        { value: 'system', label: 'System' },
      ]}
    />
  );
}
