import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** An upstream's headers as stored: AES-256-GCM of their JSON, never the plaintext. */
export interface SealedHeaders {
  keyId: string;
  nonce: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

const KEY_BYTES = 32;
const NONCE_BYTES = 12;

/**
 * Encrypts upstream headers under MCPGW_SECRETS_KEY: a fresh 12-byte nonce per write and the
 * upstream's name as additional authenticated data, so a ciphertext copied onto another upstream
 * does not open. The key id stored beside it is a fingerprint of the key, never the key.
 */
export class HeaderCipher {
  private readonly key: Buffer;
  readonly keyId: string;

  constructor(secretsKey: string) {
    const key = Buffer.from(secretsKey, 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`MCPGW_SECRETS_KEY must be base64 of ${KEY_BYTES} bytes, got ${key.length}`);
    this.key = key;
    this.keyId = createHash('sha256').update('arbor-mcp-gateway-key-id:').update(key).digest('hex').slice(0, 16);
  }

  seal(headers: Readonly<Record<string, string>>, upstream: string): SealedHeaders {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(upstream, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(headers), 'utf8'), cipher.final()]);
    return { keyId: this.keyId, nonce, ciphertext, authTag: cipher.getAuthTag() };
  }

  /** Throws HeadersUnreadable when the key differs or the ciphertext does not authenticate (altered, or another upstream's). */
  open(sealed: SealedHeaders, upstream: string): Record<string, string> {
    if (sealed.keyId !== this.keyId) throw new HeadersUnreadable(upstream, `they were encrypted under another MCPGW_SECRETS_KEY (key id ${sealed.keyId})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.nonce);
      decipher.setAAD(Buffer.from(upstream, 'utf8'));
      decipher.setAuthTag(sealed.authTag);
      const plaintext = Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
      return JSON.parse(plaintext) as Record<string, string>;
    } catch {
      throw new HeadersUnreadable(upstream, 'they do not authenticate');
    }
  }
}

export class HeadersUnreadable extends Error {
  constructor(
    readonly upstream: string,
    reason: string,
  ) {
    super(`the stored headers of upstream "${upstream}" cannot be decrypted: ${reason}`);
    this.name = 'HeadersUnreadable';
  }
}
