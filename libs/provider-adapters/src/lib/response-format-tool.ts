// `response_format` for providers that serve JSON output only through tools (Claude without
// structured outputs, Bedrock's Converse), as LiteLLM serves it: the wanted JSON is the input of
// a tool `json_tool_call`, called by force when it is the only tool, and that input is the
// answer's content.

/** The tool that carries a JSON answer (LiteLLM's name for it). */
export const RESPONSE_FORMAT_TOOL = 'json_tool_call';

/** How a request's `response_format` is carried by a tool: the answer's translation reads it back as the message content. */
export interface ResponseFormatTool {
  name: string;
  /** The only tool, called by force: the model writes nothing else, so any text beside it is no part of the answer. */
  forced: boolean;
}

/** What a chat `response_format` asks for: JSON, with a schema or any object; undefined for text or none. Throws `invalid` naming it when malformed. */
export function wantedJson(body: Record<string, unknown>, invalid: (message: string) => Error): { schema?: Record<string, unknown>; description?: string } | undefined {
  const format = body['response_format'];
  if (format === undefined || format === null) return undefined;
  const { type, json_schema: jsonSchema } = (typeof format === 'object' ? format : {}) as { type?: unknown; json_schema?: { schema?: unknown; description?: unknown } };
  if (type === 'text') return undefined;
  if (type === 'json_object') return {};
  if (type !== 'json_schema') throw invalid('response_format.type must be text, json_object or json_schema.');
  const schema = jsonSchema?.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw invalid('response_format.json_schema.schema must be a JSON schema object.');
  return { schema: schema as Record<string, unknown>, ...(typeof jsonSchema?.description === 'string' ? { description: jsonSchema.description } : {}) };
}

/** The tool's definition in OpenAI-format chat terms: its parameters the wanted JSON's schema (any object for json_object). */
export function responseFormatFunction(wanted: { schema?: Record<string, unknown>; description?: string }): {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
} {
  return {
    name: RESPONSE_FORMAT_TOOL,
    description: [wanted.description, 'Answer with this tool: its input is your whole answer, as JSON.'].filter(Boolean).join(' '),
    parameters: wanted.schema ?? { type: 'object', additionalProperties: true },
  };
}

/**
 * A chat request whose `response_format` asks for JSON, with that format as a function tool
 * instead (forced when it is the only tool and reasoning is off), and the tool; the request as it was when it asks for none.
 */
export function responseFormatAsTool(body: Record<string, unknown>, invalid: (message: string) => Error): { body: Record<string, unknown>; tool?: ResponseFormatTool } {
  const wanted = wantedJson(body, invalid);
  const { response_format: _format, ...rest } = body;
  if (!wanted) return { body: rest };
  const tools = Array.isArray(body['tools']) ? (body['tools'] as unknown[]) : [];
  // Claude (and others) take no forced tool choice with reasoning on.
  const reasoning = (body['thinking'] as { type?: unknown } | null | undefined)?.type === 'enabled' || (body['reasoning_effort'] != null && body['reasoning_effort'] !== 'none');
  const forced = tools.length === 0 && !reasoning;
  const asked: Record<string, unknown> = { ...rest, tools: [...tools, { type: 'function', function: responseFormatFunction(wanted) }] };
  if (forced) asked['tool_choice'] = { type: 'function', function: { name: RESPONSE_FORMAT_TOOL } };
  return { body: asked, tool: { name: RESPONSE_FORMAT_TOOL, forced } };
}

interface ToolCall {
  index?: number;
  function?: { name?: string; arguments?: string };
}

/** A chat completion whose call of the response_format tool becomes its content (the text beside it dropped), stopping as any answer does. */
export function completionFromTool(completion: Record<string, unknown>, tool: ResponseFormatTool | undefined): Record<string, unknown> {
  if (!tool) return completion;
  const choices = (completion['choices'] as { message?: Record<string, unknown>; finish_reason?: unknown }[] | undefined) ?? [];
  return {
    ...completion,
    choices: choices.map((choice) => {
      const calls = (choice.message?.['tool_calls'] as ToolCall[] | undefined) ?? [];
      const json = calls.find((call) => call.function?.name === tool.name);
      if (!json) return choice;
      const others = calls.filter((call) => call !== json);
      const message: Record<string, unknown> = { ...choice.message, content: json.function?.arguments ?? '{}' };
      if (others.length > 0) message['tool_calls'] = others;
      else delete message['tool_calls'];
      return { ...choice, message, finish_reason: others.length === 0 && choice.finish_reason === 'tool_calls' ? 'stop' : choice.finish_reason };
    }),
  };
}

/** Chat completion chunks whose call of the response_format tool streams as content deltas (text beside a forced one dropped), stopping as any answer does. */
export async function* chunksFromTool(chunks: AsyncIterable<Record<string, unknown>>, tool: ResponseFormatTool | undefined): AsyncGenerator<Record<string, unknown>> {
  if (!tool) return yield* chunks;
  let jsonIndex: number | undefined;
  let otherCalls = false;
  for await (const chunk of chunks) {
    const choice = (chunk['choices'] as { delta?: Record<string, unknown>; finish_reason?: unknown }[] | undefined)?.[0];
    if (!choice?.delta) {
      yield chunk;
      continue;
    }
    const delta = { ...choice.delta };
    const calls = (delta['tool_calls'] as ToolCall[] | undefined) ?? [];
    const kept: ToolCall[] = [];
    let content = tool.forced ? '' : typeof delta['content'] === 'string' ? delta['content'] : '';
    for (const call of calls) {
      if (call.function?.name === tool.name) jsonIndex = call.index;
      if (jsonIndex !== undefined && call.index === jsonIndex) content += call.function?.arguments ?? '';
      else {
        kept.push(call);
        otherCalls = true;
      }
    }
    if (kept.length > 0) delta['tool_calls'] = kept;
    else delete delta['tool_calls'];
    if (content !== '' || typeof delta['content'] === 'string') delta['content'] = content;
    const finish = choice.finish_reason === 'tool_calls' && jsonIndex !== undefined && !otherCalls ? 'stop' : choice.finish_reason;
    yield { ...chunk, choices: [{ ...choice, delta, finish_reason: finish }] };
  }
}
