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
    const item = { model: 'm', input: [{ type: 'file_search_call', id: 'fs_1', status: 'completed', queries: [] }] };
    expect(() => toChatRequest(item, options)).toThrow(/input\.0: an item of type file_search_call/);
    const dropped: string[] = [];
    expect(toChatRequest({ ...item, tools: builtIn.tools }, { ...options, dropParams: true, dropped })['messages']).toEqual([]);
    expect(dropped).toEqual(['input.0 (file_search_call)', 'tools.0 (code_interpreter)']);
    const fileById = { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] };
    expect(() => toChatRequest(fileById, options)).toThrow(/file_id/);
  });

  it('maps the web search tool to web_search_options where the target has a web search of its own, and refuses or drops it where it has none', () => {
    const search = {
      model: 'm',
      input: [
        { role: 'user', content: 'news?' },
        // A search the model ran in an earlier turn: what it found is in the answer after it.
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'news' } },
        {
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Here is the news.', annotations: [{ type: 'url_citation', url: 'https://example.com', title: 'e', start_index: 0, end_index: 4 }] },
          ],
        },
        { role: 'user', content: 'more' },
      ],
      tools: [
        { type: 'web_search', search_context_size: 'low', user_location: { type: 'approximate', city: 'Berlin', country: 'DE' }, filters: { allowed_domains: ['example.com'] } },
        { type: 'function', name: 'f', parameters: { type: 'object', properties: {} } },
      ],
    };
    const chat = toChatRequest(search, { ...options, params: new Set(['messages', 'tools', 'web_search_options']) });
    expect(chat['web_search_options']).toEqual({
      search_context_size: 'low',
      user_location: { type: 'approximate', approximate: { city: 'Berlin', country: 'DE' } },
      filters: { allowed_domains: ['example.com'] },
    });
    expect((chat['tools'] as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(['f']);
    expect(chat['messages']).toEqual([
      { role: 'user', content: 'news?' },
      { role: 'assistant', content: 'Here is the news.' },
      { role: 'user', content: 'more' },
    ]);
    expect(toChatRequest({ ...search, tools: [{ type: 'web_search_preview' }] }, { ...options, params: new Set(['web_search_options']) })['web_search_options']).toEqual({});

    const bedrock = { provider: 'bedrock', dropParams: false, params: new Set(['messages', 'tools']) };
    expect(() => toChatRequest(search, bedrock)).toThrow(
      /tools\.0: the web_search tool is served only by models with a native Responses API or a web search of their own \(Anthropic's, Gemini's\), and bedrock has neither/,
    );
    const dropped: string[] = [];
    const withoutSearch = toChatRequest(search, { ...bedrock, dropParams: true, dropped });
    expect(withoutSearch['web_search_options']).toBeUndefined();
    expect(dropped).toEqual(['tools.0 (web_search)']);
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
