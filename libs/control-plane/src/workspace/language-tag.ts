import { Transform } from 'class-transformer';
import { registerDecorator, ValidationOptions } from 'class-validator';

/** The canonical spelling of a BCP 47 language tag Intl has data for (`de-de` → `de-DE`), else null. */
export function canonicalLanguageTag(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const [tag] = Intl.getCanonicalLocales(value.trim());
    return tag !== undefined && Intl.NumberFormat.supportedLocalesOf(tag).length > 0 ? tag : null;
  } catch {
    return null;
  }
}

/** A BCP 47 language tag such as `de-DE` or `en`, stored in its canonical spelling. */
export function IsLanguageTag(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    Transform(({ value }: { value: unknown }) => canonicalLanguageTag(value) ?? value)(target, propertyName);
    registerDecorator({
      name: 'isLanguageTag',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be a language tag such as en-US, de-DE or fr', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && canonicalLanguageTag(value) === value },
    });
  };
}
