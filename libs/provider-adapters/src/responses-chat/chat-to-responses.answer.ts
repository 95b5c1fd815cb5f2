import { randomUUID } from 'node:crypto';
import { parseChatCompletion, type ChatUsage, type WebSearchCall } from '../lib/chat.wire';
import type { OutputItem, ResponseObject, ResponsesUsage } from './responses.wire';
import { customInput, ToolNames } from './tool-names';

/** A fresh id in OpenAI's style (`resp_…`, `msg_…`, `fc_…`, `rs_…`). */
export function itemId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/** Chat usage in the Responses fields. */
export function responsesUsage(usage: ChatUsage | null | undefined): ResponsesUsage {
  const input = usage?.prompt_tokens ?? 0;
  const output = usage?.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: input + output,
  };
}

/** How a chat finish_reason ends a response: an output cut short is `incomplete`, saying why. */
export function endOf(finishReason: string | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/**
 * The response object a request gets before any output: its settings echoed as the API does,
 * `model` the alias the client named.
 */
export function responseShell(request: Record<string, unknown>, id: string, createdAt: number): ResponseObject {
  const text = (request['text'] as Record<string, unknown> | null | undefined) ?? {};
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: request['background'] === true,
    error: null,
    incomplete_details: null,
    instructions: request['instructions'] ?? null,
    max_output_tokens: request['max_output_tokens'] ?? null,
    metadata: request['metadata'] ?? {},
    model: String(request['model']),
    output: [],
    parallel_tool_calls: request['parallel_tool_calls'] ?? true,
    previous_response_id: request['previous_response_id'] ?? null,
    reasoning: { effort: null, summary: null, ...((request['reasoning'] as object | null | undefined) ?? {}) },
    service_tier: request['service_tier'] ?? 'auto',
    store: request['store'] !== false,
    temperature: request['temperature'] ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium', ...text },
    tool_choice: request['tool_choice'] ?? 'auto',
    tools: request['tools'] ?? [],
    top_p: request['top_p'] ?? 1,
    truncation: request['truncation'] ?? 'disabled',
    usage: null,
    user: request['user'] ?? null,
  };
}

/** Reasoning the target exposed, as a reasoning item with its text as the summary. */
export function reasoningItem(id: string, text: string): OutputItem {
  return { id, type: 'reasoning', summary: [{ type: 'summary_text', text }] };
}

export function messageItem(id: string, text: string, refusal: boolean, status = 'completed', annotations: Record<string, unknown>[] = []): OutputItem {
  const part = refusal ? { type: 'refusal', refusal: text } : { type: 'output_text', text, annotations, logprobs: [] };
  return { id, type: 'message', status, role: 'assistant', content: [part] };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status = 'completed', namespace?: string): OutputItem {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name, ...(namespace ? { namespace } : {}) };
}

export function customToolCallItem(id: string, callId: string, name: string, input: string, status = 'completed', namespace?: string): OutputItem {
  return { id, type: 'custom_tool_call', status, call_id: callId, name, input, ...(namespace ? { namespace } : {}) };
}

/** A web search the provider ran, as the Responses API's web_search_call item (its query and the pages it found). */
export function webSearchCallItem(search: WebSearchCall, status = search.status ?? 'completed'): OutputItem {
  const action = { type: 'search', query: search.query ?? '', sources: (search.sources ?? []).map((source) => ({ type: 'url', url: source.url })) };
  return { id: itemId('ws'), type: 'web_search_call', status, action };
}

/** Chat's url_citation annotations (over the message's content) as output_text annotations over text that began at `offset` of it. */
export function outputAnnotations(annotations: readonly unknown[] | null | undefined, offset = 0): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (const annotation of annotations ?? []) {
    const { type, url_citation: citation } = annotation as { type?: unknown; url_citation?: { url: string; title?: string | null; start_index: number; end_index: number } };
    if (type !== 'url_citation' || !citation) continue;
    found.push({
      type: 'url_citation',
      start_index: Math.max(0, citation.start_index - offset),
      end_index: Math.max(0, citation.end_index - offset),
      url: citation.url,
      title: citation.title ?? '',
    });
  }
  return found;
}

/** A chat tool call as the item of the tool the request declared (a namespaced function, a custom tool). */
export function toolCallItem(tools: ToolNames, chatName: string, callId: string, args: string): OutputItem {
  const tool = tools.of(chatName);
  return tool.custom
    ? customToolCallItem(itemId('ctc'), callId, tool.name, customInput(args), 'completed', tool.namespace)
    : functionCallItem(itemId('fc'), callId, tool.name, args, 'completed', tool.namespace);
}

/**
 * An OpenAI chat completion as the Responses API's response object for `request` (whose `model`
 * is the alias): reasoning the target exposed (`reasoning_content`) as a reasoning item, the web
 * searches it ran as web_search_call items, the text as a message (its url citations as
 * annotations), each tool call as a function_call item; a length or content-filter stop as an
 * incomplete response; usage in the Responses fields.
 */
export function toResponseObject(text: string, request: Record<string, unknown>): ResponseObject {
  const completion = parseChatCompletion(text);
  const choice = completion.choices[0];
  const message = choice?.message;
  const response = responseShell(request, itemId('resp'), completion.created ?? Math.floor(Date.now() / 1000));
  if (message?.reasoning_content) response.output.push(reasoningItem(itemId('rs'), message.reasoning_content));
  for (const search of message?.provider_specific_fields?.web_search_calls ?? []) response.output.push(webSearchCallItem(search));
  const refusal = message?.refusal ?? undefined;
  const answer = message?.content ?? refusal ?? '';
  const refused = refusal !== undefined && message?.content == null;
  if (answer !== '') response.output.push(messageItem(itemId('msg'), answer, refused, 'completed', refused ? [] : outputAnnotations(message?.annotations)));
  const tools = new ToolNames(request);
  for (const call of message?.tool_calls ?? []) response.output.push(toolCallItem(tools, call.function.name ?? '', call.id ?? itemId('call'), call.function.arguments ?? ''));
  Object.assign(response, endOf(choice?.finish_reason));
  response.usage = responsesUsage(completion.usage);
  return response;
}
