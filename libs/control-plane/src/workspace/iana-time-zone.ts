import { registerDecorator, ValidationOptions } from 'class-validator';

/** The zones this Node.js lists (its ICU data names each zone once, by its CLDR name), plus UTC. */
const LISTED: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
/** Intl matches names case-insensitively; only the exact spelling of a listed zone counts. */
const LISTED_LOWER_CASE: ReadonlySet<string> = new Set([...LISTED].map((zone) => zone.toLowerCase()));

/** Area/Location as the IANA database writes it, each part capitalised: rules out offsets and abbreviations. */
const IANA_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)+$/;

/**
 * An IANA time zone name such as `Europe/Berlin` or `UTC`. The list leaves out current IANA names
 * whose CLDR name differs (Europe/Kyiv, America/Argentina/Buenos_Aires, Asia/Kolkata), so a name of
 * the IANA shape that Intl can format with counts as well.
 */
export function isIanaTimeZone(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (LISTED.has(value)) return true;
  if (!IANA_SHAPE.test(value) || LISTED_LOWER_CASE.has(value.toLowerCase())) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function IsIanaTimeZone(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isIanaTimeZone',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be an IANA time zone such as Europe/Berlin or UTC', ...options },
      validator: { validate: isIanaTimeZone },
    });
}
