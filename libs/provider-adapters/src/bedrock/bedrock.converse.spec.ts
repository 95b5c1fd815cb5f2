import { ProviderError } from '../lib/provider-error';
import { toChatCompletion, toConverseRequest } from './bedrock.converse';
import { bedrockError } from './bedrock.error';

describe('chat completions as Bedrock Converse requests', () => {
  it('sends thinking blocks back before the text and tool calls of their turn, and merges parallel tool results into one user turn', () => {
    const request = toConverseRequest({
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: 'two cities?' },
        {
          role: 'assistant',
          content: null,
          thinking_blocks: [{ type: 'thinking', thinking: 'Two calls.', signature: 'sig' }],
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'b', type: 'function', function: { name: 'weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: '21' },
        { role: 'tool', tool_call_id: 'b', content: '18' },
      ],
    });
    expect(request).toEqual({
      system: [{ text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ text: 'two cities?' }] },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Two calls.', signature: 'sig' } } },
            { toolUse: { toolUseId: 'a', name: 'weather', input: { city: 'Paris' } } },
            { toolUse: { toolUseId: 'b', name: 'weather', input: {} } },
          ],
        },
        { role: 'user', content: [{ toolResult: { toolUseId: 'a', content: [{ text: '21' }] } }, { toolResult: { toolUseId: 'b', content: [{ text: '18' }] } }] },
      ],
    });
  });

  it("maps sampling, tool choice, reasoning effort, top_k and Bedrock's own fields", () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    expect(
      toConverseRequest({
        messages: [{ role: 'user', content: 'x' }],
        max_completion_tokens: 9,
        top_p: 0.5,
        stop: ['a'],
        top_k: 40,
        reasoning_effort: 'low',
        tools,
        tool_choice: { type: 'function', function: { name: 'f' } },
        guardrailConfig: { guardrailIdentifier: 'g1', guardrailVersion: '2' },
      }),
    ).toEqual({
      messages: [{ role: 'user', content: [{ text: 'x' }] }],
      inferenceConfig: { maxTokens: 9, topP: 0.5, stopSequences: ['a'] },
      additionalModelRequestFields: { top_k: 40, thinking: { type: 'enabled', budget_tokens: 1024 } },
      toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }], toolChoice: { tool: { name: 'f' } } },
      guardrailConfig: { guardrailIdentifier: 'g1', guardrailVersion: '2' },
    });
    expect(toConverseRequest({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'none' })).not.toHaveProperty('toolConfig');
  });

  it('takes PDFs as document blocks and refuses what Converse cannot take with 400', () => {
    const pdf = toConverseRequest({
      messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'Q3 report.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }] }],
    });
    expect(pdf.messages[0]?.content).toEqual([{ document: { format: 'pdf', name: 'Q3 report', source: { bytes: 'JVBERi0=' } } }]);
    const refused = (body: Record<string, unknown>) => {
      try {
        toConverseRequest(body);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(refused({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }] })).toMatchObject({
      status: 400,
      param: 'messages',
    });
    expect(refused({ messages: [{ role: 'function', content: 'x' }] })).toBeInstanceOf(ProviderError);
    expect(refused({ messages: [{ role: 'user', content: 'x' }], tool_choice: 'any', tools: [] })).toMatchObject({ status: 400, param: 'tool_choice' });
  });
});

describe('Converse answers as chat completions', () => {
  it('carries reasoning as reasoning_content and thinking blocks, tool uses as tool calls, cache tokens inside the prompt', () => {
    const completion = toChatCompletion(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'Hm.', signature: 's1' } } },
              { reasoningContent: { redactedContent: 'b64' } },
              { text: 'Calling.' },
              { toolUse: { toolUseId: 't1', name: 'f', input: { a: 1 } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 10, outputTokens: 4, cacheReadInputTokens: 100, cacheWriteInputTokens: 20 },
      },
      'm',
      1,
    );
    expect(completion['choices']).toEqual([
      {
        index: 0,
        logprobs: null,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: 'Calling.',
          refusal: null,
          reasoning_content: 'Hm.',
          thinking_blocks: [
            { type: 'thinking', thinking: 'Hm.', signature: 's1' },
            { type: 'redacted_thinking', data: 'b64' },
          ],
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
      },
    ]);
    expect(completion['usage']).toEqual({
      prompt_tokens: 130,
      completion_tokens: 4,
      total_tokens: 134,
      prompt_tokens_details: { cached_tokens: 100 },
      cache_creation_input_tokens: 20,
      cache_read_input_tokens: 100,
    });
  });
});

describe('Bedrock errors as OpenAI-format errors', () => {
  it("reads the exception from x-amzn-errortype, or from an event stream's member name", () => {
    expect(bedrockError(429, 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/', '{"message":"slow down"}', '3')).toMatchObject({
      status: 429,
      type: 'rate_limit_error',
      code: 'rate_limit_exceeded',
      message: 'slow down',
      headers: { 'retry-after': '3' },
    });
    expect(bedrockError(429, 'ModelNotReadyException', '{"message":"loading"}')).toMatchObject({ status: 503, code: 'model_not_ready' });
    expect(bedrockError(400, undefined, '{"__type":"com.amazon.coral.validate#ValidationException","message":"Input is too long for requested model."}')).toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
    });
    expect(bedrockError(502, undefined, '<html>bad gateway</html>')).toMatchObject({ status: 502, type: 'server_error' });
  });
});
