import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { getGlobalDispatcher } from 'undici';
import {
  encodeComponent,
  hostileAt,
  hostileMultipart,
  hostileRawBodies,
  hostileSegment,
  hostileText,
  MALFORMED_AUTHORIZATION,
  multipartForm,
  objectText,
  passThroughPath,
  validValue,
} from './hostile-values';
import type { Operation } from './openapi-operations';

/** One request exactly as it goes on the wire (path already encoded, body raw). */
export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Sent as a WebSocket upgrade. */
  upgrade?: boolean;
}

export interface Target {
  url: string;
  /** The Authorization header of a caller who may do everything the operations allow. */
  authorization: string;
  /** Known-good values of path parameters by name (ids of things that exist). */
  validParams: Record<string, string[]>;
  /** Headers every request to these operations carries (MCP's Accept, say). */
  headers?: Record<string, string>;
  /** Secrets of the service's own (a provider key) that no refusal may contain. */
  secrets?: string[];
  /** Whether probes may name the valid ids in changes (POST, PATCH): fixtures of this target's own. */
  mutableIds?: boolean;
  /** Starts the service again if a request stopped it; what it last wrote when it had to. */
  revive?: () => Promise<string | undefined>;
}

function pathArbitrary(operation: Operation, target: Target): fc.Arbitrary<string> {
  if (operation.pathParams.length === 0) return fc.constant(operation.path);
  const values = operation.pathParams.map((name) => {
    // Below a pass-through: the ways out of its base path, mostly.
    if (operation.passThrough && name === 'path') return fc.oneof({ weight: 3, arbitrary: passThroughPath }, { weight: 1, arbitrary: hostileSegment });
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

interface Body {
  body: string | Buffer;
  contentType: string;
}

const json = (body: string | Buffer): Body => ({ body, contentType: 'application/json' });

function bodyArbitrary(operation: Operation): fc.Arbitrary<Body | undefined> {
  if (operation.upgrade) return fc.constant(undefined);
  if (operation.multipart)
    return fc.oneof(
      { weight: 6, arbitrary: hostileMultipart(operation.multipart.fields, operation.multipart.files) },
      { weight: 1, arbitrary: fc.constantFrom(...hostileRawBodies).map(json) },
    );
  if (!operation.body) return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...hostileRawBodies).map(json) });
  return fc.oneof({ weight: 6, arbitrary: hostileAt(operation.body).map(json) }, { weight: 1, arbitrary: fc.constantFrom(...hostileRawBodies).map(json) });
}

/** Requests for `operation`: mostly from its rightful caller (to reach past the door), sometimes with a broken credential or none. */
export function hostileRequests(operation: Operation, target: Target): fc.Arbitrary<HostileRequest> {
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constant<string | undefined>(target.authorization) },
    { weight: 2, arbitrary: fc.constantFrom<string | undefined>(...MALFORMED_AUTHORIZATION) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
  );
  return fc
    .record({ path: pathArbitrary(operation, target), query: queryArbitrary(operation), body: bodyArbitrary(operation), authorization })
    .map(({ path, query, body, authorization: auth }) => ({
      method: operation.method,
      path: `${path}${query}`,
      headers: {
        ...(target.headers ?? {}),
        ...(operation.headers ?? {}),
        ...(auth === undefined ? {} : { authorization: auth }),
        ...(body === undefined ? {} : { 'content-type': body.contentType }),
      },
      ...(body === undefined ? {} : { body: body.body }),
      ...(operation.upgrade ? { upgrade: true } : {}),
    }));
}

/** A value long enough that any echo of it shows, none of its characters special: 2 000 characters in a URL (which must fit the 16 KiB of headers)… */
export const LONG_VALUE = `long-value-${'0123456789'.repeat(199)}`;
/** …and 20 000 in a body, past what a lookup of it elsewhere takes (the control plane's URLs). */
export const LONG_BODY_VALUE = `long-body-value-${'0123456789'.repeat(1999)}`;
/** Text PostgreSQL cannot store, in the middle of ordinary text. */
export const NUL_VALUE = 'nul\u0000byte';

/**
 * For each place a value goes (each path parameter, query parameter, top-level body field and
 * form field), a request holding a long value there and one holding NUL_VALUE, the rest valid, from
 * the rightful caller: run first for every operation, so that an answer quoting a long value
 * whole, or a 500 on a NUL, is found on every route, not only when the random requests happen to
 * put one there.
 */
