import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { excerpt, InputProblem, inputProblem, nestingProblem, textProblem } from './input-rules';

/** 400 invalid_request naming the refused field, in the shape DTO validation uses (`details.fields`). */
export function inputRefusal({ field, problem }: InputProblem): ApiError {
  return new ApiError(400, 'invalid_request', `Invalid ${field}: it ${problem}`, { fields: { [field]: [`${field} ${problem}`] } });
}

/**
 * The body parsers' `verify`: a body that is not UTF-8 is refused, never decoded with U+FFFD in
 * place of its bad bytes (which would store a value other than the one sent).
 */
export function requireUtf8Body(_request: IncomingMessage, _response: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error('The request body is not valid UTF-8.'), { status: 400, statusCode: 400, expose: true, type: 'encoding.invalid' });
}

/**
 * Every request of the framework's routes, after the body parsers and before routing: the body
 * and the query string hold only storable text and nest no deeper than the limit (input-rules.ts).
 * Path parameters are checked by InputTextGuard, which knows their names.
 */
export function inputLimitsMiddleware(request: Request, response: Response, next: NextFunction): void {
  inputLimits()(request, response, next);
}

/**
 * inputLimitsMiddleware, except that on the routes `opaqueBody` names the body's text is the
 * client's own business (an MCP message's tool arguments, passed on as sent): only its nesting
 * is checked there, as the direct routes do.
 */
export function inputLimits(opaqueBody?: (path: string) => boolean): (request: Request, response: Response, next: NextFunction) => void {
  return (request, _response, next) => {
    const opaque = opaqueBody?.(request.path) ?? false;
    const problem = queryProblem(request.url) ?? bodyProblem(request.body, opaque);
    next(problem ? inputRefusal(problem) : undefined);
  };
}

function bodyProblem(body: unknown, opaque: boolean): InputProblem | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const found = opaque ? nestingProblem(body, '') : inputProblem(body, '');
  return found && { ...found, field: found.field.replace(/^\./, '') || 'body' };
}

/**
 * The request target of a direct route (which no framework middleware sees): its path, segment
 * by segment, and its query string hold only storable, validly percent-encoded text.
 */
export function requestTargetProblem(url: string | undefined): InputProblem | undefined {
  return pathProblem(url) ?? queryProblem(url);
}

/** 400 invalid_request naming the refused field, as JSON every API family reads (OpenAI's and Anthropic's SDKs, the suite's own clients). */
export function inputRefusalBody(problem: InputProblem): Record<string, unknown> {
  const { error } = inputRefusal(problem).toBody();
  return { type: 'error', error: { type: 'invalid_request_error', ...error, param: problem.field } };
}

function pathProblem(url: string | undefined): InputProblem | undefined {
  const end = url?.indexOf('?') ?? -1;
  const path = end < 0 ? (url ?? '') : (url as string).slice(0, end);
  // Only percent-encoded segments are checked (below); most paths have none, and need no split.
  if (!path.includes('%')) return undefined;
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue;
    const text = decoded(segment, false);
    if (text === undefined) return { field: 'path', problem: 'is not valid percent-encoded UTF-8' };
    const problem = textProblem(text);
    if (problem) return { field: 'path', problem };
  }
  return undefined;
}

/** The raw query string, decoded pair by pair as the parser will: bad percent-encoding or forbidden text is refused. */
function queryProblem(url: string | undefined): InputProblem | undefined {
  const start = url?.indexOf('?') ?? -1;
  if (start < 0) return undefined;
  for (const pair of (url as string).slice(start + 1).split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals < 0 ? pair : pair.slice(0, equals);
    const name = decoded(rawName);
    const field = name === undefined ? 'query' : excerpt(name);
    if (name === undefined) return { field, problem: 'is not valid percent-encoded UTF-8' };
    const nameProblem = textProblem(name);
    if (nameProblem) return { field: 'query', problem: `has a parameter name that ${nameProblem}` };
    if (equals < 0) continue;
    const value = decoded(pair.slice(equals + 1));
    if (value === undefined) return { field, problem: 'is not valid percent-encoded UTF-8' };
    const valueProblem = textProblem(value);
    if (valueProblem) return { field, problem: valueProblem };
  }
  return undefined;
}

function decoded(component: string, plusIsSpace = true): string | undefined {
  try {
    return decodeURIComponent(plusIsSpace ? component.replace(/\+/g, ' ') : component);
  } catch {
    return undefined;
  }
}
