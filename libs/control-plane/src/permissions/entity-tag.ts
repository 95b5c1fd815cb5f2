import { createHash } from 'node:crypto';

/** A strong entity tag derived from the answer's bytes: the same answer always gets the same tag. */
export function strongEntityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

// An entity-tag of RFC 9110 §8.8.3: an optional weakness prefix and a quoted opaque tag (which may hold commas).
const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether an If-None-Match header matches `etag` (RFC 9110 §13.1.2): `*`, or a list of entity
 * tags compared weakly, i.e. the opaque tags alone, with or without `W/`. Repeated headers arrive
 * joined with commas.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const match of header.matchAll(ENTITY_TAG)) {
    if (`"${match[1]}"` === opaque) return true;
  }
  return false;
}
