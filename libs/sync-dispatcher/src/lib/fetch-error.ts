interface ErrorLike {
  message: string;
  code?: string;
  cause?: unknown;
  /** An AggregateError's errors: connecting to localhost tries ::1 and 127.0.0.1. */
  errors?: unknown[];
}

// Duck-typed: errors from Node's own fetch are not instances of a test sandbox's Error.
function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string';
}

function reasonOf(error: ErrorLike): string {
  const first = error.errors?.find(isErrorLike);
  const message = error.message || (first ? reasonOf(first) : '');
  const code = error.code ?? first?.code;
  return code && !message.includes(code) ? `${code}${message ? `: ${message}` : ''}` : message;
}

/**
 * A failed fetch in words an operator can act on: fetch throws `TypeError: fetch failed` and
 * keeps the reason (ECONNREFUSED, ENOTFOUND, a reset) in `cause`.
 */
export function describeFetchError(error: unknown): string {
  if (!isErrorLike(error)) return String(error);
  return (isErrorLike(error.cause) && reasonOf(error.cause)) || error.message;
}
