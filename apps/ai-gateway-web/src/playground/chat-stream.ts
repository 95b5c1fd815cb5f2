import OpenAI from 'openai';

export type ChatTurn = { role: 'user' | 'assistant'; content: string };

/** The usage of a streamed chat, with the gateway's cost of it (null when it gave none). */
export type ChatUsage = { prompt_tokens: number; completion_tokens: number; cost: number | null };

/** What a streamed chat tells as it goes: the gateway's x-arbor-* headers first, then the answer piece by piece. */
export interface ChatListener {
  onHeaders(headers: [string, string][]): void;
  onText(text: string): void;
}

/**
 * The official OpenAI SDK against this gateway (the UI's own origin, so no CORS), with a key the
 * person gave this page: the secret lives in this client only, in memory, never in storage.
 */
export function playgroundClient(secret: string): OpenAI {
  return new OpenAI({ apiKey: secret, baseURL: `${window.location.origin}/v1`, maxRetries: 0, dangerouslyAllowBrowser: true });
}

/** A chat completion streamed to `listener`; answers the usage, which comes in the last chunk with the gateway's `usage.cost`. */
export async function streamChat(client: OpenAI, alias: string, turns: ChatTurn[], listener: ChatListener, signal?: AbortSignal): Promise<ChatUsage | null> {
  const { data: stream, response } = await client.chat.completions
    .create({ model: alias, messages: turns, stream: true, stream_options: { include_usage: true } }, { signal })
    .withResponse();
  listener.onHeaders([...response.headers.entries()].filter(([name]) => name.startsWith('x-arbor-')).sort(([a], [b]) => a.localeCompare(b)));
  let usage: ChatUsage | null = null;
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta.content;
    if (text) listener.onText(text);
    if (chunk.usage) {
      // Not in the SDK's types: the gateway adds the call's cost to usage, as OpenRouter does.
      const cost = (chunk.usage as { cost?: unknown }).cost;
      usage = { prompt_tokens: chunk.usage.prompt_tokens, completion_tokens: chunk.usage.completion_tokens, cost: typeof cost === 'number' ? cost : null };
    }
  }
  return usage;
}