export function probes(operation: Operation, target: Target): HostileRequest[] {
  if (operation.upgrade) return [];
  // Reads name things that exist; changes only where the target allows it, deletes never: a probe
  // that changed or deleted the suite's fixtures would leave the run nothing to work on.
  const named = operation.method === 'GET' || (operation.method !== 'DELETE' && target.mutableIds === true);
  const fill = (name: string) => (operation.passThrough && name === 'path' ? 'v1/models' : ((named ? target.validParams[name]?.[0] : undefined) ?? 'absent'));
  const headers = { ...(target.headers ?? {}), ...(operation.headers ?? {}), authorization: target.authorization };
  const valid = operation.body ? validValue(operation.body) : undefined;
  const fields = typeof valid === 'object' && valid !== null && !Array.isArray(valid) ? (valid as Record<string, unknown>) : undefined;
  const jsonBody = fields ? { body: JSON.stringify(fields), headers: { ...headers, 'content-type': 'application/json' } } : { headers };
  const multipartBody = (values: Record<string, string>) => {
    const { contentType, body } = multipartForm(values, operation.multipart?.files ?? {});
    return { body, headers: { ...headers, 'content-type': contentType } };
  };
  const validBody = operation.multipart ? multipartBody(operation.multipart.fields) : jsonBody;
  return [LONG_VALUE, NUL_VALUE].flatMap((value) => {
    const pathWith = (param?: string) =>
      operation.pathParams.reduce((path, name) => path.replace(`{${name}}`, name === param ? encodeComponent(value) : fill(name)), operation.path);
    const list: HostileRequest[] = [
      ...operation.pathParams.map((name) => ({ method: operation.method, path: pathWith(name), ...validBody })),
      ...operation.queryParams.map((name) => ({ method: operation.method, path: `${pathWith()}?${encodeComponent(name)}=${encodeComponent(value)}`, ...validBody })),
    ];
    const inBody = value === LONG_VALUE ? LONG_BODY_VALUE : value;
    for (const name of Object.keys(fields ?? {}))
      list.push({ method: operation.method, path: pathWith(), headers: jsonBody.headers, body: objectText(fields ?? {}, name, JSON.stringify(inBody)) });
    for (const name of Object.keys(operation.multipart?.fields ?? {}))
      list.push({ method: operation.method, path: pathWith(), ...multipartBody({ ...operation.multipart?.fields, [name]: inBody }) });
    return list;
  });
}

export interface Answer {
  status: number;
  contentType: string;
  /** Response headers, lower-cased. */
  headers: Record<string, string>;
  text: string;
}

const TIMEOUT_MS = 15_000;

export async function send(url: string, hostile: HostileRequest): Promise<Answer> {
  if (hostile.upgrade) return sendUpgrade(url, hostile);
  // The path goes out exactly as written: a URL parser would resolve `..` before the server saw it.
  const response = await getGlobalDispatcher().request({
    origin: url,
    path: hostile.path,
    method: hostile.method as 'GET',
    headers: hostile.headers,
    ...(hostile.body === undefined ? {} : { body: hostile.body }),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)]));
  const contentType = headers['content-type'] ?? '';
  // A stream that was opened (the MCP gateway's /sse, a streamed call) lives as long as its client:
  // its status and headers are the answer; reading on would hold the run until it times out.
  if (response.statusCode < 400 && contentType.startsWith('text/event-stream')) {
    // undici reports the stream it was made to drop as an error: heard here, not as an unhandled one.
    response.body.on('error', () => undefined);
    response.body.destroy();
    return { status: response.statusCode, contentType, headers, text: '' };
  }
  return { status: response.statusCode, contentType, headers, text: await response.body.text() };
}

/** A WebSocket upgrade: 101 once accepted (the socket is closed at once), else the refusal as answered. */
function sendUpgrade(url: string, hostile: HostileRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const outgoing = httpRequest({
      hostname,
      port,
      path: hostile.path,
      method: 'GET',
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...hostile.headers },
      timeout: TIMEOUT_MS,
    });
    outgoing.once('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 101, contentType: '', headers: {}, text: '' });
    });
    outgoing.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type'] ?? ''),
          headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)])),
          text,
        }),
      );
      response.once('error', reject);
    });
    outgoing.once('timeout', () => outgoing.destroy(new Error(`no answer to the upgrade within ${TIMEOUT_MS} ms`)));
    outgoing.once('error', reject);
    outgoing.end();
  });
}

/** A whole refusal fits in this, whatever was sent (the echo bound below is the sharper test). */
export const MAX_REFUSAL_BYTES = 16 * 1024;
/** Errors quote what was sent only as an excerpt of this many characters (the README's promise). */
export const MAX_EXCERPT = 64;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every string and key in a JSON value (iteratively: hostile bodies nest thousands deep). */
function stringsIn(root: unknown): string[] {
  const strings: string[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) pending.push(...value);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        strings.push(key);
        pending.push(item);
      }
    }
  }
  return strings;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Each text the request carried: its path segments and query names and values (decoded and not), header values, and its body's strings (or its bytes as text). */
function sentTexts(hostile: HostileRequest): string[] {
  const queryStart = hostile.path.indexOf('?');
  const path = queryStart < 0 ? hostile.path : hostile.path.slice(0, queryStart);
  const query = queryStart < 0 ? '' : hostile.path.slice(queryStart + 1);
  const pieces = [...path.split('/'), ...query.split(/[&=]/)];
  const texts = [...pieces, ...pieces.map(decoded), ...Object.values(hostile.headers)];
  if (hostile.body !== undefined) {
    const text = Buffer.isBuffer(hostile.body) ? hostile.body.toString('utf8') : hostile.body;
    const value = parsed(text);
    texts.push(...(value === undefined ? [text] : stringsIn(value)));
  }
  return texts.filter((text) => text.length > MAX_EXCERPT);
}

