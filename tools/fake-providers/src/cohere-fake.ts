// Cohere's chat v2 (api.cohere.com) as the gateway sees it, under /cohere:
//   POST /v2/chat: {model, messages, tools?, stream?, …} → a chat v2 answer
//   ({id, finish_reason, message: {role, content: [{type: text, text}], tool_plan?, tool_calls?},
//   usage: {billed_units, tokens}}), or with stream: true Cohere's v2 events (message-start,
//   content-start, content-delta, content-end, tool-plan-delta, tool-call-start, tool-call-delta,
//   tool-call-end, message-end with finish_reason and usage), each `event: <type>` + `data: {...}`.
//   /compatibility/v1/*: Cohere's Compatibility API, OpenAI's format (answered as openai-fake.ts does).
// Errors are Cohere's: `{"id", "message"}` with the HTTP status. A bearer token is required (401).
// The model chooses: fail-<400|401|402|404|422|429|500|503|context> (that error),
// tokens-<input>-<output> (the billed units reported; `tokens` adds Cohere's 3 preamble tokens).
// The answer is "fake answer from <model>"; with tools, unless the last message is a tool result,
// it calls the first tool with {"argument":"fake"}.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { handleOpenAi, type FakeHandler } from './openai-fake.ts';

const ERRORS: Record<string, { status: number; message: string }> = {
  '400': { status: 400, message: 'invalid request: message must be at least 1 token long or tool results must be specified.' },
  '401': { status: 401, message: 'invalid api token' },
  '402': { status: 402, message: 'Please add or update your payment method at https://dashboard.cohere.com/billing?tab=payment to continue' },
  '404': { status: 404, message: "model 'fail-404' not found, make sure the correct model ID was used and that you have access to the model." },
  '422': { status: 422, message: 'invalid request: temperature must be between 0 and 1' },
  '429': { status: 429, message: 'You are using a Trial key, which is limited to 20 API calls / minute.' },
  '500': { status: 500, message: 'internal server error, this has been reported to our developers.' },
  '503': { status: 503, message: 'service unavailable' },
  context: { status: 400, message: "too many tokens: size limit exceeded by 1000 tokens. Try using shorter or fewer inputs, or setting prompt_truncation='AUTO'." },
};

interface ChatRequest {
  model?: unknown;
  messages?: { role?: string; content?: unknown }[];
  tools?: { function?: { name?: string } }[];
  stream?: unknown;
}

export const handleCohere: FakeHandler = async (req, res, body, seen, path) => {
  // The Compatibility API (OpenAI's format, embeddings among it) at /compatibility/v1.
  if (path.startsWith('/compatibility/')) return handleOpenAi(req, res, body, seen, path.slice('/compatibility'.length));
  if (req.method !== 'POST' || new URL(path, 'http://fake').pathname !== '/v2/chat') return sendCohereError(res, 404, `fake: unknown url ${req.method} ${path}`);
  if (!/^Bearer \S+/.test(req.headers['authorization'] ?? '')) return sendCohereError(res, 401, 'no api key supplied');
  let request: ChatRequest;
  try {
    request = JSON.parse(body) as ChatRequest;
  } catch {
    return sendCohereError(res, 400, 'invalid request: invalid json');
  }
  const model = typeof request.model === 'string' ? request.model : '';
  if (!model || !Array.isArray(request.messages)) return sendCohereError(res, 400, 'invalid request: model and messages are required');
  const failure = ERRORS[/^fail-(.+)$/.exec(model)?.[1] ?? ''];
  if (failure) return sendCohereError(res, failure.status, failure.message);
  const tokens = /^tokens-(\d+)-(\d+)$/.exec(model);
  const billed = { input_tokens: Number(tokens?.[1] ?? 7), output_tokens: Number(tokens?.[2] ?? 5) };
  const usage = { billed_units: billed, tokens: { input_tokens: billed.input_tokens + 3, output_tokens: billed.output_tokens } };
  const text = `fake answer from ${model}`;
  const tool = request.tools?.[0]?.function?.name;
  const toolCall =
    tool && request.messages.at(-1)?.role !== 'tool'
      ? { id: `${tool}_${randomUUID().slice(0, 8)}`, type: 'function', function: { name: tool, arguments: '{"argument":"fake"}' } }
      : undefined;
  const id = randomUUID();
  const finishReason = toolCall ? 'TOOL_CALL' : 'COMPLETE';
  if (request.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-trace-id': id });
    res.end(
      JSON.stringify({
        id,
        finish_reason: finishReason,
        message: toolCall ? { role: 'assistant', tool_plan: 'I will call the tool.', tool_calls: [toolCall] } : { role: 'assistant', content: [{ type: 'text', text }] },
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-trace-id': id });
  const send = (event: Record<string, unknown>) => res.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
  send({ type: 'message-start', id, delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } });
  if (toolCall) {
    send({ type: 'tool-plan-delta', delta: { message: { tool_plan: 'I will call the tool.' } } });
    send({
      type: 'tool-call-start',
      index: 0,
      delta: { message: { tool_calls: { id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } } } },
    });
    for (const piece of ['{"argument":', '"fake"}']) send({ type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: piece } } } } });
    send({ type: 'tool-call-end', index: 0 });
  } else {
    send({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const word of text.split(' ')) send({ type: 'content-delta', index: 0, delta: { message: { content: { text: `${word} ` } } } });
    send({ type: 'content-end', index: 0 });
  }
  send({ type: 'message-end', delta: { finish_reason: finishReason, usage } });
  res.end();
};

function sendCohereError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '1' } : {}) });
  res.end(JSON.stringify({ id: randomUUID(), message }));
}
