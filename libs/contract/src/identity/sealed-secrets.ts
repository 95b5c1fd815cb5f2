import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A secret as stored: AES-256-GCM ciphertext and tag, its nonce, and the id of the key that sealed it. */
export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

export interface SecretSealerOptions {
  /** Base64 of 32 random bytes; seals every new secret. */
  currentKey: string;
  /** Earlier keys (base64), still opening what they sealed while a rotation re-seals it. */
  previousKeys?: readonly string[];
  /** Mixed into the key ids stored beside each ciphertext (a service's own label keeps ids it stored before). */
  keyIdLabel: string;
  /** Names the keys in errors, e.g. `CP_SECRETS_MASTER_KEY`. */
  keyName?: string;
}

const KEY_BYTES = 32;
const NONCE_BYTES = 12;

/** The id stored beside each ciphertext: a fingerprint of the key, never the key. */
export function sealingKeyId(key: Buffer, label: string): string {
  return createHash('sha256').update(`${label}:`).update(key).digest('hex').slice(0, 16);
}

/**
 * Secrets sealed with AES-256-GCM: a fresh 12-byte nonce per seal, and a context (the id of what
 * owns the secret) as additional authenticated data, so a ciphertext copied elsewhere does not
 * open. Key rotation: new seals use the current key, previous keys still open what they sealed;
 * `knows()` and `currentKeyId` let a service re-seal old rows and then drop the old key.
 */
export class SecretSealer {
  private readonly current: { id: string; key: Buffer };
  private readonly keys = new Map<string, Buffer>();

  constructor(options: SecretSealerOptions) {
    const name = options.keyName ?? 'a sealing key';
    for (const encoded of [options.currentKey, ...(options.previousKeys ?? [])]) {
      const key = Buffer.from(encoded, 'base64');
      if (key.length !== KEY_BYTES) throw new Error(`${name} must be base64 of ${KEY_BYTES} bytes, got ${key.length}`);
      this.keys.set(sealingKeyId(key, options.keyIdLabel), key);
    }
    const key = Buffer.from(options.currentKey, 'base64');
    this.current = { id: sealingKeyId(key, options.keyIdLabel), key };
  }

  /** The id new seals carry. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** Whether a secret sealed under `keyId` can be opened: the current key's or a previous one's. */
  knows(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plaintext: string, context: string): SealedSecret {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.current.id, nonce, ciphertext, authTag: cipher.getAuthTag() };
  }

  /** Throws UnknownSealingKey when no configured key has the id, SealedSecretUnreadable when it does not authenticate. */
  open(sealed: SealedSecret, context: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new UnknownSealingKey(sealed.keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.authTag);
      return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedSecretUnreadable(sealed.keyId);
    }
  }
}

/** No configured key has this id: the key that sealed it was dropped before the secret was re-sealed. */
export class UnknownSealingKey extends Error {
  constructor(readonly keyId: string) {
    super(`no configured key has id ${keyId}; configure the old key as a previous key until its secrets are re-sealed`);
    this.name = 'UnknownSealingKey';
  }
}

/** The key is known but the ciphertext does not authenticate: altered, or sealed for another context. */
export class SealedSecretUnreadable extends Error {
  constructor(readonly keyId: string) {
    super(`a secret sealed under key ${keyId} does not authenticate`);
    this.name = 'SealedSecretUnreadable';
  }
}
