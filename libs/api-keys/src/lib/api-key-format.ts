import { hash, randomBytes } from 'node:crypto';

/** The SHA-256 the database stores and looks a key up by (the one-shot hash, not a Hash object: once per call). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * A gateway's API keys: `<prefix>` and 32 random bytes in base64url. Only the hash is stored; the
 * hint (`<prefix>…abcd`) is what the admin API shows.
 */
export class ApiKeyFormat {
  constructor(readonly prefix: string) {}

  /** A fresh key, shown once to whoever created it. */
  generate(): string {
    return this.prefix + randomBytes(32).toString('base64url');
  }

  hash(key: string): string {
    return hashApiKey(key);
  }

  /** Non-secret display form: the prefix and the last four characters. */
  hint(key: string): string {
    return `${this.prefix}…${key.slice(-4)}`;
  }

  /** Whether a presented credential is one of these keys (and not, say, a person's token). */
  matches(presented: string): boolean {
    return presented.startsWith(this.prefix);
  }
}
