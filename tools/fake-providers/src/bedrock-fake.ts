// AWS Bedrock Runtime as bedrock-runtime.<region>.amazonaws.com speaks it, under /bedrock:
//   POST /model/{modelId}/converse, /converse-stream: Converse for any model id
//   POST /model/{modelId}/invoke, /invoke-with-response-stream: Claude's Messages (anthropic.* ids,
//   `anthropic_version: bedrock-2023-05-31` in the body, no `model` or `stream`), and embeddings
//   (amazon.titan-embed-*: {inputText}; cohere.embed-*: {texts, input_type})
//   POST /model/{modelId}/count-tokens: CountTokens, {input: {invokeModel: {body}} | {converse}} →
//   {inputTokens}, a token per word (token-count.ts); inference-profile ids refused as Bedrock does
// Every request must be signed with SigV4 for service `bedrock` by a key of FAKE_AWS_CREDENTIALS
// or temporary credentials the STS fake (/sts, handleSts) issued, or carry a Bedrock API key of
// FAKE_BEDROCK_API_KEYS as a bearer token:
// the fake signs the request again with @smithy/signature-v4 and compares (a session token, sent as
// x-amz-security-token, is signed with the rest). Errors are Bedrock's: `{"message": …}` with the
// exception in x-amzn-errortype. Streams are AWS event streams (application/vnd.amazon.eventstream),
// framed by AWS's codec; an exception mid-stream is an exception frame.
// The model id chooses what happens: fail-<throttling|access|validation|context|not-ready|unavailable>
// (that exception), fail-midstream (a stream sends its first delta, then a ThrottlingException
// frame); tokens-<input>-<output>[-cache-<written>-<read>] anywhere after a dot: the usage reported.
// Converse answers "fake answer from <model>" and, with toolConfig (unless the last turn carries
// tool results), calls the chosen or first tool with an input conforming to its inputSchema
// (schema-sample.ts: {"argument":"fake"} when it requires nothing).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { sampleOf } from './schema-sample.ts';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { claudeAnswer, problemWith, type MessagesRequest } from './anthropic-fake.ts';
import type { FakeHandler, SeenRequest } from './openai-fake.ts';
import { fakeTokenCount } from './token-count.ts';

/** The access keys the fake knows, with their secrets (tests configure the gateway with one). */
export const FAKE_AWS_CREDENTIALS: Readonly<Record<string, string>> = {
  FAKEBEDROCKACCESSKEY: 'fake-bedrock-secret-access-key',
};

/** The Bedrock API keys the fake knows (sent as `Authorization: Bearer <key>` instead of a signature). */
export const FAKE_BEDROCK_API_KEYS: ReadonlySet<string> = new Set(['fake-bedrock-api-key-1']);

