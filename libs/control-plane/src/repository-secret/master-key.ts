import { sealingKeyId } from '@arbor/contract';

/** The label of the key ids stored beside repository tokens (ids written before the shared sealer keep matching). */
export const MASTER_KEY_ID_LABEL = 'arbor-master-key-id';

/** The id stored beside each repository token sealed under `key`: a fingerprint, never the key. */
export function masterKeyId(key: Buffer): string {
  return sealingKeyId(key, MASTER_KEY_ID_LABEL);
}
