/**
 * The headers that describe one connection, not the message (RFC 9110 §7.6.1), which a proxy
 * never passes on in either direction: the one list every pass-through, answer, reply and
 * replica-to-replica forward of the suite reads.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The hop-by-hop headers and `others` a place also leaves out (an answer the gateway frames anew drops content-length), as one set to test names against. */
export function withHopByHop(...others: string[]): ReadonlySet<string> {
  return new Set([...HOP_BY_HOP_HEADERS, ...others]);
}

/** `headers` without those `leftOut` names (lower-case, as Node gives them), for a message sent on to the next hop. */
export function headersForNextHop<T>(headers: Record<string, T | undefined>, leftOut: ReadonlySet<string> = HOP_BY_HOP_HEADERS): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !leftOut.has(name)) out[name] = value;
  return out;
}