const EXCEPTIONS: Record<string, { status: number; name: string; message: string }> = {
  throttling: { status: 429, name: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' },
  access: { status: 403, name: 'AccessDeniedException', message: "You don't have access to the model with the specified model ID." },
  validation: { status: 400, name: 'ValidationException', message: 'Malformed input request: #: required key [messages] not found, please reformat your input and try again.' },
  context: { status: 400, name: 'ValidationException', message: 'Input is too long for requested model.' },
  'not-ready': { status: 429, name: 'ModelNotReadyException', message: 'Model is not ready to serve inference requests. The model is being loaded, try again later.' },
  unavailable: { status: 503, name: 'ServiceUnavailableException', message: 'Bedrock is unable to process your request.' },
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export function sendBedrockError(res: ServerResponse, status: number, name: string, message: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-requestid': requestId(),
    'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });
  res.end(JSON.stringify({ message }));
}

export const handleBedrock: FakeHandler = async (req, res, body, seen, rawPath) => {
  const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/.exec(new URL(rawPath, 'http://fake').pathname);
  if (req.method !== 'POST' || !route) {
    sendBedrockError(res, 404, 'UnknownOperationException', `fake: unknown url ${req.method} ${rawPath}`);
    return;
  }
  const refusal = await signatureProblem(req, body, 'bedrock');
  if (refusal) {
    sendBedrockError(res, 403, refusal.name, refusal.message);
    return;
  }
  const model = decodeURIComponent(route[1] ?? '');
  const action = route[2] ?? '';
  let request: Record<string, unknown>;
  try {
    request = JSON.parse(body) as Record<string, unknown>;
  } catch {
    sendBedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    return;
  }
  const fail = /(?:^|\.)fail-([a-z-]+)/.exec(model)?.[1];
  const failure = fail ? EXCEPTIONS[fail] : undefined;
  if (failure) {
    sendBedrockError(res, failure.status, failure.name, failure.message);
    return;
  }
  if (action === 'count-tokens') return countTokens(res, request, model);
  const streamed = action.endsWith('stream');
  if (action.startsWith('converse')) return converse(res, request, model, streamed, fail === 'midstream', seen);
  if (/(^|\.)anthropic\./.test(model)) return invokeClaude(res, request, model, streamed);
  if (!streamed && /(^|\.)(amazon\.titan-embed|cohere\.embed)/.test(model)) return embed(res, request, model);
  sendBedrockError(res, 400, 'ValidationException', `fake: InvokeModel is served for Claude, Titan and Cohere embeddings, not ${model}`);
};

// Temporary credentials STS issued (AssumeRole, AssumeRoleWithWebIdentity), by access key id.
const issued = new Map<string, { secretAccessKey: string; sessionToken: string }>();

/**
 * AWS STS (sts.amazonaws.com) under /sts, as its Query API: a form body in, XML out.
 * AssumeRole must be signed (service sts) by a key of FAKE_AWS_CREDENTIALS;
 * AssumeRoleWithWebIdentity is unsigned and needs a WebIdentityToken. Both need a role ARN and
 * issue temporary credentials (with a session token) that Bedrock accepts.
 */
export const handleSts: FakeHandler = async (req, res, body) => {
  const form = new URLSearchParams(body);
  const action = form.get('Action');
  if (req.method !== 'POST' || (action !== 'AssumeRole' && action !== 'AssumeRoleWithWebIdentity')) {
    return sendStsError(res, 400, 'InvalidAction', `Could not find operation ${String(action)} for version 2011-06-15`);
  }
  if (action === 'AssumeRole') {
    const refusal = await signatureProblem(req, body, 'sts');
    if (refusal) return sendStsError(res, 403, refusal.name === 'InvalidSignatureException' ? 'SignatureDoesNotMatch' : 'InvalidClientTokenId', refusal.message);
  } else if (!form.get('WebIdentityToken')) {
    return sendStsError(res, 400, 'InvalidIdentityToken', "Couldn't retrieve verification key from your identity provider");
  }
  const roleArn = form.get('RoleArn') ?? '';
  const role = /^arn:aws:iam::(\d{12}):role\/(.+)$/.exec(roleArn);
  if (!role) return sendStsError(res, 400, 'ValidationError', `${roleArn} is invalid`);
  const credentials = { accessKeyId: `FAKESTS${randomHex(6).toUpperCase()}`, secretAccessKey: randomHex(20), sessionToken: `fake-session-${randomHex(16)}` };
  issued.set(credentials.accessKeyId, credentials);
  const session = form.get('RoleSessionName') ?? 'session';
  const expiration = new Date(Date.now() + 3600_000).toISOString();
  res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId() });
  res.end(`<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <${action}Result>
    <Credentials>
      <AccessKeyId>${credentials.accessKeyId}</AccessKeyId>
      <SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey>
      <SessionToken>${credentials.sessionToken}</SessionToken>
      <Expiration>${expiration}</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROAFAKE:${session}</AssumedRoleId>
      <Arn>arn:aws:sts::${role[1]}:assumed-role/${role[2]}/${session}</Arn>
    </AssumedRoleUser>
  </${action}Result>
  <ResponseMetadata><RequestId>${requestId()}</RequestId></ResponseMetadata>
</${action}Response>`);
};

