import { AgentCard } from '@a2a-js/sdk';
import { HeaderCipher, HeadersUnreadable } from '../registry/header-cipher';
import type { RegistrySource } from '../registry/upstream.entity';
import { SecretsKeyMissing } from '../registry/registry.exception';
import { sameAuth, type UpstreamAuth } from '../credentials/upstream-auth';
import { type AgentAuth, type AgentCardRecord, type AgentDefinition, NO_AUTH, staticHeaders } from './agent-definition';
import { Agent, type AgentAuthSettings } from './agent.entity';

/** An agent as stored, headers opened (never log them), with its card as last read. */
export type StoredAgent = AgentDefinition & { source: RegistrySource; createdAt: Date; updatedAt: Date; card?: AgentCardRecord };

export type AgentChanges = Partial<Omit<AgentDefinition, 'name' | 'description'>> & {
  /** `null` clears it. */
  description?: string | null;
};

/** Sealed under the agent's own context: a ciphertext copied from an upstream (or another agent) does not open. */
const sealingContext = (name: string) => `agent:${name}`;

export function agentRow(definition: AgentDefinition, source: RegistrySource, cipher: HeaderCipher | undefined): Partial<Agent> {
  const auth = definition.auth;
  const headers = staticHeaders(auth);
  let sealed;
  if (Object.keys(headers).length > 0) {
    if (!cipher) throw new SecretsKeyMissing();
    sealed = cipher.seal(headers, sealingContext(definition.name));
  }
  let secret;
  if (auth.type === 'oauth' && auth.clientSecret !== undefined) {
    if (!cipher) throw new SecretsKeyMissing();
    secret = cipher.sealSecret(auth.clientSecret, sealingContext(definition.name));
  }
  return {
    name: definition.name,
    url: definition.url,
    project: definition.project,
    description: definition.description ?? null,
    authKind: auth.type,
    authSettings: authSettings(auth),
    authSecretKeyId: secret?.keyId ?? null,
    authSecretNonce: secret?.nonce ?? null,
    authSecretCiphertext: secret?.ciphertext ?? null,
    authSecretAuthTag: secret?.authTag ?? null,
    headersKeyId: sealed?.keyId ?? null,
    headersNonce: sealed?.nonce ?? null,
    headersCiphertext: sealed?.ciphertext ?? null,
    headersAuthTag: sealed?.authTag ?? null,
    source,
  };
}

export function storedAgent(row: Agent, cipher: HeaderCipher | undefined): StoredAgent {
  const card = readCard(row);
  return {
    name: row.name,
    url: row.url,
    project: row.project,
    ...(row.description !== null ? { description: row.description } : {}),
    auth: agentAuth(row, cipher),
    source: row.source,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(card ? { card } : {}),
  };
}

export function agentHeaders(row: Agent, cipher: HeaderCipher | undefined): Record<string, string> {
  if (row.headersKeyId === null || row.headersNonce === null || row.headersCiphertext === null || row.headersAuthTag === null) return {};
  if (!cipher) throw new HeadersUnreadable(sealingContext(row.name), 'MCPGW_SECRETS_KEY is not set');
  return cipher.open({ keyId: row.headersKeyId, nonce: row.headersNonce, ciphertext: row.headersCiphertext, authTag: row.headersAuthTag }, sealingContext(row.name));
}

/** Whether a stored row says what a definition says (the file's agents are rewritten only when they changed). */
export function sameAgent(row: Agent, definition: AgentDefinition, cipher: HeaderCipher | undefined): boolean {
  if (row.url !== definition.url || row.project !== definition.project || row.description !== (definition.description ?? null) || row.authKind !== definition.auth.type)
    return false;
  try {
    const stored = agentAuth(row, cipher);
    if (stored.type === 'token_exchange' || stored.type === 'oauth') return sameAuth(stored, definition.auth as UpstreamAuth);
    const storedHeaders = staticHeaders(stored);
    const wanted = staticHeaders(definition.auth);
    const keys = Object.keys(storedHeaders);
    return keys.length === Object.keys(wanted).length && keys.every((key) => storedHeaders[key] === wanted[key]);
  } catch (error) {
    if (error instanceof HeadersUnreadable) return false;
    throw error;
  }
}

/** The row's auth, its headers and client secret opened (never log it). */
function agentAuth(row: Agent, cipher: HeaderCipher | undefined): AgentAuth {
  if (row.authKind === 'none') return NO_AUTH;
  if (row.authKind === 'static') return { type: 'static', headers: agentHeaders(row, cipher) };
  const settings = row.authSettings;
  if (row.authKind === 'token_exchange') return { type: 'token_exchange', audience: settings.audience ?? '', ...(settings.scope !== undefined ? { scope: settings.scope } : {}) };
  if (row.authSecretKeyId === null || row.authSecretNonce === null || row.authSecretCiphertext === null || row.authSecretAuthTag === null) return { type: 'oauth', ...settings };
  if (!cipher) throw new HeadersUnreadable(sealingContext(row.name), 'MCPGW_SECRETS_KEY is not set');
  const clientSecret = cipher.openSecret(
    { keyId: row.authSecretKeyId, nonce: row.authSecretNonce, ciphertext: row.authSecretCiphertext, authTag: row.authSecretAuthTag },
    sealingContext(row.name),
  );
  return { type: 'oauth', ...settings, clientSecret };
}

/** The row's OAuth client secret sealed again under the current MCPGW_SECRETS_KEY (a rotation). */
export function resealedAuthSecret(row: Agent, cipher: HeaderCipher): Pick<Agent, 'authSecretKeyId' | 'authSecretNonce' | 'authSecretCiphertext' | 'authSecretAuthTag'> {
  const auth = agentAuth(row, cipher);
  if (auth.type !== 'oauth' || auth.clientSecret === undefined) throw new Error(`agent ${row.name} has no client secret to seal again`);
  const sealed = cipher.sealSecret(auth.clientSecret, sealingContext(row.name));
  return { authSecretKeyId: sealed.keyId, authSecretNonce: sealed.nonce, authSecretCiphertext: sealed.ciphertext, authSecretAuthTag: sealed.authTag };
}

/** A per-caller auth's settings as stored: all but its type and secret. */
function authSettings(auth: AgentAuth): AgentAuthSettings {
  if (auth.type === 'none' || auth.type === 'static') return {};
  if (auth.type === 'token_exchange') return { audience: auth.audience, ...(auth.scope !== undefined ? { scope: auth.scope } : {}) };
  const { type: _type, clientSecret: _secret, ...settings } = auth;
  return settings;
}

export function cardJson(card: AgentCard): object {
  return AgentCard.toJSON(card) as object;
}

function readCard(row: Agent): AgentCardRecord | undefined {
  if (row.card === null || row.card === undefined || row.cardReadAt === null) return undefined;
  return { card: AgentCard.fromJSON(row.card), readAt: row.cardReadAt };
}
