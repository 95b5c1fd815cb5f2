/**
 * Money as exact decimals: USD in whole picodollars (10^-12 USD) held in a bigint. Prices per
 * token run to 10^-8 USD and below, so costs added as floats show noise (0.0012932500000000001);
 * sums and products here are exact, and a number leaves only at the edge, as the shortest decimal
 * that reads back as itself. PostgreSQL keeps money as `numeric`, written from usdDecimal.
 */
export type UsdUnits = bigint;

const SCALE = 12;
const ONE_USD = 10n ** BigInt(SCALE);
const DECIMAL = /^(-?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** A decimal (`0.00129325`, `1.5e-7`, a numeric column's text) in units of 10^-scale, rounded half away from zero. */
function scaled(text: string, scale: number): bigint {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new RangeError(`not a decimal: ${text}`);
  const [, sign, whole = '0', fraction = '', exponent = '0'] = match;
  const digits = BigInt(`${whole}${fraction}`);
  const shift = Number(exponent) - fraction.length + scale;
  let units: bigint;
  if (shift >= 0) units = digits * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    units = digits / divisor + ((digits % divisor) * 2n >= divisor ? 1n : 0n);
  }
  return sign === '-' ? -units : units;
}

// Below this many picodollars (about 2 000 USD) a number times 10^12 is within 0.25 of the exact
// decimal it prints as: both roundings (the number's own, the product's) stay under 2^-52 of it.
const FAST_UNITS = 2 ** 51;

/** A USD amount (a number, or a numeric column's text) in picodollars; not a finite number is 0. */
export function usdUnits(value: number | string): UsdUnits {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 0n;
    // Runs several times per call: the decimal text is taken apart only when the product is not
    // plainly a whole number (a decimal with more than 12 places, or a large amount).
    const product = value * 1e12;
    const whole = Math.round(product);
    if (Math.abs(product) < FAST_UNITS && Math.abs(product - whole) < 0.25) return BigInt(whole);
    return scaled(String(value), SCALE);
  }
  return scaled(value, SCALE);
}

// Prices are few and read on every call: each is parsed once.
const priceUnits = new Map<number, UsdUnits>();

/** `quantity` (tokens, images, seconds…) at `price` USD each, exactly. */
export function usdTimes(price: number, quantity: number): UsdUnits {
  if (price === 0 || quantity === 0 || !Number.isFinite(price) || !Number.isFinite(quantity)) return 0n;
  let each = priceUnits.get(price);
  if (each === undefined) {
    each = usdUnits(price);
    if (priceUnits.size > 10_000) priceUnits.clear();
    priceUnits.set(price, each);
  }
  if (Number.isSafeInteger(quantity)) return each * BigInt(quantity);
  const product = each * scaled(String(quantity), SCALE);
  const rounding = (product < 0n ? -ONE_USD : ONE_USD) / 2n;
  return (product + rounding) / ONE_USD;
}

/** The exact decimal text of an amount (`0.00129325`, `12`), for a numeric column or a report. */
export function usdDecimal(units: UsdUnits): string {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const fraction = (magnitude % ONE_USD).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${magnitude / ONE_USD}${fraction ? `.${fraction}` : ''}`;
}

/** An amount as a JSON number: the nearest double, which prints as the same decimal (to 15 significant digits). */
export function usdNumber(units: UsdUnits): number {
  // Both whole numbers are exact doubles and the division is rounded once: the double nearest to
  // the decimal, as parsing its text would give, without the text.
  if (units < MAX_EXACT && units > -MAX_EXACT) return Number(units) / 1e12;
  return Number(usdDecimal(units));
}
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The exact sum of two USD amounts, as addUsd gives it: while both are plainly whole picodollars
 * (as usdUnits finds them) their sum is taken in doubles, exact below 2^53, with no bigint and no
 * list — the limits add a call's cost and hold a few times per call.
 */
export function plusUsd(a: number, b: number): number {
  const x = a * 1e12;
  const y = b * 1e12;
  const wholeX = Math.round(x);
  const wholeY = Math.round(y);
  if (Math.abs(x) < FAST_UNITS && Math.abs(y) < FAST_UNITS && Math.abs(x - wholeX) < 0.25 && Math.abs(y - wholeY) < 0.25) return (wholeX + wholeY) / 1e12 + 0; // (+ 0: no -0, as from a bigint)
  return addUsd(a, b);
}

/** The exact sum of USD amounts, as a number. */
export function addUsd(...amounts: readonly (number | string)[]): number {
  let total = 0n;
  for (const amount of amounts) total += usdUnits(amount);
  return usdNumber(total);
}

/**
 * An amount for people: cents from a cent on (`$12.34`), else its first two significant digits
 * (`$0.0013`), so that sub-cent spend never reads as `$0.00`.
 */
export function usdText(amount: number): string {
  if (amount === 0) return '$0.00';
  const magnitude = Math.abs(amount);
  const text = magnitude >= 0.01 ? magnitude.toFixed(2) : magnitude.toFixed(Math.min(SCALE, 1 - Math.floor(Math.log10(magnitude))));
  return `${amount < 0 ? '-' : ''}$${text}`;
}

/** A TypeORM transformer for a numeric money column: its exact text read as a number (the entity's type), a number written as its decimal. */
export const USD_COLUMN = {
  to: (value: number | null | undefined): string | null | undefined => (typeof value === 'number' ? usdDecimal(usdUnits(value)) : value),
  from: (value: string | null): number | null => (value === null ? null : usdNumber(usdUnits(value))),
};
