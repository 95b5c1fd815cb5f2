import { randomUUID } from 'node:crypto';
import { mapParameters } from '../lib/parameter-map';
import { ProviderError } from '../lib/provider-error';
import { GEMINI_CHAT_PARAMETERS } from './gemini.params';

/** One part of a Gemini Content (the subset this translation writes and reads). */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { fileUri: string; mimeType?: string };
  functionCall?: { name: string; args?: Record<string, unknown> };
  functionResponse?: { name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: ({ functionDeclarations: Record<string, unknown>[] } | { googleSearch: Record<string, unknown> })[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: Record<string, unknown>;
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
  tool_call_id?: unknown;
}

// Gemini 3 wants the thoughtSignature of each function call back with the next turn; OpenAI-format
// clients only echo the tool call id, so the signature travels inside it.
const THOUGHT_SIGNATURE_MARK = '__thought__';

/** The OpenAI-format tool call id for a Gemini function call (`call_…`, carrying the thought signature if any). */
export function toolCallId(thoughtSignature?: string): string {
  const id = `call_${randomUUID().replaceAll('-', '')}`;
  return thoughtSignature ? `${id}${THOUGHT_SIGNATURE_MARK}${thoughtSignature}` : id;
}

function thoughtSignatureOf(id: string): string | undefined {
  const at = id.indexOf(THOUGHT_SIGNATURE_MARK);
  return at < 0 ? undefined : id.slice(at + THOUGHT_SIGNATURE_MARK.length);
}

// Thinking budgets for reasoning_effort, as Google's own OpenAI-compatible endpoint sets them.
const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576 };

const invalid = (message: string, param: string) => new ProviderError(400, 'invalid_request_error', message, 'invalid_value', param);

/** An OpenAI-format chat-completion body as a Gemini generateContent request. */
export function toGenerateContentRequest(body: Record<string, unknown>): GenerateContentRequest {
  if (!Array.isArray(body['messages'])) throw invalid('messages must be a list of messages.', 'messages');
  const request: GenerateContentRequest = { contents: [] };
  const system: GeminiPart[] = [];
  const toolNames = new Map<string, string>();
  for (const message of body['messages'] as ChatMessage[]) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textParts(message.content));
        break;
      case 'user':
        append(request.contents, 'user', userParts(message.content));
        break;
      case 'assistant': {
        const parts = textParts(message.content);
        for (const call of message.tool_calls ?? []) parts.push(functionCallPart(call, toolNames));
        if (parts.length > 0) append(request.contents, 'model', parts);
        break;
      }
      case 'tool':
        append(request.contents, 'user', [functionResponsePart(message, toolNames)]);
        break;
      default:
        throw invalid(`Gemini takes messages of role system, developer, user, assistant and tool, not "${String(message.role)}".`, 'messages');
    }
  }
  if (system.length > 0) request.systemInstruction = { parts: system };
  if (body['tools'] != null) request.tools = [{ functionDeclarations: functionDeclarations(body['tools']) }];
  // Web search is Google Search grounding; Gemini picks how much to search (the context size and place have no equivalent).
  if (body['web_search_options'] != null) request.tools = [...(request.tools ?? []), { googleSearch: {} }];
  if (body['tool_choice'] != null) request.toolConfig = { functionCallingConfig: functionCallingConfig(body['tool_choice']) };
  const generationConfig = toGenerationConfig(body);
  if (Object.keys(generationConfig).length > 0) request.generationConfig = generationConfig;
  return request;
}

/** Gemini wants turns to alternate: consecutive messages of one role (parallel tool results) become one turn. */
function append(contents: GeminiContent[], role: GeminiContent['role'], parts: GeminiPart[]): void {
  const last = contents.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function textParts(content: unknown): GeminiPart[] {
  if (content === undefined || content === null || content === '') return [];
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) throw invalid('Message content must be a string or a list of parts.', 'messages');
  return content.flatMap((part: { type?: unknown; text?: unknown; refusal?: unknown }) => {
    if (part.type === 'text' && typeof part.text === 'string') return [{ text: part.text }];
    if (part.type === 'refusal' && typeof part.refusal === 'string') return [{ text: part.refusal }];
    throw invalid(`Gemini takes only text parts in system and assistant messages, not "${String(part.type)}".`, 'messages');
  });
}

interface UserContentPart {
  type?: unknown;
  text?: unknown;
  image_url?: { url?: unknown } | string;
  input_audio?: { data?: unknown; format?: unknown };
  file?: { file_data?: unknown; file_id?: unknown; filename?: unknown };
}

