// DNS-rebinding protection for a server bound to loopback: a web page on another site whose name
// resolves to 127.0.0.1 reaches us with its own name in Host and Origin, so both must name this machine.
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host === '::1';
}

function namesLoopback(url: string): boolean {
  try {
    return LOOPBACK_NAMES.has(new URL(url).hostname);
  } catch {
    return false;
  }
}

// Why the request is refused, or undefined when its Host (and Origin, if sent) name this machine.
export function foreignHostOrOrigin(req: IncomingMessage): string | undefined {
  if (!namesLoopback(`http://${req.headers.host ?? ''}`)) return 'the Host header does not name this machine';
  const origin = req.headers.origin;
  if (origin !== undefined && !namesLoopback(origin)) return 'the Origin header does not name this machine';
  return undefined;
}
