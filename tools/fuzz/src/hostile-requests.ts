import fc from 'fast-check';
import { request } from 'undici';
import { encodeComponent, hostileAt, hostileRawBodies, hostileSegment, hostileText, MALFORMED_AUTHORIZATION } from './hostile-values';
import type { Operation } from './openapi-operations';

/** One request exactly as it goes on the wire (path already encoded, body raw). */
export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface Target {
  url: string;
  /** The Authorization header of a caller who may do everything the operations allow. */
  authorization: string;
  /** Known-good values of path parameters by name (ids of things that exist). */
  validParams: Record<string, string[]>;
  /** Headers every request to these operations carries (MCP's Accept, say). */
  headers?: Record<string, string>;
}

function pathArbitrary(operation: Operation, target: Target): fc.Arbitrary<string> {
  if (operation.pathParams.length === 0) return fc.constant(operation.path);
  const values = operation.pathParams.map((name) => {
    const valid = target.validParams[name] ?? [];
    // Deleting what exists would leave the rest of the run nothing to work on: deletes get hostile ids only.
    return valid.length > 0 && operation.method !== 'DELETE'
      ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...valid) }, { weight: 2, arbitrary: hostileSegment })
      : hostileSegment;
  });
  return fc.tuple(...values).map((segments) => operation.pathParams.reduce((path, name, index) => path.replace(`{${name}}`, segments[index] as string), operation.path));
}

function queryArbitrary(operation: Operation): fc.Arbitrary<string> {
  const names = [...operation.queryParams, '__proto__[polluted]', 'unknown'];
  const pairs = fc.uniqueArray(fc.tuple(fc.constantFrom(...names), hostileText), { maxLength: 3, selector: ([name]) => name });
  return fc.oneof(
    { weight: 4, arbitrary: pairs.map((list) => (list.length === 0 ? '' : `?${list.map(([name, value]) => `${encodeComponent(name)}=${encodeComponent(value)}`).join('&')}`)) },
    { weight: 1, arbitrary: fc.constantFrom('?%ff=1', '?a=%ED%A0%80', '?%00=%00', `?q=${'m'.repeat(20_000)}`, '?a=1&a=2&a[]=3', '?') },
  );
}

function bodyArbitrary(operation: Operation): fc.Arbitrary<string | Buffer | undefined> {
  if (!operation.body) return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...hostileRawBodies) });
  return fc.oneof({ weight: 6, arbitrary: hostileAt(operation.body) }, { weight: 1, arbitrary: fc.constantFrom(...hostileRawBodies) });
}

/** Requests for `operation`: mostly from its rightful caller (to reach past the door), sometimes with a broken credential or none. */
export function hostileRequests(operation: Operation, target: Target): fc.Arbitrary<HostileRequest> {
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | undefined>(target.authorization) },
    { weight: 2, arbitrary: fc.constantFrom<string | undefined>(...MALFORMED_AUTHORIZATION) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
  );
  return fc.record({ path: pathArbitrary(operation, target), query: queryArbitrary(operation), body: bodyArbitrary(operation), authorization }).map(({ path, query, body, authorization: auth }) => ({
    method: operation.method,
    path: `${path}${query}`,
    headers: {
      ...(target.headers ?? {}),
      ...(auth === undefined ? {} : { authorization: auth }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  }));
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

export async function send(url: string, hostile: HostileRequest): Promise<Answer> {
  const response = await request(`${url}${hostile.path}`, {
    method: hostile.method as 'GET',
    headers: hostile.headers,
    ...(hostile.body === undefined ? {} : { body: hostile.body }),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const text = await response.body.text();
  return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text };
}

/** Errors quote at most a short excerpt of what was sent; a whole refusal fits in this. */
export const MAX_REFUSAL_BYTES = 16 * 1024;

/**
 * What is wrong with an answer to a hostile request, or undefined: never a 5xx, and every refusal
 * JSON with a stable code and a message (the suite's envelope, OpenAI's, or JSON-RPC's).
 */
export function answerProblem(answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status < 400) return undefined;
  if (!/json/.test(answer.contentType)) return `refused with ${answer.status} but not in JSON (${answer.contentType || 'no content type'}): ${answer.text.slice(0, 200)}`;
  if (Buffer.byteLength(answer.text) > MAX_REFUSAL_BYTES) return `refused with ${answer.status} in ${Buffer.byteLength(answer.text)} bytes: the answer echoes what was sent`;
  let body: { error?: { code?: unknown; message?: unknown } };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    return `refused with ${answer.status} in malformed JSON: ${answer.text.slice(0, 200)}`;
  }
  const code = body.error?.code;
  if (!((typeof code === 'string' && code !== '') || typeof code === 'number')) return `refused with ${answer.status} without error.code: ${answer.text.slice(0, 200)}`;
  if (typeof body.error?.message !== 'string' || body.error.message === '') return `refused with ${answer.status} without error.message: ${answer.text.slice(0, 200)}`;
  return undefined;
}

/** How a request shows in a failure report: readable, and short. */
export function describeRequest(hostile: HostileRequest): string {
  const body = hostile.body === undefined ? '' : ` ${(Buffer.isBuffer(hostile.body) ? `<bytes ${hostile.body.toString('hex').slice(0, 60)}>` : JSON.stringify(hostile.body.slice(0, 160)))}`;
  const auth = hostile.headers['authorization'] ? ` [${hostile.headers['authorization'].slice(0, 24)}…]` : ' [no credential]';
  return `${hostile.method} ${hostile.path.slice(0, 160)}${auth}${body}`;
}
