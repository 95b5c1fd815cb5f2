/** Why a bearer token was refused; the message is meant for the caller and never contains the token. */
export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
}

/** A `kid` or `alg` from a token header, made safe to quote in a message and a header. */
export function quoteHeaderValue(value: unknown): string {
  if (typeof value !== 'string') return String(value);
  const printable = value.replace(/[^A-Za-z0-9._~+/=-]/g, '?');
  return `'${printable.length > 64 ? `${printable.slice(0, 64)}...` : printable}'`;
}
