import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

/**
 * oidc-provider's storage (sessions, interactions, codes, grants, refresh tokens) in memory, one
 * store per provider instance. JWT access tokens are never stored. Our own rather than the
 * library's built-in one, which is shared by every provider in the process and warns on start.
 */
export function createMemoryAdapter(): (modelName: string) => Adapter {
  const entries = new Map<string, Entry>();
  const byGrant = new Map<string, Set<string>>();
  const byUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();

  const read = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };

  return (modelName) => {
    const keyOf = (id: string) => `${modelName}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        const key = keyOf(id);
        entries.set(key, { payload, expiresAt: Date.now() + expiresIn * 1000 });
        if (payload.grantId) {
          const keys = byGrant.get(payload.grantId) ?? new Set<string>();
          byGrant.set(payload.grantId, keys.add(key));
        }
        if (payload.uid) byUid.set(payload.uid, id);
        if (payload.userCode) byUserCode.set(payload.userCode, id);
      },
      async find(id) {
        return read(keyOf(id));
      },
      async findByUid(uid) {
        const id = byUid.get(uid);
        return id === undefined ? undefined : read(keyOf(id));
      },
      async findByUserCode(userCode) {
        const id = byUserCode.get(userCode);
        return id === undefined ? undefined : read(keyOf(id));
      },
      async consume(id) {
        const payload = read(keyOf(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const key of byGrant.get(grantId) ?? []) entries.delete(key);
        byGrant.delete(grantId);
      },
    };
  };
}
