import { EventEmitter } from 'node:events';

export const REDACTED = '[REDACTED]';

/** Marks a line's fields as built redacted (the request log): the logger skips its walk over them. Symbols are not serialized. */
export const ALREADY_REDACTED = Symbol('arbor.alreadyRedacted');

/**
 * Keys whose values never reach a log. `token(?!s)` spares usage counters such as
 * `prompt_tokens` and `max_tokens`, which the gateways log on purpose.
 */
const SENSITIVE_KEY = /authorization|cookie|token(?!s)|secret|passw(or)?d|api[-_]?key|private[-_]?key|credential|session[-_]?id|signature/i;
/** Query parameters that carry credentials under short names (Gemini's `key`, Azure SAS `sig`, OAuth `code`). */
const SENSITIVE_QUERY_PARAM = /^(key|sig|code)$/i;
// Deeper than any object worth logging; it also bounds the walk over cyclic graphs.
const MAX_DEPTH = 10;

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key);
}

/**
 * A copy of `value` with every sensitive key's value replaced by "[REDACTED]", at any depth.
 * Objects without a sensitive key are returned as they are (no copy). Streams, buffers and
 * values with their own `toJSON` are left alone: they are not bags of fields.
 */
export function redactSensitive<T>(value: T): T {
  return redactValue(value, 0, []) as T;
}

function redactValue(value: unknown, depth: number, ancestors: object[]): unknown {
  if (typeof value !== 'object' || value === null || !isWalkable(value)) return value;
  if (ancestors.includes(value)) return value;
  if (depth >= MAX_DEPTH) return '[Object]';
  ancestors.push(value);
  try {
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      value.forEach((item, index) => {
        const redacted = redactValue(item, depth + 1, ancestors);
        if (redacted !== item) (copy ??= [...value])[index] = redacted;
      });
      return copy ?? value;
    }
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      const redacted = SENSITIVE_KEY.test(key) && item !== undefined && item !== null ? REDACTED : redactValue(item, depth + 1, ancestors);
      if (redacted !== item) (copy ??= { ...value })[key] = redacted;
    }
    return copy ?? value;
  } finally {
    ancestors.pop();
  }
}

function isWalkable(value: object): boolean {
  return !(
    value instanceof EventEmitter ||
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    value instanceof Promise ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

/** Request or response headers with credential-bearing values replaced; a header-name check, no deep walk. */
export function redactHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!headers) return headers;
  let copy: Record<string, unknown> | undefined;
  for (const name of Object.keys(headers)) {
    if (SENSITIVE_KEY.test(name)) (copy ??= { ...headers })[name] = REDACTED;
  }
  return copy ?? headers;
}

/** A request URL with credential-bearing query parameters replaced. */
export function redactUrl(url: string | undefined): string | undefined {
  const queryStart = url?.indexOf('?') ?? -1;
  if (url === undefined || queryStart < 0) return url;
  const params = url.slice(queryStart + 1).split('&');
  let changed = false;
  const redacted = params.map((param) => {
    const separator = param.indexOf('=');
    const name = decodeSafely(separator < 0 ? param : param.slice(0, separator));
    if (separator < 0 || !(SENSITIVE_KEY.test(name) || SENSITIVE_QUERY_PARAM.test(name))) return param;
    changed = true;
    return `${param.slice(0, separator)}=${REDACTED}`;
  });
  return changed ? `${url.slice(0, queryStart)}?${redacted.join('&')}` : url;
}

function decodeSafely(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return component;
  }
}
