import { PROJECT_SLUG } from '@arbor/contract';
import { excerpt, withHopByHop } from '@arbor/platform';
import type { UpstreamSelection } from './server-registry';
import type { CatalogueItem } from './upstream-catalogue';

// The rules a name, header or selection must follow, shared by MCPGW_CONFIG and the admin API
// (the tables' checks say the same).

export const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const SERVER_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** The control plane's project slugs, as the contract states them. */
export { PROJECT_SLUG };

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CONCURRENCY = 10;

/** RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// The gateway sets these itself on every upstream request, and no hop-by-hop header describes a
// stored upstream: an upstream's headers may not name them.
const RESERVED_HEADERS = withHopByHop('host', 'content-length', 'content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id');

/** Headers one upstream may be given: credentials and routing hints, not a payload. */
export const MAX_UPSTREAM_HEADERS = 32;
/** Longest header name and value: what common servers accept in one header (8 KiB). */
export const MAX_HEADER_NAME_LENGTH = 256;
export const MAX_HEADER_VALUE_LENGTH = 8192;

/** Why a header cannot be sent to an upstream, or undefined when it can (the value is never quoted). */
export function headerProblem(name: string, value: unknown): string | undefined {
  if (name.length > MAX_HEADER_NAME_LENGTH) return `"${excerpt(name)}" is longer than ${MAX_HEADER_NAME_LENGTH} characters`;
  if (!HEADER_NAME.test(name)) return `"${excerpt(name)}" is not a valid header name`;
  if (RESERVED_HEADERS.has(name.toLowerCase())) return `"${name}" is set by the gateway and cannot be configured`;
  if (typeof value !== 'string' || value === '') return `the value of "${excerpt(name)}" must be a non-empty string`;
  if (value.length > MAX_HEADER_VALUE_LENGTH) return `the value of "${excerpt(name)}" is longer than ${MAX_HEADER_VALUE_LENGTH} characters`;
  if (/[\r\n\0]/.test(value)) return `the value of "${excerpt(name)}" contains a line break or NUL`;
  return undefined;
}

/** Why a set of `count` headers is too many, or undefined. */
export function headerCountProblem(count: number): string | undefined {
  return count > MAX_UPSTREAM_HEADERS ? `at most ${MAX_UPSTREAM_HEADERS} headers may be given to an upstream, not ${count}` : undefined;
}

/** Header names lower-cased, so `Authorization` and `authorization` are one header. */
export function normaliseHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Whether a selection takes a catalogue item: its kind's list is `'*'` or names it. */
export function selects(selection: UpstreamSelection, item: Pick<CatalogueItem, 'upstream' | 'kind' | 'name'>): boolean {
  if (selection.upstream !== item.upstream) return false;
  const names = item.kind === 'tool' ? selection.tools : item.kind === 'prompt' ? selection.prompts : selection.resources;
  return names === '*' || names.includes(item.name);
}
