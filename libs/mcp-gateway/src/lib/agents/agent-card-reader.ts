import type { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { checkUpstreamUrl, UpstreamUrlRefused } from '../registry/upstream-url-guard';
import { guardedFetch } from '../upstreams/upstream-http';

/** The interface bindings the gateway reaches agents on (gRPC is not served). */
export const SPOKEN_BINDINGS = ['JSONRPC', 'HTTP+JSON'];
const CARD_TIMEOUT_MS = 10_000;

/** Why a card could not be read; the message names no path, query or header. */
export class CardUnreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardUnreadable';
  }
}

/**
 * Reads an agent's card with the SDK's resolver (a v0.3 card through its compat layer, as a v1.0
 * card whose interfaces say 0.3), on connections the address guard checks; `url` is the agent's
 * base URL (its card at `/.well-known/agent-card.json`) or a `.json` card URL. The card's own
 * interface URLs pass the same guard, and it must name one the gateway speaks.
 */
export async function readAgentCard(url: string, headers: Readonly<Record<string, string>>, allowLinkLocal: boolean): Promise<AgentCard> {
  await guard(url, allowLinkLocal);
  const fetchGuarded = guardedFetch(allowLinkLocal);
  const resolver = new DefaultAgentCardResolver({
    legacyCompat: { enabled: true },
    fetchImpl: (input, init) =>
      fetchGuarded(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers }, signal: AbortSignal.timeout(CARD_TIMEOUT_MS), redirect: 'error' }),
  });
  let card: AgentCard;
  try {
    card = new URL(url).pathname.endsWith('.json') ? await resolver.resolve(url, '') : await resolver.resolve(url);
  } catch (error) {
    throw new CardUnreadable(describe(error));
  }
  const spoken = card.supportedInterfaces.filter((entry) => SPOKEN_BINDINGS.includes(entry.protocolBinding));
  if (spoken.length === 0) throw new CardUnreadable('the card names no JSON-RPC or HTTP+JSON interface');
  for (const entry of spoken) await guard(entry.url, allowLinkLocal);
  return card;
}

async function guard(url: string, allowLinkLocal: boolean): Promise<void> {
  try {
    await checkUpstreamUrl(url, { allowLinkLocal });
  } catch (error) {
    if (error instanceof UpstreamUrlRefused) throw new CardUnreadable(error.message.replace('upstream', 'agent'));
    throw error;
  }
}

/** A failure in words, without the URL (undici's "fetch failed" hides the cause). */
export function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'the host does not resolve';
  if (cause?.code === 'EUPSTREAMREFUSED' && cause.message) return cause.message.replace('upstream', 'agent');
  if ((error as Error).name === 'TimeoutError') return 'no answer in time';
  const message = (error as Error).message ?? String(error);
  // The SDK's resolver names the URL it fetched; the answer's status is what matters.
  return message.replace(/https?:\/\/\S+/g, 'the card URL');
}
