import { ProviderError } from './provider-error';

// A segment decoded this many times and still changing is refused whatever it hides.
const MAX_DECODINGS = 4;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const SEPARATOR_OR_CONTROL = /[/\\\u0000-\u001f\u007f]/;

/** The refusal of a pass-through path that would not stay below the configured base. */
export const passThroughPathRefused = () =>
  new ProviderError(
    400,
    'invalid_request_error',
    "The path is not one the pass-through forwards: it must stay below the provider's base path, without '.' or '..' segments (in any encoding), empty segments, backslashes or encoded separators.",
    'invalid_pass_through_path',
    'path',
  );

/**
 * The upstream URL of a pass-through request: `path` (as the client sent it, percent-encoded,
 * from the gateway's route prefix on) below `base` (the configured api_base or target), with the
 * client's `search` (`?limit=2`, or ''). The path is the client's, the base and its host the
 * operator's, and the provider's key goes along: so each segment is decoded (repeatedly, for
 * double encoding), `.` and `..` resolved, and a path that would leave the base, or that hides a
 * dot segment, separator, backslash or control character in an encoding, or has an empty
 * segment, is refused (400 invalid_pass_through_path) rather than passed to a URL parser or an
 * upstream that would resolve it differently. Segments are sent as the client encoded them.
 */
export function passThroughUrl(base: string, path: string, search: string): URL {
  const root = new URL(base);
  root.search = '';
  root.hash = '';
  const rootPath = root.pathname.replace(/\/+$/, '');
  const kept: string[] = [];
  const segments = path === '' || path === '/' ? [] : (path.startsWith('/') ? path.slice(1) : path).split('/');
  for (const [index, raw] of segments.entries()) {
    // The route's own path drops one trailing slash; any other empty segment is refused.
    if (raw === '' && index === segments.length - 1) break;
    const decoded = decodedFully(raw);
    if (decoded === undefined || decoded === '' || SEPARATOR_OR_CONTROL.test(decoded)) throw passThroughPathRefused();
    const once = decodeURIComponent(raw);
    // A dot segment hidden under two encodings is read as one by an upstream that decodes twice.
    if ((decoded === '.' || decoded === '..') && once !== decoded) throw passThroughPathRefused();
    if (decoded === '.') continue;
    if (decoded === '..') {
      if (kept.length === 0) throw passThroughPathRefused();
      kept.pop();
      continue;
    }
    kept.push(raw);
  }
  const url = new URL(`${root.origin}${rootPath}/${kept.join('/')}${search}`);
  // What the URL parser made of it must still be below the base (it resolves what the checks above let through).
  if (url.origin !== root.origin || (url.pathname !== `${rootPath}/` && !url.pathname.startsWith(`${rootPath}/`))) throw passThroughPathRefused();
  return url;
}

/** `raw` percent-decoded until it no longer changes; undefined when it is not valid percent-encoded UTF-8 or keeps changing. */
function decodedFully(raw: string): string | undefined {
  let current = raw;
  for (let decodings = 0; decodings < MAX_DECODINGS; decodings++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return undefined;
    }
    if (next === current) return current;
    current = next;
  }
  return undefined;
}
