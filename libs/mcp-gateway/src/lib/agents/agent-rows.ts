import { AgentCard } from '@a2a-js/sdk';
import { HeaderCipher, HeadersUnreadable } from '../registry/header-cipher';
import type { RegistrySource } from '../registry/upstream.entity';
import { SecretsKeyMissing } from '../registry/registry.exception';
import type { AgentCardRecord, AgentDefinition } from './agent-definition';
import { Agent } from './agent.entity';

/** An agent as stored, headers opened (never log them), with its card as last read. */
export type StoredAgent = AgentDefinition & { source: RegistrySource; createdAt: Date; updatedAt: Date; card?: AgentCardRecord };

export type AgentChanges = Partial<Omit<AgentDefinition, 'name' | 'description'>> & {
  /** `null` clears it. */
  description?: string | null;
};

/** Sealed under the agent's own context: a ciphertext copied from an upstream (or another agent) does not open. */
const sealingContext = (name: string) => `agent:${name}`;

export function agentRow(definition: AgentDefinition, source: RegistrySource, cipher: HeaderCipher | undefined): Partial<Agent> {
  const headers = definition.auth.kind === 'static' ? definition.auth.headers : {};
  let sealed;
  if (Object.keys(headers).length > 0) {
    if (!cipher) throw new SecretsKeyMissing();
    sealed = cipher.seal(headers, sealingContext(definition.name));
  }
  return {
    name: definition.name,
    url: definition.url,
    project: definition.project,
    description: definition.description ?? null,
    authKind: definition.auth.kind,
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
    auth: row.authKind === 'static' ? { kind: 'static', headers: agentHeaders(row, cipher) } : { kind: 'none' },
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
  if (row.url !== definition.url || row.project !== definition.project || row.description !== (definition.description ?? null) || row.authKind !== definition.auth.kind)
    return false;
  try {
    const stored = agentHeaders(row, cipher);
    const wanted = definition.auth.kind === 'static' ? definition.auth.headers : {};
    const keys = Object.keys(stored);
    return keys.length === Object.keys(wanted).length && keys.every((key) => stored[key] === wanted[key]);
  } catch (error) {
    if (error instanceof HeadersUnreadable) return false;
    throw error;
  }
}

export function cardJson(card: AgentCard): object {
  return AgentCard.toJSON(card) as object;
}

function readCard(row: Agent): AgentCardRecord | undefined {
  if (row.card === null || row.card === undefined || row.cardReadAt === null) return undefined;
  return { card: AgentCard.fromJSON(row.card), readAt: row.cardReadAt };
}
