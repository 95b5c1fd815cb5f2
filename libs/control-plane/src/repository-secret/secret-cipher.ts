import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

const KEY_BYTES = 32;
const NONCE_BYTES = 12;

/** The id stored beside each ciphertext: a fingerprint of the key, never the key. */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('arbor-master-key-id:').update(key).digest('hex').slice(0, 16);
}

/**
 * AES-256-GCM under CP_SECRETS_MASTER_KEY, a fresh 12-byte nonce per write, the project id as
 * additional authenticated data (a ciphertext copied onto another project does not decrypt).
 * Earlier keys (CP_SECRETS_PREVIOUS_MASTER_KEYS) still decrypt during a rotation; the procedure
 * is in docs/operations.md.
 */
export class SecretCipher {
  private readonly current: { id: string; key: Buffer };
  private readonly keys = new Map<string, Buffer>();

  constructor(masterKey: string, previousKeys: string[] = []) {
    for (const encoded of [masterKey, ...previousKeys]) {
      const key = Buffer.from(encoded, 'base64');
      if (key.length !== KEY_BYTES) throw new Error(`a master key must be base64 of ${KEY_BYTES} bytes, got ${key.length}`);
      this.keys.set(masterKeyId(key), key);
    }
    const key = Buffer.from(masterKey, 'base64');
    this.current = { id: masterKeyId(key), key };
  }

  /** The id new writes carry. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** Whether a ciphertext under `keyId` can be opened: the current key's or a previous one's. */
  knows(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  seal(plaintext: string, projectId: string): SealedSecret {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(Buffer.from(projectId));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.current.id, nonce, ciphertext, authTag: cipher.getAuthTag() };
  }

  /** Throws UnknownMasterKey when no configured key has the id, SecretUnreadable when it does not authenticate. */
  open(sealed: SealedSecret, projectId: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new UnknownMasterKey(sealed.keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce);
      decipher.setAAD(Buffer.from(projectId));
      decipher.setAuthTag(sealed.authTag);
      return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadable(sealed.keyId);
    }
  }
}

export class UnknownMasterKey extends Error {
  constructor(readonly keyId: string) {
    super(`no configured master key has id ${keyId}; add the old key to CP_SECRETS_PREVIOUS_MASTER_KEYS`);
    this.name = 'UnknownMasterKey';
  }
}

/** The key is known but the ciphertext does not authenticate: altered, or stored under another project. */
export class SecretUnreadable extends Error {
  constructor(readonly keyId: string) {
    super(`a secret under master key ${keyId} does not authenticate`);
    this.name = 'SecretUnreadable';
  }
}
