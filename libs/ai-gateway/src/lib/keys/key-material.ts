import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'sk-arbor-';

/** A fresh key: `sk-arbor-` and 32 random bytes in base64url. */
export function newKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** What the database stores and looks keys up by (once per call: the one-shot hash, not a Hash object). */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Non-secret display form: `sk-arbor-…abcd`. */
export function keyHint(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}
