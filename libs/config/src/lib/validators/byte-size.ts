import { envValue } from './env-value';

const SIZE = /^(\d+)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/;
const UNIT_BYTES: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** `25MB`, `512MiB`, `1GiB`, `1048576` → bytes; undefined when malformed or not positive. */
export function parseByteSize(value: string): number | undefined {
  const match = SIZE.exec(value.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * (UNIT_BYTES[match[2] ?? 'B'] ?? 1);
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

export const IsByteSize = envValue(
  'isByteSize',
  'a positive size: a whole number of bytes, or with KB, MB, GB, KiB, MiB or GiB (for example 25MB, 1GiB)',
  (v) => parseByteSize(v) !== undefined,
);

/** A size the config check already accepted, in bytes. */
export function byteSizeBytes(value: string): number {
  const bytes = parseByteSize(value);
  if (bytes === undefined) throw new Error(`size ${value} was not validated`);
  return bytes;
}
