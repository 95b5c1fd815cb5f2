import { chunksFromTool, completionFromTool, RESPONSE_FORMAT_TOOL, responseFormatAsTool } from './response-format-tool';

const invalid = (message: string) => new Error(message);
const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const jsonCall = { index: 0, id: 'c1', type: 'function', function: { name: RESPONSE_FORMAT_TOOL, arguments: '{"ok":true}' } };

describe('response_format as a tool whose input is the answer', () => {
  it('adds the tool, forced when it is the only one, beside the client tools otherwise; asks nothing for text', () => {
    const asked = responseFormatAsTool({ messages: [], response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } }, invalid);
    expect(asked.tool).toEqual({ name: RESPONSE_FORMAT_TOOL, forced: true });
    expect(asked.body).toEqual({
      messages: [],
      tools: [{ type: 'function', function: { name: RESPONSE_FORMAT_TOOL, description: 'Answer with this tool: its input is your whole answer, as JSON.', parameters: schema } }],
      tool_choice: { type: 'function', function: { name: RESPONSE_FORMAT_TOOL } },
    });
    const beside = responseFormatAsTool({ messages: [], tools: [{ type: 'function', function: { name: 'f' } }], response_format: { type: 'json_object' } }, invalid);
    expect(beside.tool).toEqual({ name: RESPONSE_FORMAT_TOOL, forced: false });
    expect(beside.body['tool_choice']).toBeUndefined();
    expect(responseFormatAsTool({ messages: [], response_format: { type: 'text' } }, invalid)).toEqual({ body: { messages: [] } });
    expect(() => responseFormatAsTool({ response_format: { type: 'json_schema' } }, invalid)).toThrow('response_format.json_schema.schema');
  });

  it("answers the tool's input as the content, keeping other tool calls and their finish reason", () => {
    const only = completionFromTool(
      { choices: [{ message: { role: 'assistant', content: 'Sure:', tool_calls: [jsonCall] }, finish_reason: 'tool_calls' }] },
      { name: RESPONSE_FORMAT_TOOL, forced: true },
    );
    expect(only['choices']).toEqual([{ message: { role: 'assistant', content: '{"ok":true}' }, finish_reason: 'stop' }]);
    const other = { index: 1, function: { name: 'f', arguments: '{}' } };
    const both = completionFromTool(
      { choices: [{ message: { content: null, tool_calls: [jsonCall, other] }, finish_reason: 'tool_calls' }] },
      { name: RESPONSE_FORMAT_TOOL, forced: false },
    );
    expect(both['choices']).toEqual([{ message: { content: '{"ok":true}', tool_calls: [other] }, finish_reason: 'tool_calls' }]);
  });

  it("streams the tool's arguments as content deltas, text beside a forced tool left out", async () => {
    async function* chunks() {
      yield { choices: [{ delta: { role: 'assistant', content: 'Sure' }, finish_reason: null }] };
      yield { choices: [{ delta: { tool_calls: [{ index: 0, id: 'c1', function: { name: RESPONSE_FORMAT_TOOL, arguments: '' } }] }, finish_reason: null }] };
      yield { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"ok":' } }] }, finish_reason: null }] };
      yield { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 'true}' } }] }, finish_reason: null }] };
      yield { choices: [{ delta: {}, finish_reason: 'tool_calls' }] };
      yield { choices: [], usage: { prompt_tokens: 1 } };
    }
    const out: Record<string, unknown>[] = [];
    for await (const chunk of chunksFromTool(chunks(), { name: RESPONSE_FORMAT_TOOL, forced: true })) out.push(chunk);
    const choices = out.map((chunk) => (chunk['choices'] as { delta: Record<string, unknown>; finish_reason: unknown }[])[0]);
    expect(choices.map((choice) => choice?.delta['content'] ?? '').join('')).toBe('{"ok":true}');
    expect(choices.some((choice) => choice?.delta['tool_calls'] !== undefined)).toBe(false);
    expect(choices.at(-2)?.finish_reason).toBe('stop');
    expect(out.at(-1)).toEqual({ choices: [], usage: { prompt_tokens: 1 } });
  });
});
