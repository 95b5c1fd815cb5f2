import type { UpstreamDefinition } from '../registry/server-registry';

/** In an upstream header value: the repository token of the calling virtual server's project, read per call. */
export const REPOSITORY_TOKEN_PLACEHOLDER = '{{project.repository_token}}';

/** Whether the upstream has headers resolved per call (they are left out of its sessions' own requests). */
export function hasPerCallHeaders(headers: Readonly<Record<string, string>>): boolean {
  return Object.values(headers).some((value) => value.includes(REPOSITORY_TOKEN_PLACEHOLDER));
}

/** The headers sent on every request of a session: those that need no call to resolve them. */
export function sessionHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => !value.includes(REPOSITORY_TOKEN_PLACEHOLDER)));
}

/**
 * Resolves an upstream's per-call headers for a call made through a virtual server (the registry
 * module provides it when the control plane is configured). The values live for the call only:
 * never stored, cached or logged.
 */
export abstract class UpstreamCallHeaders {
  abstract resolve(serverId: string | null, definition: UpstreamDefinition): Promise<Record<string, string>>;
}