function sendStsError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId() });
  res.end(
    `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${requestId()}</RequestId></ErrorResponse>`,
  );
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Why Bedrock would refuse the request's signature (as it words it), or undefined when it is right. */
async function signatureProblem(req: IncomingMessage, body: string, scope: 'bedrock' | 'sts'): Promise<{ name: string; message: string } | undefined> {
  const authorization = req.headers.authorization;
  const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (bearer !== undefined && scope === 'bedrock') {
    return FAKE_BEDROCK_API_KEYS.has(bearer) ? undefined : { name: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  const date = req.headers['x-amz-date'];
  if (typeof authorization !== 'string' || typeof date !== 'string') return { name: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parts = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parts) return { name: 'IncompleteSignatureException', message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.` };
  const [, accessKeyId = '', , region = '', service = '', signedHeaderNames = ''] = parts;
  const sessionToken = req.headers['x-amz-security-token'];
  const temporary = issued.get(accessKeyId);
  const secretAccessKey = FAKE_AWS_CREDENTIALS[accessKeyId] ?? (temporary && temporary.sessionToken === sessionToken ? temporary.secretAccessKey : undefined);
  if (!secretAccessKey) return { name: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (service !== scope) return { name: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${scope}'.` };
  const signer = new SignatureV4({
    service,
    region,
    sha256: Sha256,
    credentials: { accessKeyId, secretAccessKey, ...(typeof sessionToken === 'string' ? { sessionToken } : {}) },
  });
  const headers: Record<string, string> = {};
  for (const name of signedHeaderNames.split(';')) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const expected = await signer.sign(
    { method: req.method ?? 'POST', protocol: 'http:', hostname: url.hostname, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body },
    { signingDate },
  );
  if (expected.headers['authorization'] === authorization) return undefined;
  return {
    name: 'InvalidSignatureException',
    message:
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  };
}

interface ConverseBlock {
  text?: unknown;
  image?: { format?: unknown; source?: { bytes?: unknown } };
  toolUse?: { toolUseId?: unknown; name?: unknown };
  toolResult?: { toolUseId?: unknown };
}

/** Converse's own checks, in its words; undefined when the request is fine. */
function converseProblem(request: Record<string, unknown>): string | undefined {
  const messages = request['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  let previousToolUses = new Set<unknown>();
  for (const [index, message] of (messages as { role?: unknown; content?: unknown }[]).entries()) {
    if (index === 0 && message.role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (index > 0 && message.role === (messages[index - 1] as { role?: unknown }).role)
      return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    if (!Array.isArray(message.content) || message.content.length === 0)
      return `The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`;
    for (const block of message.content as ConverseBlock[]) {
      if (block.image && !(typeof block.image.source?.bytes === 'string' && ['png', 'jpeg', 'gif', 'webp'].includes(String(block.image.format)))) {
        return `The format of the image at messages.${index} is not supported.`;
      }
      if (block.toolResult && !previousToolUses.has(block.toolResult.toolUseId)) {
        return `The toolResult blocks at messages.${index}.content do not match the toolUse blocks of the previous turn.`;
      }
    }
    previousToolUses = new Set((message.content as ConverseBlock[]).filter((block) => block.toolUse).map((block) => block.toolUse?.toolUseId));
  }
  return undefined;
}

function usageFor(model: string): { inputTokens: number; outputTokens: number; totalTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number } {
  const tokens = /(?:^|\.)tokens-(\d+)-(\d+)(?:-cache-(\d+)-(\d+))?/.exec(model);
  const inputTokens = tokens ? Number(tokens[1]) : 7;
  const outputTokens = tokens ? Number(tokens[2]) : 5;
  const cache = tokens?.[3] !== undefined ? { cacheWriteInputTokens: Number(tokens[3]), cacheReadInputTokens: Number(tokens[4]) } : {};
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens + (cache.cacheWriteInputTokens ?? 0) + (cache.cacheReadInputTokens ?? 0), ...cache };
}

async function converse(res: ServerResponse, request: Record<string, unknown>, model: string, streamed: boolean, breakMidstream: boolean, seen: SeenRequest): Promise<void> {
  const problem = converseProblem(request);
  if (problem) return sendBedrockError(res, 400, 'ValidationException', problem);
  const text = `fake answer from ${model}`;
  const tool = toolToCall(request);
  // Forced, the input conforms to the tool's schema; chosen freely (auto), a placeholder (as the other fakes).
  const config = request['toolConfig'] as
    { tools?: { toolSpec?: { name?: unknown; inputSchema?: { json?: unknown } } }[]; toolChoice?: { tool?: unknown; any?: unknown } } | undefined;
  const forced = config?.toolChoice?.tool !== undefined || config?.toolChoice?.any !== undefined;
  const schema = forced ? config?.tools?.find((candidate) => candidate.toolSpec?.name === tool)?.toolSpec?.inputSchema?.json : undefined;
  const toolUse = tool ? { toolUseId: `tooluse_fake${Date.now()}`, name: tool, input: schema === undefined ? { argument: 'fake' } : sampleOf(schema) } : undefined;
  const stopReason = toolUse ? 'tool_use' : 'end_turn';
  const usage = usageFor(model);
  if (!streamed) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId() });
    res.end(
      JSON.stringify({
        output: { message: { role: 'assistant', content: [{ text }, ...(toolUse ? [{ toolUse }] : [])] } },
        stopReason,
        usage,
        metrics: { latencyMs: 1 },
      }),
    );
    return;
  }
  const events: [string, Record<string, unknown>][] = [['messageStart', { role: 'assistant' }]];
  for (const piece of text.split(/(?<= )/)) events.push(['contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece } }]);
  events.push(['contentBlockStop', { contentBlockIndex: 0 }]);
  if (toolUse) {
    events.push(['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: toolUse.toolUseId, name: toolUse.name } } }]);
    const json = JSON.stringify(toolUse.input);
    const half = Math.floor(json.length / 2);
    for (const piece of [json.slice(0, half), json.slice(half)]) events.push(['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: piece } } }]);
    events.push(['contentBlockStop', { contentBlockIndex: 1 }]);
  }
  events.push(['messageStop', { stopReason }], ['metadata', { usage, metrics: { latencyMs: 1 } }]);
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': requestId() });
  res.flushHeaders();
  for (const [index, [type, payload]] of events.entries()) {
    if (seen.aborted || res.destroyed) return;
    res.write(eventFrame(type, payload));
    if (index === 1 && breakMidstream) {
      res.end(exceptionFrame('throttlingException', 'Too many requests, please wait before trying again.'));
      return;
    }
  }
  res.end();
}

function toolToCall(request: Record<string, unknown>): string | undefined {
  const config = request['toolConfig'] as { tools?: { toolSpec?: { name?: unknown } }[]; toolChoice?: { tool?: { name?: unknown } } } | undefined;
  if (!Array.isArray(config?.tools) || config.tools.length === 0) return undefined;
  const last = (request['messages'] as { content?: ConverseBlock[] }[]).at(-1);
  if (last?.content?.some((block) => block.toolResult)) return undefined;
  const name = config.toolChoice?.tool?.name ?? config.tools[0]?.toolSpec?.name;
  return typeof name === 'string' ? name : undefined;
}

async function invokeClaude(res: ServerResponse, request: Record<string, unknown>, model: string, streamed: boolean): Promise<void> {
  if (request['anthropic_version'] !== 'bedrock-2023-05-31') return sendBedrockError(res, 400, 'ValidationException', 'invalid anthropic version');
  for (const extraneous of ['model', 'stream']) {
    if (extraneous in request)
      return sendBedrockError(
        res,
        400,
        'ValidationException',
        `Malformed input request: #: extraneous key [${extraneous}] is not permitted, please reformat your input and try again.`,
      );
  }
  const { anthropic_version: _version, anthropic_beta: _beta, ...messages } = request;
  // The usage is chosen by a tokens-… part of the id: anthropic.claude-tokens-20-5-cache-10-4.
  const name = /tokens-\d.*$/.exec(model)?.[0] ?? model;
  const problem = problemWith({ ...messages, model: name } as MessagesRequest, '2023-06-01');
  if (problem) return sendBedrockError(res, 400, 'ValidationException', problem);
  const { message, events } = claudeAnswer(messages as MessagesRequest, name);
  if (!streamed) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId() });
    res.end(JSON.stringify(message));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': requestId() });
  for (const event of events) {
    if (res.destroyed) return;
    const withMetrics =
      event.type === 'message_stop'
        ? { ...event, 'amazon-bedrock-invocationMetrics': { inputTokenCount: 7, outputTokenCount: 5, invocationLatency: 1, firstByteLatency: 1 } }
        : event;
    res.write(eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(withMetrics)).toString('base64') }));
  }
  res.end();
}

function embed(res: ServerResponse, request: Record<string, unknown>, model: string): void {
  const vector = (seed: number, size: number) => Array.from({ length: size }, (_, i) => Math.round(((seed + 1) * (i + 1)) % 7) / 7);
  if (model.includes('titan-embed')) {
    if (typeof request['inputText'] !== 'string')
      return sendBedrockError(res, 400, 'ValidationException', 'Malformed input request: #: required key [inputText] not found, please reformat your input and try again.');
    const tokens = request['inputText'].split(/\s+/).filter(Boolean).length;
    const size = typeof request['dimensions'] === 'number' ? request['dimensions'] : 8;
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId(), 'x-amzn-bedrock-input-token-count': String(tokens) });
    res.end(
      JSON.stringify({ embedding: vector(request['inputText'].length, size), embeddingsByType: { float: vector(request['inputText'].length, size) }, inputTextTokenCount: tokens }),
    );
    return;
  }
  const texts = request['texts'];
  if (!Array.isArray(texts) || typeof request['input_type'] !== 'string') {
    return sendBedrockError(res, 400, 'ValidationException', 'Malformed input request: #: required key [input_type] not found, please reformat your input and try again.');
  }
  const tokens = texts.reduce((sum: number, text) => sum + String(text).split(/\s+/).filter(Boolean).length, 0);
  res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId(), 'x-amzn-bedrock-input-token-count': String(tokens) });
  res.end(JSON.stringify({ id: requestId(), response_type: 'embeddings_floats', texts, embeddings: texts.map((text) => vector(String(text).length, 8)) }));
}

