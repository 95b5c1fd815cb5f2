import { Readable } from 'node:stream';
import { readSseEvents } from '../lib/sse';
import { hasStructuredOutputs, RESPONSE_FORMAT_TOOL, responseFormatTool, toAnthropicRequest } from './chat-to-messages.request';
import { toChatCompletion } from './messages-to-chat.answer';
import { toChatCompletionChunks } from './messages-to-chat.stream';

const schema = { type: 'object', properties: { city: { type: 'string' }, where: { type: 'object', properties: { lat: { type: 'number' } } } }, required: ['city'] };
const asSchema = { type: 'json_schema', json_schema: { name: 'weather', description: 'The weather', schema } };
const ask = (extra: Record<string, unknown>) => ({ messages: [{ role: 'user', content: 'weather?' }], ...extra });

describe('response_format on Claude', () => {
  it('knows which Claude models have native structured outputs, however their host names them', () => {
    for (const model of [
      'claude-sonnet-4-6',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1',
      'claude-haiku-4-5@20251001',
      'us.anthropic.claude-opus-4-5-20251101-v1:0',
      'claude-sonnet-5',
    ]) {
      expect([model, hasStructuredOutputs(model)]).toEqual([model, true]);
    }
    for (const model of ['claude-sonnet-4-20250514', 'claude-opus-4-0', 'claude-3-5-haiku-20241022', 'claude-3-opus-latest', 'tokens-7-5']) {
      expect([model, hasStructuredOutputs(model)]).toEqual([model, false]);
    }
  });

  it('sends a JSON schema as output_config.format where the model has structured outputs, every object closed', () => {
    const request = toAnthropicRequest(ask({ response_format: asSchema }), 'claude-sonnet-4-6');
    expect(request['output_config']).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          ...schema,
          additionalProperties: false,
          properties: { city: { type: 'string' }, where: { type: 'object', properties: { lat: { type: 'number' } }, additionalProperties: false } },
        },
      },
    });
    expect(request['tools']).toBeUndefined();
    expect(responseFormatTool(ask({ response_format: asSchema }), 'claude-sonnet-4-6')).toBeUndefined();
  });

  it('sends it as a forced tool where the model has none, and for json_object; beside the client tools, not forced', () => {
    const request = toAnthropicRequest(ask({ response_format: asSchema }), 'claude-3-5-haiku-20241022');
    expect(request['output_config']).toBeUndefined();
    expect(request['tools']).toEqual([
      { name: RESPONSE_FORMAT_TOOL, description: 'The weather Answer with this tool: its input is your whole answer, as JSON.', input_schema: schema },
    ]);
    expect(request['tool_choice']).toEqual({ type: 'tool', name: RESPONSE_FORMAT_TOOL });

    const object = toAnthropicRequest(ask({ response_format: { type: 'json_object' } }), 'claude-sonnet-4-6');
    expect(object['tools']).toEqual([expect.objectContaining({ name: RESPONSE_FORMAT_TOOL, input_schema: { type: 'object', additionalProperties: true } })]);

    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const beside = toAnthropicRequest(ask({ response_format: { type: 'json_object' }, tools }), 'claude-sonnet-4-6');
    expect((beside['tools'] as { name: string }[]).map((tool) => tool.name)).toEqual(['lookup', RESPONSE_FORMAT_TOOL]);
    expect(beside['tool_choice']).toBeUndefined();
    expect(responseFormatTool(ask({ response_format: { type: 'json_object' }, tools }), 'claude-sonnet-4-6')).toEqual({ name: RESPONSE_FORMAT_TOOL, forced: false });

    // Claude takes no forced tool with thinking on.
    const thinking = toAnthropicRequest(ask({ response_format: { type: 'json_object' }, reasoning_effort: 'low' }), 'claude-sonnet-4-6');
    expect(thinking['thinking']).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(thinking['tool_choice']).toBeUndefined();
    expect(responseFormatTool(ask({ response_format: { type: 'json_object' }, thinking: { type: 'enabled', budget_tokens: 2048 } }), 'claude-sonnet-4-6')?.forced).toBe(false);
  });

  it('asks nothing for text, and refuses a malformed response_format naming it', () => {
    expect(toAnthropicRequest(ask({ response_format: { type: 'text' } }), 'claude-sonnet-4-6')).not.toHaveProperty('output_config');
    expect(() => toAnthropicRequest(ask({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }), 'claude-sonnet-4-6')).toThrow(
      expect.objectContaining({ status: 400, param: 'response_format' }),
    );
    expect(() => toAnthropicRequest(ask({ response_format: { type: 'yaml' } }), 'claude-sonnet-4-6')).toThrow(expect.objectContaining({ status: 400 }));
  });

  it("answers the tool's input as the message content, stopping as any answer does", () => {
    const completion = toChatCompletion(
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-haiku-20241022',
        content: [
          { type: 'text', text: 'Here it is:' },
          { type: 'tool_use', id: 'toolu_1', name: RESPONSE_FORMAT_TOOL, input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 4 },
      },
      'm',
      1,
      { name: RESPONSE_FORMAT_TOOL, forced: true },
    ) as { choices: { message: Record<string, unknown>; finish_reason: string }[] };
    expect(completion.choices[0]?.message['content']).toBe('{"city":"Paris"}');
    expect(completion.choices[0]?.message['tool_calls']).toBeUndefined();
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it("streams the tool's input as content deltas", async () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: RESPONSE_FORMAT_TOOL, input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } },
      { type: 'message_stop' },
    ];
    const source = Readable.from(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
    const chunks: Record<string, unknown>[] = [];
    for await (const chunk of toChatCompletionChunks(readSseEvents(source), 'm', 1, false, { name: RESPONSE_FORMAT_TOOL, forced: true })) chunks.push(chunk);
    const choices = chunks.map((chunk) => (chunk['choices'] as { delta: { content?: string; tool_calls?: unknown }; finish_reason: string | null }[])[0]);
    expect(choices.map((choice) => choice?.delta.content ?? '').join('')).toBe('{"city":"Paris"}');
    expect(choices.some((choice) => choice?.delta.tool_calls !== undefined)).toBe(false);
    expect(choices.at(-1)?.finish_reason).toBe('stop');
  });
});
