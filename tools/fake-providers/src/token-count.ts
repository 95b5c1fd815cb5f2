// The fakes' tokenizer for the count-tokens endpoints: one token per word of every text in the
// request (message text, system prompts, tool descriptions), so that tests can predict a count
// and tell a counted request from an estimate.

/** Words in the texts of a request in any vendor's shape (`text`, string `content` and `system`, `description`). */
export function fakeTokenCount(value: unknown, key = ''): number {
  if (typeof value === 'string') return ['text', 'content', 'system', 'description'].includes(key) ? value.split(/\s+/).filter(Boolean).length : 0;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + fakeTokenCount(item, key === 'system' || key === 'content' ? 'text' : key), 0);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).reduce<number>((sum, [name, item]) => sum + fakeTokenCount(item, name), 0);
  }
  return 0;
}
