import { formatInstant } from './format-instant';

describe('instants in the workspace time zone', () => {
  it('shows the same instant as each zone reads it, naming the zone', () => {
    const instant = '2026-01-15T12:30:00.000Z';
    expect(formatInstant(instant, 'UTC', 'en-GB')).toBe('15 Jan 2026, 12:30 UTC');
    expect(formatInstant(instant, 'Europe/Berlin', 'en-GB')).toBe('15 Jan 2026, 13:30 CET');
    expect(formatInstant(instant, 'Asia/Tokyo', 'en-GB')).toBe('15 Jan 2026, 21:30 GMT+9');
  });
});
