import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface SealedSecret {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

/** The id stored beside each ciphertext: a fingerprint of the key, never the key. */
export function masterKeyId(key: Buffer): string {
  return createHash('sha256').update('arbor-master-key-id:').update(key).digest('hex').slice(0, 16);
}

/**
 * AES-256-GCM under CP_SECRETS_MASTER_KEY, a fresh 12-byte nonce per write, the project id as
 * additional authenticated data (a ciphertext copied onto another project does not decrypt).
 * Earlier keys (CP_SECRETS_PREVIOUS_MASTER_KEYS) still decrypt during a rotation.
 */
export class SecretCipher {
  private readonly current: { id: string; key: Buffer };
  private readonly keys = new Map<string, Buffer>();

  constructor(masterKey: string, previousKeys: string[] = []) {
    const key = Buffer.from(masterKey, 'base64');
    this.current = { id: masterKeyId(key), key };
    for (const encoded of [masterKey, ...previousKeys]) {
      const candidate = Buffer.from(encoded, 'base64');
      this.keys.set(masterKeyId(candidate), candidate);
    }
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string, projectId: string): SealedSecret {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(Buffer.from(projectId));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.current.id, nonce, ciphertext, authTag: cipher.getAuthTag() };
  }

  open(sealed: SealedSecret, projectId: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new UnknownMasterKey(sealed.keyId);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce);
    decipher.setAAD(Buffer.from(projectId));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }
}

export class UnknownMasterKey extends Error {
  constructor(keyId: string) {
    super(`no configured master key has id ${keyId}; add the old key to CP_SECRETS_PREVIOUS_MASTER_KEYS`);
    this.name = 'UnknownMasterKey';
  }
}
