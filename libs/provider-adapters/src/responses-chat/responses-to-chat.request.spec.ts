import { ProviderError } from '../lib/provider-error';
import { toChatRequest } from './responses-to-chat.request';

const options = { provider: 'anthropic', dropParams: false };

describe('a Responses request as chat completions', () => {
  it('turns instructions, every kind of input item and the settings into their chat equivalents', () => {
    const chat = toChatRequest(
      {
        model: 'claude',
        instructions: 'Be brief.',
        input: [
          { role: 'developer', content: 'Use metric units.' },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'Look:' },
              { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
            ],
          },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Bergen"}' },
          { type: 'function_call_output', call_id: 'call_1', output: '3 °C' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '5 °C' }] },
        ],
        tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' }, strict: true }],
        tool_choice: { type: 'function', name: 'weather' },
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
        reasoning: { effort: 'high', summary: 'auto' },
        max_output_tokens: 200,
        temperature: 0.2,
        safety_identifier: 'user-7',
        store: true,
        previous_response_id: null,
        stream: true,
        drop_params: false,
      },
      options,
    );
    expect(chat).toEqual({
      model: 'claude',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Use metric units.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Bergen"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '3 °C' },
        { role: 'tool', tool_call_id: 'call_2', content: '5 °C' },
      ],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'high',
      max_completion_tokens: 200,
      temperature: 0.2,
      user: 'user-7',
      stream: true,
      drop_params: false,
    });
  });

  it('flattens a namespace into <namespace>__<name> functions and offers a custom tool as a function of its text', () => {
    const chat = toChatRequest(
      {
        model: 'm',
        tools: [
          { type: 'namespace', name: 'agents', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn', parameters: { type: 'object' } }] },
          { type: 'custom', name: 'apply_patch', description: 'Applies a patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
        ],
        tool_choice: { type: 'custom', name: 'apply_patch' },
        input: [
          { role: 'user', content: 'go' },
          { type: 'function_call', call_id: 'c1', name: 'spawn', namespace: 'agents', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'spawned' },
          { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
          { type: 'custom_tool_call_output', call_id: 'c2', output: 'applied' },
        ],
      },
      options,
    );
    expect(chat['tools']).toEqual([
      { type: 'function', function: { name: 'agents__spawn', parameters: { type: 'object' } } },
      {
        type: 'function',
        function: {
          name: 'apply_patch',
          description: 'Applies a patch',
          parameters: {
            type: 'object',
            properties: { input: { type: 'string', description: 'The tool\'s input, as free text. It must follow this lark grammar:\nstart: "x"' } },
            required: ['input'],
          },
        },
      },
    ]);
    expect(chat['tool_choice']).toEqual({ type: 'function', function: { name: 'apply_patch' } });
    expect(chat['messages']).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'agents__spawn', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'spawned' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch' }) } }],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'applied' },
    ]);
  });

  it('refuses what chat cannot carry, naming it and the provider, unless drop_params drops it', () => {
    const builtIn = { model: 'm', input: 'x', tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] };
    expect(() => toChatRequest(builtIn, options)).toThrow(/tools\.0: the code_interpreter tool is served only by models with a native Responses API, and anthropic has none/);
    expect(toChatRequest(builtIn, { ...options, dropParams: true })['tools']).toBeUndefined();
    const item = { model: 'm', input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] };
    expect(() => toChatRequest(item, options)).toThrow(/input\.0: an item of type web_search_call/);
    const fileById = { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] };
    expect(() => toChatRequest(fileById, options)).toThrow(/file_id/);
  });

  it('answers a malformed request with a 400 naming the field, never a crash', () => {
    for (const body of [{ model: 'm', input: [{ type: 'message', role: 'user', content: 5 }] }, { model: 'm', input: 3 }, { input: 'x' }]) {
      const error = (() => {
        try {
          toChatRequest(body, options);
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).status).toBe(400);
    }
  });
});
