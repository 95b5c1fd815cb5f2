import { PROJECT_SLUG } from '@arbor/contract';
import { excerpt, withHopByHop } from '@arbor/platform';
import type { ItemRole, ToolRateLimit, UpstreamSelection } from './server-registry';
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

/** The roles a tool, resource or prompt may need (`tool_roles`, `resource_roles`, `prompt_roles`). */
export const ITEM_ROLES: readonly ItemRole[] = ['operator', 'viewer'];
/** Items one map may name, and the longest name (resource URIs can be long). */
export const MAX_NAMED_ITEMS = 1000;
export const MAX_ITEM_NAME_LENGTH = 2000;
/** The highest `per_minute` a tool rate limit takes. */
export const MAX_PER_MINUTE = 1_000_000;

/** Why `{name: "operator" | "viewer"}` is not one, or undefined when it is (names are quoted as excerpts). */
export function itemRolesProblem(value: unknown): string | undefined {
  const entries = namedEntries(value, 'of names to "operator" or "viewer"');
  if (typeof entries === 'string') return entries;
  for (const [name, role] of entries) {
    if (!ITEM_ROLES.includes(role as ItemRole)) return `"${excerpt(name)}" must need "operator" or "viewer"`;
  }
  return undefined;
}

/** Why `{tool: {per_minute: N}}` is not one, or undefined when it is. */
export function toolRateLimitsProblem(value: unknown): string | undefined {
  const entries = namedEntries(value, 'of tool names to {per_minute: N}');
  if (typeof entries === 'string') return entries;
  for (const [name, limit] of entries) {
    if (typeof limit !== 'object' || limit === null || Array.isArray(limit) || Object.keys(limit).some((key) => key !== 'per_minute')) {
      return `"${excerpt(name)}" must be {per_minute: N}`;
    }
    const perMinute = (limit as { per_minute?: unknown }).per_minute;
    if (typeof perMinute !== 'number' || !Number.isInteger(perMinute) || perMinute < 1 || perMinute > MAX_PER_MINUTE) {
      return `"${excerpt(name)}".per_minute must be a whole number from 1 to ${MAX_PER_MINUTE}`;
    }
  }
  return undefined;
}

/** `{per_minute}` as written in MCPGW_CONFIG and the admin API, to the registry's shape (checked first). */
export function toolRateLimits(value: Readonly<Record<string, { per_minute: number }>>): Record<string, ToolRateLimit> {
  return Object.fromEntries(Object.entries(value).map(([tool, limit]) => [tool, { perMinute: limit.per_minute }]));
}

function namedEntries(value: unknown, shape: string): [string, unknown][] | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `must be a mapping ${shape}`;
  const entries = Object.entries(value);
  if (entries.length > MAX_NAMED_ITEMS) return `names ${entries.length} items; at most ${MAX_NAMED_ITEMS}`;
  const long = entries.find(([name]) => name === '' || name.length > MAX_ITEM_NAME_LENGTH);
  if (long) return `names must be 1 to ${MAX_ITEM_NAME_LENGTH} characters`;
  return entries;
}
