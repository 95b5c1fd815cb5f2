import { ProviderError } from '../lib/provider-error';
import { toTextCompletion } from './chat-to-completions.answer';
import { ChatToCompletionsStream } from './chat-to-completions.stream';
import { toChatRequest } from './completions-to-chat.request';

const options = { provider: 'anthropic', dropParams: false };

describe('completions bridged through chat completions', () => {
  it('sends the prompt as one user message, the other parameters by their own names', () => {
    expect(toChatRequest({ model: 'claude', prompt: 'Once upon', max_tokens: 5, temperature: 0, stop: ['\n'], stream: true, user: 'u', echo: false }, options)).toEqual({
      model: 'claude',
      messages: [{ role: 'user', content: 'Once upon' }],
      max_tokens: 5,
      temperature: 0,
      stop: ['\n'],
      stream: true,
      user: 'u',
    });
    expect(toChatRequest({ model: 'claude', prompt: ['only one'] }, options)['messages']).toEqual([{ role: 'user', content: 'only one' }]);
  });

  it('refuses what chat cannot carry naming it, and drops it under drop_params', () => {
    for (const [param, value] of [
      ['suffix', ' end'],
      ['logprobs', 2],
      ['best_of', 3],
    ] as const) {
      expect(() => toChatRequest({ model: 'claude', prompt: 'x', [param]: value }, options)).toThrow(expect.objectContaining({ status: 400, param }));
      expect(toChatRequest({ model: 'claude', prompt: 'x', [param]: value }, { ...options, dropParams: true })).not.toHaveProperty(param);
    }
    for (const prompt of [
      ['a', 'b'],
      [1, 2, 3],
    ]) {
      const error = (() => {
        try {
          toChatRequest({ model: 'claude', prompt }, { ...options, dropParams: true });
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ status: 400, param: 'prompt' });
    }
  });

  it('answers the message text as choices[].text (after the prompt with echo), with finish reason and usage', () => {
    const chat = JSON.stringify({
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 7,
      model: 'claude-sonnet-4-6',
      choices: [{ index: 0, message: { role: 'assistant', content: ' there' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    expect(toTextCompletion(chat, { model: 'claude', prompt: 'Hello', echo: true })).toEqual({
      id: 'cmpl-abc',
      object: 'text_completion',
      created: 7,
      model: 'claude-sonnet-4-6',
      choices: [{ index: 0, text: 'Hello there', logprobs: null, finish_reason: 'length' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
  });

  it('streams each content delta as a text chunk, the usage chunk, then [DONE]', () => {
    const stream = new ChatToCompletionsStream('claude', '');
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
    const events = [
      ...stream.push(chunk({ role: 'assistant', content: '' })),
      ...stream.push(chunk({ content: 'Hi' })),
      ...stream.push(chunk({ content: ' you' })),
      ...stream.push(chunk({}, 'stop')),
      ...stream.push(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 2, completion_tokens: 2 } })),
      ...stream.push('[DONE]'),
      ...stream.end(),
    ];
    expect(events).toEqual([
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: 'Hi', logprobs: null, finish_reason: null }] },
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: ' you', logprobs: null, finish_reason: null }] },
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }] },
      { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 2, completion_tokens: 2 } },
      '[DONE]',
    ]);
  });
});
