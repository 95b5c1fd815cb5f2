import { timeZoneOptions } from './time-zone-options';

describe('the time-zone picker options', () => {
  const january = new Date('2026-01-15T12:00:00Z');
  const july = new Date('2026-07-15T12:00:00Z');

  it('offers UTC first, then every IANA zone once, each with its offset on the day', () => {
    const options = timeZoneOptions(january);
    expect(options[0]).toEqual({ value: 'UTC', label: 'UTC' });
    expect(new Set(options.map((option) => option.value)).size).toBe(options.length);
    expect(options.length).toBeGreaterThan(300);
    expect(options.find((option) => option.value === 'Europe/Berlin')?.label).toBe('Europe/Berlin (GMT+1)');
    expect(options.find((option) => option.value === 'Australia/Adelaide')?.label).toBe('Australia/Adelaide (GMT+10:30)');
  });

  it('shows the offset of daylight saving time in summer', () => {
    expect(timeZoneOptions(july).find((option) => option.value === 'Europe/Berlin')?.label).toBe('Europe/Berlin (GMT+2)');
  });
});
