import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateStreamedUsage, promptTokensOf, StreamedAnswer } from './usage-estimate';

const event = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
const delta = (fields: Record<string, unknown>) => event({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: fields, finish_reason: null }] });

describe('usage of a stream the client hung up on', () => {
  it('counts the prompt as OpenAI does: 3 tokens a message, 3 for the reply, plus the text', async () => {
    const body = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hello there' }] },
      ],
    };
    const expected = 3 + (3 + countTokens('system\nBe brief.')) + (3 + countTokens('user\nHello there'));
    expect(await promptTokensOf(body)).toBe(expected);
    // Tool definitions are part of the prompt too.
    expect(await promptTokensOf({ ...body, tools: [{ type: 'function', function: { name: 'get_weather' } }] })).toBeGreaterThan(expected);
    expect(await promptTokensOf({ prompt: 'Say this is a test' })).toBe(countTokens('Say this is a test'));
    // Embeddings: texts or token ids.
    expect(await promptTokensOf({ input: ['Say this', 'is a test'] })).toBe(countTokens('Say this') + countTokens('is a test'));
    expect(
      await promptTokensOf({
        input: [
          [1, 2, 3],
          [4, 5],
        ],
      }),
    ).toBe(5);
  });

  it('counts an Anthropic Messages stream too: text, thinking apart, tool input', () => {
    const messagesEvent = (data: Record<string, unknown>) => `event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`;
    const answer = new StreamedAnswer();
    answer.push(
      [
        messagesEvent({ type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 9, output_tokens: 1 } } }),
        messagesEvent({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } }),
        messagesEvent({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
        messagesEvent({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'It is sunny.' } }),
        messagesEvent({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
      ].join(''),
    );
    expect(answer.text()).toEqual({ completion: 'It is sunny.{"city":', reasoning: 'Hmm.' });
  });

  it('counts text that looks like a special token as text, not as an error', async () => {
    expect(await promptTokensOf({ prompt: 'ends with <|endoftext|>' })).toBeGreaterThan(3);
  });

  it('counts the answer streamed so far, split anywhere, with reasoning apart and a cut-off last event ignored', async () => {
    const stream = [
      delta({ role: 'assistant', content: '' }),
      delta({ reasoning_content: 'Let me think about the weather.' }),
      delta({ content: 'The weather in Paris ' }),
      delta({ content: 'is sunny.' }),
      delta({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
      event({ choices: [], usage: null }),
      'data: {"choices":[{"delta":{"content":"never fin',
    ].join('');
    const answer = new StreamedAnswer();
    const bytes = Buffer.from(stream);
    // Split mid-event and mid-character (UTF-8) does not matter.
    for (let at = 0; at < bytes.length; at += 7) answer.push(bytes.subarray(at, at + 7));
    expect(answer.text()).toEqual({ completion: 'The weather in Paris is sunny.get_weather{"city":', reasoning: 'Let me think about the weather.' });

    const usage = await estimateStreamedUsage({ messages: [{ role: 'user', content: 'weather?' }] }, answer);
    const reasoning = countTokens('Let me think about the weather.');
    expect(usage).toEqual({
      promptTokens: 3 + 3 + countTokens('user\nweather?'),
      completionTokens: countTokens('The weather in Paris is sunny.get_weather{"city":') + reasoning,
      cachedTokens: 0,
      reasoningTokens: reasoning,
      estimated: true,
    });
  });

  it('keeps a long stream as text, parsed every 64 KiB, and counts a long prompt in pieces', async () => {
    const answer = new StreamedAnswer();
    const word = 'données ';
    for (let i = 0; i < 20_000; i++) answer.push(delta({ content: word }));
    expect(answer.text().completion).toBe(word.repeat(20_000));
    const long = 'lorem ipsum dolor sit amet '.repeat(5_000);
    expect(await promptTokensOf({ prompt: long })).toBeCloseTo(countTokens(long), -1);
  });

  it('reads the completions shape (choices[].text) as well', () => {
    const answer = new StreamedAnswer();
    answer.push(event({ object: 'text_completion', choices: [{ index: 0, text: 'fake answer', finish_reason: null }] }));
    answer.push('data: [DONE]\n\n');
    expect(answer.text().completion).toBe('fake answer');
  });
});
