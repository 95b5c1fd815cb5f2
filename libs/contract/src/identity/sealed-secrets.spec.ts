import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { SealedSecretUnreadable, SecretSealer, sealingKeyId, UnknownSealingKey } from './sealed-secrets';

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const PROJECT = '1b0c7a36-4b4e-4d8e-9d57-0f7a1c9e2b11';
const OTHER_PROJECT = '2c1d8b47-5c5f-4e9f-8e68-1a8b2d0f3c22';

const LABEL = 'arbor-test-key-id';
const sealer = (current: string, previousKeys: string[] = []) => new SecretSealer({ currentKey: current, previousKeys, keyIdLabel: LABEL });

describe('SecretSealer', () => {
  it('seals under the current key with a fresh nonce each time, and opens what it sealed', () => {
    const cipher = sealer(KEY_A);
    const first = cipher.seal('ghs_demoAlphaToken0001', PROJECT);
    const second = cipher.seal('ghs_demoAlphaToken0001', PROJECT);
    expect(first.keyId).toBe(sealingKeyId(Buffer.from(KEY_A, 'base64'), LABEL));
    expect(first.nonce).toHaveLength(12);
    expect(first.nonce.equals(second.nonce)).toBe(false);
    expect(first.ciphertext.equals(second.ciphertext)).toBe(false);
    expect(first.ciphertext.toString('utf8')).not.toContain('ghs_');
    expect(cipher.open(first, PROJECT)).toBe('ghs_demoAlphaToken0001');
  });

  it('binds a ciphertext to its project', () => {
    const cipher = sealer(KEY_A);
    expect(() => cipher.open(cipher.seal('token', PROJECT), OTHER_PROJECT)).toThrow(SealedSecretUnreadable);
  });

  it('refuses an altered ciphertext', () => {
    const cipher = sealer(KEY_A);
    const sealed = cipher.seal('token', PROJECT);
    sealed.ciphertext[0] ^= 1;
    expect(() => cipher.open(sealed, PROJECT)).toThrow(SealedSecretUnreadable);
  });

  it('opens with a previous key and seals with the current one', () => {
    const old = sealer(KEY_A).seal('token', PROJECT);
    const rotated = sealer(KEY_B, [KEY_A]);
    expect(rotated.knows(old.keyId)).toBe(true);
    expect(rotated.open(old, PROJECT)).toBe('token');
    expect(rotated.seal('token', PROJECT).keyId).toBe(rotated.currentKeyId);
    expect(rotated.currentKeyId).not.toBe(old.keyId);
  });

  it('names the key id it does not know', () => {
    const old = sealer(KEY_A).seal('token', PROJECT);
    const withoutA = sealer(KEY_B);
    expect(withoutA.knows(old.keyId)).toBe(false);
    expect(() => withoutA.open(old, PROJECT)).toThrow(UnknownSealingKey);
    expect(() => withoutA.open(old, PROJECT)).toThrow(old.keyId);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => sealer(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => sealer(KEY_A, ['c2hvcnQ='])).toThrow(/32 bytes/);
  });

  it('keeps the key ids services stored before it was shared (label, colon, key)', () => {
    const key = Buffer.from(KEY_A, 'base64');
    const before = createHash('sha256').update('arbor-master-key-id:').update(key).digest('hex').slice(0, 16);
    expect(sealingKeyId(key, 'arbor-master-key-id')).toBe(before);
  });
});
