import { formatMoney, isCurrency } from './format-money';

describe('money as the UI shows it', () => {
  it('shows sub-cent amounts with two significant digits instead of $0.00', () => {
    expect(formatMoney(0.0012932500000000001, 'USD', 'en-US')).toBe('$0.0013');
    expect(formatMoney(0.000029199999999999998, 'USD', 'en-US')).toBe('$0.000029');
    expect(formatMoney(-0.0042, 'USD', 'en-US')).toBe('-$0.0042');
  });

  it('shows amounts of a cent or more in cents, and nothing as $0.00', () => {
    expect(formatMoney(0, 'USD', 'en-US')).toBe('$0.00');
    expect(formatMoney(0.01, 'USD', 'en-US')).toBe('$0.01');
    expect(formatMoney(0.1, 'USD', 'en-US')).toBe('$0.10');
    expect(formatMoney(12.345, 'USD', 'en-US')).toBe('$12.35');
    expect(formatMoney(1234.5, 'USD', 'en-US')).toBe('$1,234.50');
  });

  it('formats exact decimal strings without going through a float', () => {
    expect(formatMoney('0.0012932500', 'USD', 'en-US')).toBe('$0.0013');
    expect(formatMoney('12345678901234567.89', 'USD', 'en-US')).toBe('$12,345,678,901,234,567.89');
    expect(formatMoney(' 0 ', 'USD', 'en-US')).toBe('$0.00');
  });

  it("writes the amount the way the locale does, with the currency's own minor units", () => {
    expect(formatMoney(1234.5, 'USD', 'de-DE')).toBe('1.234,50\u00a0$');
    expect(formatMoney(0.0013, 'EUR', 'fr-FR')).toBe('0,0013\u00a0€');
    expect(formatMoney(1234.4, 'JPY', 'ja-JP')).toBe('￥1,234');
    expect(formatMoney(0.5, 'JPY', 'en-US')).toBe('¥0.50');
  });

  it("falls back to the runtime's locale for a tag Intl refuses, as a browser may report", () => {
    expect(formatMoney(0.0013, 'USD', 'en-US@posix')).toBe(formatMoney(0.0013, 'USD'));
  });

  it('leaves what is not an amount as it came', () => {
    expect(formatMoney('n/a', 'USD', 'en-US')).toBe('n/a');
    expect(formatMoney(Number.NaN, 'USD', 'en-US')).toBe('NaN');
  });

  it('takes currency codes as units of money, and nothing else', () => {
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('EUR')).toBe(true);
    expect(['requests', 'usd', '%', 'ms', null, undefined, ''].map(isCurrency)).toEqual([false, false, false, false, false, false, false]);
  });
});
