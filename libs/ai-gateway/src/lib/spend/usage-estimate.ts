import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
// o200k_base for every model: exact for current OpenAI models, an estimate for the others (no
// vendor publishes Claude's or Gemini's tokenizer). The encoding ships inside the package.
import type { countTokens as CountTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CallUsage } from '../calls/usage';

// Raw stream bytes are reduced to their text this often, so a long stream holds its text, not its framing.
const COMPACT_AT_BYTES = 64 * 1024;
// A large prompt is counted a piece at a time, letting other calls run in between.
const PIECE_CHARS = 16 * 1024;
// OpenAI's documented chat framing: each message costs 3 tokens around its content, the reply 3 more.
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY = 3;
// Text that looks like a special token (<|endoftext|>) is counted as text, as the provider treats user input.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The text of an answer stream as it went by (content, refusals, tool calls; reasoning apart), in
 * OpenAI-format chunks or Anthropic Messages events, so that a stream the client hung up on can still be priced. push() only keeps a
 * reference to the chunk; parsing happens every 64 KiB and at the end, never per chunk.
 */
export class StreamedAnswer {
  private raw: (Buffer | string)[] = [];
  private rawBytes = 0;
  private readonly decoder = new StringDecoder('utf8');
  private partialEvent = '';
  private readonly completion: string[] = [];
  private readonly reasoning: string[] = [];

  push(chunk: Buffer | string): void {
    this.raw.push(chunk);
    this.rawBytes += chunk.length;
    if (this.rawBytes >= COMPACT_AT_BYTES) this.compact(false);
  }

  /** What was streamed so far: the answer's text and, apart, its reasoning text. */
  text(): { completion: string; reasoning: string } {
    this.compact(true);
    return { completion: this.completion.join(''), reasoning: this.reasoning.join('') };
  }

  private compact(toTheEnd: boolean): void {
    let text = this.partialEvent;
    for (const chunk of this.raw) text += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (toTheEnd) text += this.decoder.end();
    this.raw = [];
    this.rawBytes = 0;
    const end = toTheEnd ? text.length : afterLastEvent(text);
    this.partialEvent = text.slice(end);
    if (end > 0) this.readEvents(text.slice(0, end));
  }

  private readEvents(events: string): void {
    for (const match of events.matchAll(/^data: ?(.+)$/gm)) {
      const data = match[1]?.trim();
      if (!data || data === '[DONE]') continue;
      let chunk: { choices?: unknown; type?: unknown; delta?: Record<string, unknown> };
      try {
        chunk = JSON.parse(data) as typeof chunk;
      } catch {
        continue; // cut off mid-event by the hang-up
      }
      if (chunk.type === 'content_block_delta' && chunk.delta) this.readMessagesDelta(chunk.delta);
      if (!Array.isArray(chunk.choices)) continue;
      for (const choice of chunk.choices as Record<string, unknown>[]) this.readChoice(choice);
    }
  }

  private readMessagesDelta(delta: Record<string, unknown>): void {
    for (const field of ['text', 'partial_json'] as const) {
      if (typeof delta[field] === 'string') this.completion.push(delta[field]);
    }
    if (typeof delta['thinking'] === 'string') this.reasoning.push(delta['thinking']);
  }

  private readChoice(choice: Record<string, unknown>): void {
    if (typeof choice['text'] === 'string') this.completion.push(choice['text']); // completions
    const delta = choice['delta'] as Record<string, unknown> | undefined;
    if (typeof delta !== 'object' || delta === null) return;
    for (const field of ['content', 'refusal'] as const) {
      if (typeof delta[field] === 'string') this.completion.push(delta[field]);
    }
    if (typeof delta['reasoning_content'] === 'string') this.reasoning.push(delta['reasoning_content']);
    if (Array.isArray(delta['tool_calls'])) {
      for (const call of delta['tool_calls'] as { function?: { name?: unknown; arguments?: unknown } }[]) {
        if (typeof call?.function?.name === 'string') this.completion.push(call.function.name);
        if (typeof call?.function?.arguments === 'string') this.completion.push(call.function.arguments);
      }
    }
  }
}