/**
 * The texts of an answer an echo would show in: its strings (and keys) when it is JSON, but not a
 * JSON-RPC answer's `id`, which the protocol has the server repeat whole; its text otherwise.
 */
function answerTexts(text: string, body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [text];
  const { jsonrpc, id, ...rest } = body as Record<string, unknown>;
  return stringsIn(jsonrpc === '2.0' ? rest : { ...rest, ...(id === undefined ? {} : { id }) });
}

/** A piece of `sent` longer than an excerpt that the answer repeats, or undefined. */
function echoIn(answerTexts: string[], sent: string[]): string | undefined {
  const windows = new Set<string>();
  for (const text of answerTexts) for (let start = 0; start + MAX_EXCERPT < text.length; start++) windows.add(text.slice(start, start + MAX_EXCERPT + 1));
  if (windows.size === 0) return undefined;
  for (const text of sent) {
    for (let start = 0; start + MAX_EXCERPT < text.length; start++) {
      const window = text.slice(start, start + MAX_EXCERPT + 1);
      if (windows.has(window)) return window;
    }
  }
  return undefined;
}

/**
 * What is wrong with an answer to a hostile request, or undefined: never a 5xx, and every refusal
 * JSON with a stable code and a message (the suite's envelope, OpenAI's, or JSON-RPC's), quoting
 * nothing the request sent beyond a 64-character excerpt and no secret of the service's.
 * `relayed`: the answer is an upstream's, passed on untouched (its wording is the upstream's).
 */
export function answerProblem(answer: Answer, hostile: HostileRequest, target: Target, relayed = false): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (relayed) return undefined;
  const body = /json/.test(answer.contentType) ? parsed(answer.text) : undefined;
  const inBandError = answer.status < 400 && typeof body === 'object' && body !== null && (body as { error?: unknown }).error != null;
  if (answer.status < 400 && !inBandError) return undefined;
  const secret = (target.secrets ?? []).find((candidate) => answer.text.includes(candidate) || Object.values(answer.headers).some((value) => value.includes(candidate)));
  if (secret) return `refused with ${answer.status}, showing the service's secret ${secret.slice(0, 6)}…: ${answer.text.slice(0, 200)}`;
  const echo = echoIn(answerTexts(answer.text, body), sentTexts(hostile));
  if (echo)
    return `refused with ${answer.status}, quoting more than a ${MAX_EXCERPT}-character excerpt of what was sent (${JSON.stringify(echo)}) in ${Buffer.byteLength(answer.text)} bytes: ${answer.text.slice(0, 200)}`;
  if (inBandError) return undefined;
  if (!/json/.test(answer.contentType)) return `refused with ${answer.status} but not in JSON (${answer.contentType || 'no content type'}): ${answer.text.slice(0, 200)}`;
  if (Buffer.byteLength(answer.text) > MAX_REFUSAL_BYTES) return `refused with ${answer.status} in ${Buffer.byteLength(answer.text)} bytes: the answer echoes what was sent`;
  if (body === undefined) return `refused with ${answer.status} in malformed JSON: ${answer.text.slice(0, 200)}`;
  // OAuth's envelope (RFC 6749 §5.2) on the OAuth metadata and token routes: `error` is the code.
  const oauth = body as { error?: unknown; error_description?: unknown };
  if (typeof oauth.error === 'string') {
    if (oauth.error === '' || typeof oauth.error_description !== 'string' || oauth.error_description === '')
      return `refused with ${answer.status} without an OAuth error and error_description: ${answer.text.slice(0, 200)}`;
    return undefined;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
  const code = error?.code;
  if (!((typeof code === 'string' && code !== '') || typeof code === 'number')) return `refused with ${answer.status} without error.code: ${answer.text.slice(0, 200)}`;
  if (typeof error?.message !== 'string' || error.message === '') return `refused with ${answer.status} without error.message: ${answer.text.slice(0, 200)}`;
  return undefined;
}

/** How a request shows in a failure report: readable, and short. */
export function describeRequest(hostile: HostileRequest): string {
  const body =
    hostile.body === undefined
      ? ''
      : ` ${Buffer.isBuffer(hostile.body) ? `${JSON.stringify(hostile.body.toString('latin1').slice(0, 240))} (${hostile.body.length} bytes)` : JSON.stringify(hostile.body.slice(0, 160))}`;
  const auth = hostile.headers['authorization'] ? ` [${hostile.headers['authorization'].slice(0, 24)}…]` : ' [no credential]';
  const type = hostile.headers['content-type'] && !hostile.headers['content-type'].startsWith('application/json') ? ` (${hostile.headers['content-type'].slice(0, 60)})` : '';
  const others = Object.entries(hostile.headers).filter(([name]) => !['authorization', 'content-type', 'accept'].includes(name));
  const extra = others.length === 0 ? '' : ` {${others.map(([name, value]) => `${name}: ${value.length > 24 ? `${value.slice(0, 24)}…` : value}`).join(', ')}}`;
  return `${hostile.upgrade ? 'UPGRADE ' : ''}${hostile.method} ${hostile.path.slice(0, 160)}${auth}${extra}${type}${body}`;
}
