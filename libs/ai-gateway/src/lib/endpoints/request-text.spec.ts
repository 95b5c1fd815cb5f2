import { MESSAGES_TEXT } from './anthropic-messages/messages-text';
import { CHAT_TEXT, COMPLETIONS_TEXT, EMBEDDINGS_TEXT } from './openai/chat-text';
import { RESPONSES_TEXT } from './openai-responses/responses-text';
import type { RequestText } from './request-text';

const upper = (text: string) => text.toUpperCase();
const texts = (codec: RequestText, body: Record<string, unknown>) => {
  const seen: string[] = [];
  codec.map(body, (text) => (seen.push(text), text));
  return seen;
};

describe('where each family carries its text', () => {
  it('finds chat messages of every role, in string and part form, and leaves images and ids alone', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'data:x' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'result' },
      ],
    };
    expect(texts(CHAT_TEXT, body)).toEqual(['sys', 'hi', 'result']);
    expect(CHAT_TEXT.map(body, upper)).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'SYS' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'HI' },
            { type: 'image_url', image_url: { url: 'data:x' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'RESULT' },
      ],
    });
  });

  it("finds completions' prompt and embeddings' input as one text or a list, not token arrays", () => {
    expect(COMPLETIONS_TEXT.map({ prompt: 'a' }, upper)).toEqual({ prompt: 'A' });
    expect(COMPLETIONS_TEXT.map({ prompt: ['a', 'b'] }, upper)).toEqual({ prompt: ['A', 'B'] });
    expect(EMBEDDINGS_TEXT.map({ input: ['a', [1, 2]] }, upper)).toEqual({ input: ['A', [1, 2]] });
  });

  it("finds Anthropic's system prompt, text blocks and tool results", () => {
    const body = {
      system: [{ type: 'text', text: 'sys' }],
      messages: [
        { role: 'user', content: 'q' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'r' }] }] },
      ],
    };
    expect(texts(MESSAGES_TEXT, body)).toEqual(['sys', 'q', 'r']);
  });

  it("finds the Responses API's instructions, message parts and function outputs", () => {
    const body = {
      instructions: 'i',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'u' },
            { type: 'input_image', image_url: 'x' },
          ],
        },
        { type: 'function_call', call_id: 'c', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'o' },
      ],
    };
    expect(texts(RESPONSES_TEXT, body)).toEqual(['i', 'u', 'o']);
    expect(texts(RESPONSES_TEXT, { input: 'plain' })).toEqual(['plain']);
  });

  it('answers the very same request when nothing changed, so an unmasked call is not copied', () => {
    const body = { messages: [{ role: 'user', content: 'same' }] };
    expect(CHAT_TEXT.map(body, (text) => text)).toBe(body);
  });
});
