import type { SealedSecret } from '@arbor/contract';
import type { HeaderCipher } from '../../registry/header-cipher';

/** A small value sealed under MCPGW_SECRETS_KEY into one URL-safe string (connect tickets, consent states); `context` binds it to its use. */
export function sealToken(cipher: HeaderCipher, value: object, context: string): string {
  const sealed = cipher.sealValue(JSON.stringify(value), context);
  return [Buffer.from(sealed.keyId).toString('base64url'), sealed.nonce.toString('base64url'), sealed.ciphertext.toString('base64url'), sealed.authTag.toString('base64url')].join(
    '.',
  );
}

/** The value, or undefined when the string is not one the gateway sealed for this context (altered, another use's, a key no longer held). */
export function openToken<T>(cipher: HeaderCipher, token: string, context: string): T | undefined {
  const parts = token.split('.');
  if (parts.length !== 4) return undefined;
  const [keyId, nonce, ciphertext, authTag] = parts as [string, string, string, string];
  try {
    const sealed: SealedSecret = {
      keyId: Buffer.from(keyId, 'base64url').toString(),
      nonce: Buffer.from(nonce, 'base64url'),
      ciphertext: Buffer.from(ciphertext, 'base64url'),
      authTag: Buffer.from(authTag, 'base64url'),
    };
    return JSON.parse(cipher.openValue(sealed, context)) as T;
  } catch {
    return undefined;
  }
}
