import type { EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../lib/provider-error';
import { toChatCompletion } from './gemini.response';
import { toChatCompletionChunks } from './gemini.stream';

describe('Gemini answers as chat completions', () => {
  it('joins text parts, returns thought summaries as reasoning_content, counts thinking as completion tokens and cached tokens as prompt details', () => {
    const completion = toChatCompletion(
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: 'Hello ' }, { text: 'there' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 6, cachedContentTokenCount: 3, totalTokenCount: 20 },
        modelVersion: 'gemini-2.5-flash',
        responseId: 'abc',
      },
      'gemini-2.5-flash',
      1700000000,
    );
    expect(completion).toEqual({
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gemini-2.5-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there', refusal: null, reasoning_content: 'thinking…' }, logprobs: null, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 10,
        total_tokens: 20,
        prompt_tokens_details: { cached_tokens: 3 },
        completion_tokens_details: { reasoning_tokens: 6 },
      },
    });
  });

  it('turns function calls into tool calls with call_ ids and JSON arguments, finishing with tool_calls', () => {
    const completion = toChatCompletion(
      {
        candidates: [{ content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2ln' }] }, finishReason: 'STOP' }],
      },
      'gemini-2.5-flash',
      0,
    ) as { choices: { message: { content: unknown; tool_calls: { id: string; type: string; function: unknown }[] }; finish_reason: string }[] };
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_\w+__thought__c2ln$/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['OTHER', 'stop'],
  ])('reports finishReason %s as %s', (reason, expected) => {
    const completion = toChatCompletion({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: reason }] }, 'm', 0) as { choices: { finish_reason: string }[] };
    expect(completion.choices[0]?.finish_reason).toBe(expected);
  });

  it('answers a blocked prompt (no candidates) with content_filter', () => {
    const completion = toChatCompletion({ promptFeedback: { blockReason: 'SAFETY' } }, 'm', 0) as { choices: { finish_reason: string; message: { content: unknown } }[] };
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);
  });
});

async function* events(...data: unknown[]): AsyncGenerator<EventSourceMessage> {
  for (const item of data) yield { data: JSON.stringify(item), event: undefined, id: undefined };
}

async function collect(chunks: AsyncIterable<unknown>): Promise<unknown[]> {
  const result = [];
  for await (const chunk of chunks) result.push(chunk);
  return result;
}

describe('Gemini streams as chat completion chunks', () => {
  it('sends the role first, text deltas, a finish chunk and the usage chunk of the last usageMetadata', async () => {
    const chunks = (await collect(
      toChatCompletionChunks(
        events(
          { candidates: [{ content: { parts: [{ text: 'Hel' }] }, index: 0 }], usageMetadata: { promptTokenCount: 5 }, responseId: 'r1', modelVersion: 'gemini-2.5-flash' },
          {
            candidates: [{ content: { parts: [{ text: 'lo' }] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, thoughtsTokenCount: 1 },
            responseId: 'r1',
          },
        ),
        'gemini-2.5-flash',
        1,
        true,
      ),
    )) as { id: string; model: string; choices: { delta: unknown; finish_reason: string | null }[]; usage?: unknown }[];
    expect(chunks.map((chunk) => chunk.choices.map((choice) => [choice.delta, choice.finish_reason]))).toEqual([
      [[{ role: 'assistant', content: 'Hel' }, null]],
      [[{ content: 'lo' }, null]],
      [[{}, 'stop']],
      [],
    ]);
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-r1']));
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 3,
      total_tokens: 8,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
  });

  it('streams a function call as a whole tool call delta and finishes with tool_calls, without usage unless asked', async () => {
    const chunks = (await collect(
      toChatCompletionChunks(events({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP' }] }), 'm', 1, false),
    )) as { choices: { delta: { tool_calls?: unknown }; finish_reason: string | null }[] }[];
    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.choices[0]?.delta.tool_calls).toEqual([{ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'f', arguments: '{"a":1}' } }]);
    expect(chunks[1]?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('throws the mapped ProviderError on an error event mid-stream', async () => {
    const chunks = toChatCompletionChunks(
      events({ candidates: [{ content: { parts: [{ text: 'Hel' }] } }] }, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }),
      'm',
      1,
      true,
    );
    const error = await collect(chunks).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(503);
    expect((error as ProviderError).message).toBe('The model is overloaded.');
  });

  it('throws a 502 ProviderError when the connection breaks off', async () => {
    async function* broken(): AsyncGenerator<EventSourceMessage> {
      yield { data: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'Hel' }] } }] }), event: undefined, id: undefined };
      throw new Error('socket hang up');
    }
    const error = await collect(toChatCompletionChunks(broken(), 'm', 1, true)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(502);
  });
});
