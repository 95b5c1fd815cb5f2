import { SealedSecret, SealedSecretUnreadable, SecretSealer, UnknownSealingKey } from '@arbor/contract';

/** An upstream's headers as stored: sealed JSON, never the plaintext. */
export type SealedHeaders = SealedSecret;

/** The label of the key ids stored beside upstream headers (ids written before the shared sealer keep matching). */
const KEY_ID_LABEL = 'arbor-mcp-gateway-key-id';

/**
 * Upstream headers sealed by the suite's SecretSealer under MCPGW_SECRETS_KEY, the upstream's
 * name as context (a ciphertext copied onto another upstream does not open). During a key
 * rotation MCPGW_SECRETS_PREVIOUS_KEYS still open what they sealed, and the registry re-seals
 * it under the current key at start.
 */
export class HeaderCipher {
  private readonly sealer: SecretSealer;

  constructor(secretsKey: string, previousKeys: readonly string[] = []) {
    this.sealer = new SecretSealer({ currentKey: secretsKey, previousKeys, keyIdLabel: KEY_ID_LABEL, keyName: 'MCPGW_SECRETS_KEY' });
  }

  get keyId(): string {
    return this.sealer.currentKeyId;
  }

  /** Sealed under a previous key this cipher still holds: to be sealed again under the current one. */
  isStale(keyId: string): boolean {
    return keyId !== this.sealer.currentKeyId && this.sealer.knows(keyId);
  }

  seal(headers: Readonly<Record<string, string>>, upstream: string): SealedHeaders {
    return this.sealer.seal(JSON.stringify(headers), upstream);
  }

  /** An upstream's other secret (an `oauth` client secret), sealed under its own context so it never opens as headers. */
  sealSecret(value: string, upstream: string): SealedHeaders {
    return this.sealer.seal(value, `${upstream}#auth`);
  }

  /** Any other secret of the gateway's (OAuth tokens, connection states) under MCPGW_SECRETS_KEY; `context` binds it to where it belongs. */
  sealValue(value: string, context: string): SealedSecret {
    return this.sealer.seal(value, context);
  }

  /** Throws SealedSecretUnreadable or UnknownSealingKey (altered, another context's, or a key no longer held). */
  openValue(sealed: SealedSecret, context: string): string {
    return this.sealer.open(sealed, context);
  }

  openSecret(sealed: SealedHeaders, upstream: string): string {
    try {
      return this.sealer.open(sealed, `${upstream}#auth`);
    } catch (error) {
      if (error instanceof UnknownSealingKey || error instanceof SealedSecretUnreadable)
        throw new HeadersUnreadable(upstream, 'its client secret does not open under MCPGW_SECRETS_KEY');
      throw error;
    }
  }

  /** Throws HeadersUnreadable when no configured key sealed them or the ciphertext does not authenticate (altered, or another upstream's). */
  open(sealed: SealedHeaders, upstream: string): Record<string, string> {
    try {
      return JSON.parse(this.sealer.open(sealed, upstream)) as Record<string, string>;
    } catch (error) {
      if (error instanceof UnknownSealingKey) {
        throw new HeadersUnreadable(upstream, `they were encrypted under another MCPGW_SECRETS_KEY (key id ${sealed.keyId}); give it in MCPGW_SECRETS_PREVIOUS_KEYS`);
      }
      if (error instanceof SealedSecretUnreadable) throw new HeadersUnreadable(upstream, 'they do not authenticate');
      throw error;
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
