import type { IncomingMessage } from 'node:http';
import { inputProblem, nestingProblem, readRequestBody } from '@arbor/platform';
import { badRequest, requestTooLarge, unsupportedEncoding } from '../gateway-errors';

/** Long contexts and base64 images: chat bodies run to many megabytes (OpenAI accepts 20 MB per image). */
export const MAX_REQUEST_BYTES = 100 * 1024 * 1024;

/**
 * How a body's text is held: a model call's prompts are the caller's own business (`opaque`: only
 * the nesting limit applies); the fields of a stored resource (files, batches, vector stores,
 * assistants, threads), which the gateway stores and looks up, follow the suite's input rules
 * (`checked`: no NUL, no lone surrogate, no `__proto__`), as every body at the framework's edge.
 */
export type BodyText = 'opaque' | 'checked';

/**
 * The JSON object an OpenAI-format call sends, read whole (it is needed whole to route it), refused
 * with 413 once it outgrows `limit` and 400 when it is not a JSON object or breaks the rules of
 * `text`. Any content type is read as JSON, as OpenAI does.
 */
export async function readJsonObject(request: IncomingMessage, text: BodyText = 'opaque', limit = MAX_REQUEST_BYTES): Promise<Record<string, unknown>> {
  const body = await readRequestBody(request, limit);
  if ('bytes' in body) return jsonObject(body.bytes, text);
  throw body.refused === 'unsupported_encoding' ? unsupportedEncoding(body.encoding) : requestTooLarge(limit);
}

function jsonObject(bytes: Buffer, text: BodyText): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
  // Prompts are the caller's own text, but no request needs JSON nested deeper than the suite's limit.
  const tooDeep = nestingProblem(body, 'body');
  if (tooDeep) throw badRequest(`Invalid ${tooDeep.field}: it ${tooDeep.problem}.`);
  const problem = text === 'checked' ? inputProblem(body, '') : undefined;
  if (problem) {
    const field = problem.field.replace(/^\./, '') || 'body';
    throw badRequest(`Invalid ${field}: it ${problem.problem}.`, field);
  }
  return body as Record<string, unknown>;
}

/** Whether a request carries a body: a content-length above 0, or a chunked one (a run's cancel POSTs none). */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return length === undefined ? request.headers['transfer-encoding'] !== undefined : Number(length) > 0;
}
