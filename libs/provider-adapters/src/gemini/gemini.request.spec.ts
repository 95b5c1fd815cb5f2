import { ProviderError } from '../lib/provider-error';
import { toGenerateContentRequest } from './gemini.request';

describe('chat completions as Gemini generateContent requests', () => {
  it('moves system messages to systemInstruction and names turns user and model', () => {
    const request = toGenerateContentRequest({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'how are you?' },
      ],
    });
    expect(request.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] });
    expect(request.contents).toEqual([
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'hello' }] },
      { role: 'user', parts: [{ text: 'how are you?' }] },
    ]);
  });

  it('merges consecutive turns of one role, since Gemini wants them alternating', () => {
    const request = toGenerateContentRequest({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
      ],
    });
    expect(request.contents).toEqual([{ role: 'user', parts: [{ text: 'one' }, { text: 'two' }] }]);
  });

  it('sends data: URL images inline and other URLs as fileData with a guessed MIME type', () => {
    const request = toGenerateContentRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?size=2', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
          ],
        },
      ],
    });
    expect(request.contents[0]?.parts).toEqual([
      { text: 'compare' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'https://example.com/cat.webp?size=2', mimeType: 'image/webp' } },
      { fileData: { fileUri: 'https://example.com/photo', mimeType: 'image/jpeg' } },
    ]);
  });

  it('declares tools as functionDeclarations and maps every tool_choice', () => {
    const tools = [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
      },
    ];
    const request = toGenerateContentRequest({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'required' });
    expect(request.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather now', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false } },
        ],
      },
    ]);
    expect(request.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    const choice = (toolChoice: unknown) => toGenerateContentRequest({ messages: [], tools, tool_choice: toolChoice }).toolConfig?.functionCallingConfig;
    expect(choice('auto')).toEqual({ mode: 'AUTO' });
    expect(choice('none')).toEqual({ mode: 'NONE' });
    expect(choice({ type: 'function', function: { name: 'get_weather' } })).toEqual({ mode: 'ANY', allowedFunctionNames: ['get_weather'] });
  });

  it('turns a tool round trip into functionCall and functionResponse parts, parallel results in one turn', () => {
    const request = toGenerateContentRequest({
      messages: [
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1__thought__c2lnbmF0dXJl', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1__thought__c2lnbmF0dXJl', content: '{"temperature":21}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'sunny' },
      ],
    });
    expect(request.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          // The thought signature Gemini gave the call goes back with it (Gemini 3 insists).
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' },
          { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 21 } } }, { functionResponse: { name: 'get_weather', response: { content: 'sunny' } } }],
      },
    ]);
  });

  it('takes null parameters as absent, as OpenAI does', () => {
    const request = toGenerateContentRequest({ messages: [{ role: 'user', content: 'x' }], tools: null, tool_choice: null, response_format: null, stop: null, temperature: null });
    expect(request).toEqual({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
  });

  it('refuses a tool result that answers no earlier tool call', () => {
    const error = (() => {
      try {
        return toGenerateContentRequest({ messages: [{ role: 'tool', tool_call_id: 'call_x', content: '1' }] });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(400);
    expect((error as ProviderError).param).toBe('messages');
  });

  it('puts sampling, length, stop and format parameters in generationConfig', () => {
    const request = toGenerateContentRequest({
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.2,
      top_p: 0.9,
      n: 2,
      seed: 42,
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
      max_completion_tokens: 300,
      stop: 'END',
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
    });
    expect(request.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      candidateCount: 2,
      seed: 42,
      presencePenalty: 0.1,
      frequencyPenalty: 0.3,
      maxOutputTokens: 300,
      stopSequences: ['END'],
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
    const jsonMode = toGenerateContentRequest({ messages: [], response_format: { type: 'json_object' }, max_tokens: 10, stop: ['a', 'b'] });
    expect(jsonMode.generationConfig).toEqual({ responseMimeType: 'application/json', maxOutputTokens: 10, stopSequences: ['a', 'b'] });
  });
});