/**
 * The usage of a streamed call the client hung up on: its upstream was stopped before it reported
 * any, yet it read the prompt and wrote part of an answer. Prompt tokens are counted from the
 * request (messages, tool definitions; images are not counted), completion tokens from what was
 * streamed. Marked `estimated`.
 */
export async function estimateStreamedUsage(body: Record<string, unknown>, answer: StreamedAnswer): Promise<CallUsage> {
  const promptTokens = await promptTokensOf(body);
  const { completion, reasoning } = answer.text();
  const reasoningTokens = await countInPieces(reasoning);
  const completionTokens = (await countInPieces(completion)) + reasoningTokens;
  return { promptTokens, completionTokens, cachedTokens: 0, reasoningTokens, estimated: true };
}

/** The usage of a call whose client hung up before any answer: its prompt, estimated. */
export async function estimatePromptUsage(body: Record<string, unknown>): Promise<CallUsage> {
  return { promptTokens: await promptTokensOf(body), completionTokens: 0, cachedTokens: 0, reasoningTokens: 0, estimated: true };
}

/** Prompt tokens of an OpenAI-format chat, completions or embeddings request, by OpenAI's counting rules. */
export async function promptTokensOf(body: Record<string, unknown>): Promise<number> {
  const { messages, tools } = body;
  // Completions take `prompt`, embeddings `input`: text, texts, or token ids.
  const prompt = body['prompt'] ?? body['input'];
  let tokens = 0;
  if (Array.isArray(messages)) {
    tokens += TOKENS_PER_REPLY;
    for (const message of messages as Record<string, unknown>[]) {
      tokens += TOKENS_PER_MESSAGE + (await countInPieces(messageText(message)));
    }
  } else if (typeof prompt === 'string') {
    tokens += await countInPieces(prompt);
  } else if (Array.isArray(prompt)) {
    for (const part of prompt) tokens += typeof part === 'string' ? await countInPieces(part) : Array.isArray(part) ? part.length : 0;
  }
  if (Array.isArray(tools) && tools.length > 0) tokens += await countInPieces(JSON.stringify(tools));
  return tokens;
}

function messageText(message: Record<string, unknown>): string {
  const parts: string[] = [typeof message['role'] === 'string' ? message['role'] : ''];
  if (typeof message['name'] === 'string') parts.push(message['name']);
  const { content } = message;
  if (typeof content === 'string') parts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content as Record<string, unknown>[]) {
      if (typeof part?.['text'] === 'string') parts.push(part['text']);
      else if (typeof part?.['refusal'] === 'string') parts.push(part['refusal']);
    }
  }
  if (Array.isArray(message['tool_calls'])) {
    for (const call of message['tool_calls'] as { function?: { name?: unknown; arguments?: unknown } }[]) {
      if (typeof call?.function?.name === 'string') parts.push(call.function.name);
      if (typeof call?.function?.arguments === 'string') parts.push(call.function.arguments);
    }
  }
  return parts.join('\n');
}

/** Index just after the last complete event (`\n\n` or `\r\n\r\n`), 0 when there is none. */
function afterLastEvent(text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  return Math.max(lf < 0 ? 0 : lf + 2, crlf < 0 ? 0 : crlf + 4);
}

let tokenizer: Promise<typeof CountTokens> | undefined;

/**
 * The tokenizer, loaded the first time a call needs an estimate: its encoding takes about 26 MB
 * and a third of a second to load, which most gateway processes never need.
 */
function loadTokenizer(): Promise<typeof CountTokens> {
  tokenizer ??= import('gpt-tokenizer/encoding/o200k_base').then((encoding) => encoding.countTokens);
  return tokenizer;
}

/** Tokens of `text`, counted in pieces cut at whitespace, with a turn of the event loop between pieces. */
async function countInPieces(text: string): Promise<number> {
  if (text === '') return 0;
  const countTokens = await loadTokenizer();
  if (text.length <= PIECE_CHARS) return countTokens(text, AS_TEXT);
  let tokens = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + PIECE_CHARS, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space;
    }
    tokens += countTokens(text.slice(start, end), AS_TEXT);
    start = end;
    if (start < text.length) await nextTurn();
  }
  return tokens;
}
