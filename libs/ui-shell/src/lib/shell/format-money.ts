/** An amount of money as an API sends it: a number, or an exact decimal string (`"0.0012932500"`). */
export type Amount = number | string;

const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Whether a figure's unit names a currency (ISO 4217 code such as `USD`), so its values are money. */
export function isCurrency(unit: string | null | undefined): unit is string {
  if (!unit || !/^[A-Z]{3}$/.test(unit)) return false;
  try {
    new Intl.NumberFormat('en', { style: 'currency', currency: unit });
    return true;
  } catch {
    return false;
  }
}

/**
 * The one way the UI shows money: the currency's usual minor units ($12.35, $0.01), and an amount
 * below the smallest of them with two significant digits ($0.0013, not $0.00), so that a few
 * cheap calls do not read as nothing. A decimal string is formatted exactly, not through a float.
 */
export function formatMoney(amount: Amount, currency: string, requestedLocale?: string): string {
  const locale = usableLocale(requestedLocale);
  const text = typeof amount === 'string' ? amount.trim() : amount;
  const value = Number(text);
  if ((typeof text === 'string' && !DECIMAL.test(text)) || !Number.isFinite(value)) return String(amount);
  const standard = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const smallestUnit = 10 ** -(standard.resolvedOptions().maximumFractionDigits ?? 2);
  // Intl formats a numeric string as the exact decimal it spells (ECMA-402 NumberFormat v3).
  const exact = text as unknown as number;
  if (value === 0 || Math.abs(value) >= smallestUnit) return standard.format(exact);
  return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumSignificantDigits: 2, maximumSignificantDigits: 2 }).format(exact);
}

/** The locale if Intl takes it, else the runtime's default: browsers report tags such as `en-US@posix`. */
function usableLocale(locale: string | undefined): string | undefined {
  if (locale === undefined) return undefined;
  try {
    return Intl.getCanonicalLocales(locale)[0];
  } catch {
    return undefined;
  }
}
