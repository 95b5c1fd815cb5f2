import type { ProviderError } from '../lib/provider-error';

// How much shorter than the upstream's own limit the shortened input aims to be: sizes are
// measured in characters here, tokens there.
const MARGIN = 0.9;
// Without the sizes in the upstream's message, each try keeps this share of the input.
const UNKNOWN_RATIO = 0.5;

// The sizes that providers' "too long" messages carry, as [used, limit] of each wording:
// OpenAI's "maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens",
// Anthropic's "prompt is too long: 208310 tokens > 200000 maximum",
// Gemini's "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)".
const SIZES: readonly [RegExp, (match: RegExpExecArray) => [string, string]][] = [
  [/maximum context length is (\d+) tokens.*?resulted in (\d+) tokens/is, (m) => [m[2] as string, m[1] as string]],
  [/(\d+) tokens > (\d+)/, (m) => [m[1] as string, m[2] as string]],
  [/input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i, (m) => [m[1] as string, m[2] as string]],
];

type Item = Record<string, unknown>;

/** The share of the input the upstream would take, from its error's wording, else a guess. */
function keptShare(error: ProviderError): number {
  for (const [pattern, sizes] of SIZES) {
    const match = pattern.exec(error.message);
    if (!match) continue;
    const [used, limit] = sizes(match).map(Number) as [number, number];
    if (used > 0 && limit > 0 && limit < used) return (limit / used) * MARGIN;
  }
  return UNKNOWN_RATIO;
}

/** A message a turn can start with: the user's (or developer's, or system's) own words. */
function startsTurn(item: Item): boolean {
  return (item['type'] === undefined || item['type'] === 'message') && item['role'] !== 'assistant';
}

/**
 * `truncation: "auto"` for an upstream that does not truncate itself (one reached through chat
 * completions), as OpenAI describes it: an input too long for the model's context window loses
 * items from the beginning of the conversation. Given the request and the upstream's
 * context-window error, the request with the oldest input items dropped so that the input shrinks
 * to the share the error's sizes allow, starting at a message of the user's (never at a tool
 * output whose call was dropped); undefined when it does not ask for truncation or nothing is
 * left to drop (the error then stands). Instructions are kept whole.
 */
export function truncatedForContext(request: Record<string, unknown>, error: ProviderError): Record<string, unknown> | undefined {
  const input = request['input'];
  if (request['truncation'] !== 'auto' || !Array.isArray(input) || input.length < 2) return undefined;
  const items = input as Item[];
  const sizes = items.map((item) => JSON.stringify(item).length);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  const target = total * keptShare(error);
  // The latest turn always stays: from its start on, nothing is dropped.
  let lastTurn = items.length - 1;
  while (lastTurn > 0 && !startsTurn(items[lastTurn] as Item)) lastTurn--;
  let first = 0;
  let kept = total;
  while (first < lastTurn && (kept > target || !startsTurn(items[first] as Item))) kept -= sizes[first++] as number;
  if (first === 0) return undefined;
  return { ...request, input: items.slice(first) };
}
