/** What a log line says of an error: enough to diagnose it, nothing of the data it was working on. */
export interface ErrorFields {
  type: string;
  message: string;
  code?: string | number;
  stack?: string;
  cause?: ErrorFields;
}

// A cause of a cause of a cause is noise, and a cyclic chain must end.
const MAX_CAUSES = 3;

/**
 * An error as a log line's field: its class, message, code (PostgreSQL's SQLSTATE, Node's
 * `ECONNREFUSED`…), stack and causes. Its other own properties are left out on purpose: a
 * driver's error carries the query's parameters, which may be a client's data or a secret.
 * (A thrown Error serialised by JSON.stringify is `{}`: log this instead.)
 */
export function errorFields(error: unknown, depth = 0): ErrorFields {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  return {
    type: error.constructor?.name || error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
    ...(cause !== undefined && depth < MAX_CAUSES ? { cause: errorFields(cause, depth + 1) } : {}),
  };
}