function userParts(content: unknown): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) throw invalid('User message content must be a string or a list of parts.', 'messages');
  return content.map((part: UserContentPart): GeminiPart => {
    switch (part.type) {
      case 'text':
        return { text: String(part.text ?? '') };
      case 'image_url': {
        const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
        if (typeof url !== 'string') throw invalid('An image_url part needs image_url.url.', 'messages');
        return mediaPart(url, 'image/jpeg');
      }
      case 'input_audio': {
        const { data, format } = part.input_audio ?? {};
        if (typeof data !== 'string') throw invalid('An input_audio part needs input_audio.data.', 'messages');
        return { inlineData: { mimeType: `audio/${typeof format === 'string' ? format : 'wav'}`, data } };
      }
      case 'file': {
        const { file_data: data, file_id: id, filename } = part.file ?? {};
        if (typeof data === 'string') return mediaPart(data, 'application/pdf');
        if (typeof id === 'string') return { fileData: { fileUri: id, mimeType: mimeTypeOf(typeof filename === 'string' ? filename : id, 'application/pdf') } };
        throw invalid('A file part needs file.file_data or file.file_id.', 'messages');
      }
      default:
        throw invalid(`Gemini cannot take message parts of type "${String(part.type)}".`, 'messages');
    }
  });
}

/** A data: URL travels inline; any other URL is fetched by Google (fileData). */
function mediaPart(url: string, fallbackMimeType: string): GeminiPart {
  const inline = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (inline) return { inlineData: { mimeType: inline[1] ?? fallbackMimeType, data: inline[2] ?? '' } };
  if (url.startsWith('data:')) throw invalid('Only base64 data: URLs can be sent to Gemini.', 'messages');
  return { fileData: { fileUri: url, mimeType: mimeTypeOf(url, fallbackMimeType) } };
}

const MIME_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

function mimeTypeOf(location: string, fallback: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(location.split(/[?#]/)[0] ?? '')?.[1]?.toLowerCase();
  return (extension && MIME_TYPES[extension]) || fallback;
}

function functionCallPart(call: NonNullable<ChatMessage['tool_calls']>[number], toolNames: Map<string, string>): GeminiPart {
  const name = call.function?.name;
  if (typeof name !== 'string') throw invalid('Each tool call needs function.name.', 'messages');
  const id = typeof call.id === 'string' ? call.id : '';
  toolNames.set(id, name);
  let args: unknown = {};
  const text = call.function?.arguments;
  if (typeof text === 'string' && text.trim() !== '') {
    try {
      args = JSON.parse(text);
    } catch {
      throw invalid(`The arguments of tool call "${id}" are not JSON.`, 'messages');
    }
  }
  const part: GeminiPart = { functionCall: { name, args: isObject(args) ? args : {} } };
  const signature = thoughtSignatureOf(id);
  if (signature) part.thoughtSignature = signature;
  return part;
}

function functionResponsePart(message: ChatMessage, toolNames: Map<string, string>): GeminiPart {
  const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
  const name = toolNames.get(id);
  if (name === undefined) throw invalid(`The tool message answers "${id}", which no earlier assistant tool call has.`, 'messages');
  const text = textParts(message.content)
    .map((part) => part.text)
    .join('');
  let response: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    response = isObject(parsed) ? parsed : { content: parsed };
  } catch {
    response = { content: text };
  }
  return { functionResponse: { name, response } };
}

function functionDeclarations(tools: unknown): Record<string, unknown>[] {
  if (!Array.isArray(tools)) throw invalid('tools must be a list.', 'tools');
  return tools.map((tool: { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } }) => {
    if (tool.type !== 'function' || typeof tool.function?.name !== 'string') throw invalid('Gemini takes only tools of type "function", each with a name.', 'tools');
    const { name, description, parameters } = tool.function;
    // parametersJsonSchema takes the JSON Schema clients send; `parameters` (an OpenAPI subset) refuses additionalProperties, $ref and the like.
    return { name, ...(typeof description === 'string' ? { description } : {}), ...(parameters !== undefined ? { parametersJsonSchema: parameters } : {}) };
  });
}

function functionCallingConfig(choice: unknown): NonNullable<GenerateContentRequest['toolConfig']>['functionCallingConfig'] {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  const name = (choice as { function?: { name?: unknown } } | null)?.function?.name;
  if (typeof name === 'string') return { mode: 'ANY', allowedFunctionNames: [name] };
  throw invalid('tool_choice must be "auto", "none", "required" or a named function.', 'tool_choice');
}

function toGenerationConfig(body: Record<string, unknown>): Record<string, unknown> {
  const config = (mapParameters(body, GEMINI_CHAT_PARAMETERS)['generationConfig'] ?? {}) as Record<string, unknown>;
  const format = body['response_format'] as { type?: unknown; json_schema?: { schema?: unknown } } | null | undefined;
  if (format?.type === 'json_object') config['responseMimeType'] = 'application/json';
  else if (format?.type === 'json_schema') {
    config['responseMimeType'] = 'application/json';
    if (format.json_schema?.schema !== undefined) config['responseJsonSchema'] = format.json_schema.schema;
  } else if (format != null && format.type !== 'text') throw invalid('response_format must be of type text, json_object or json_schema.', 'response_format');
  const effort = body['reasoning_effort'];
  if (typeof effort === 'string') {
    const budget = THINKING_BUDGETS[effort];
    if (budget === undefined) throw invalid(`reasoning_effort must be one of ${Object.keys(THINKING_BUDGETS).join(', ')}.`, 'reasoning_effort');
    // With thinking on, Gemini's thought summaries come back too, as reasoning_content.
    config['thinkingConfig'] = budget > 0 ? { thinkingBudget: budget, includeThoughts: true } : { thinkingBudget: budget };
  }
  return config;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