/** One event frame as Bedrock sends it, with the random-length padding field `p` its payloads carry. */
function eventFrame(type: string, payload: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ ...payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0'.slice(0, 1 + (type.length % 20)) })),
  });
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

function requestId(): string {
  return `fake-${Date.now().toString(16)}-${Math.random().toString(16).slice(2, 10)}`;
}

/**
 * CountTokens: `input.invokeModel.body` (the InvokeModel body, base64 in JSON) or
 * `input.converse` (messages, system, toolConfig), counted by the fakes' tokenizer; like
 * Bedrock, inference-profile ids are refused.
 */
function countTokens(res: ServerResponse, request: Record<string, unknown>, model: string): void {
  if (/^(us|eu|apac|global)\./.test(model)) return sendBedrockError(res, 400, 'ValidationException', "The provided model doesn't support counting tokens.");
  const input = (request['input'] ?? {}) as { invokeModel?: { body?: unknown }; converse?: unknown };
  let counted: unknown;
  if (input.invokeModel && typeof input.invokeModel.body === 'string') {
    try {
      counted = JSON.parse(Buffer.from(input.invokeModel.body, 'base64').toString('utf8'));
    } catch {
      return sendBedrockError(res, 400, 'ValidationException', 'The invokeModel body is not valid JSON.');
    }
  } else if (input.converse) counted = input.converse;
  else return sendBedrockError(res, 400, 'ValidationException', 'input must hold invokeModel or converse.');
  res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId() });
  res.end(JSON.stringify({ inputTokens: fakeTokenCount(counted) }));
}
