import { ApiProperty } from '@nestjs/swagger';
import { InvalidProjectSyncRequest } from './control-plane-sync.exception';

/** The body of `POST <sync path>`: the projects that changed, by slug. It names projects, not changes. */
export class ProjectSyncRequest {
  @ApiProperty({ type: [String], example: ['payments', 'search'], description: 'Slugs of the projects that changed; re-read them from the control plane.' })
  slugs!: string[];
}

/**
 * The slugs of a sync body, each once, in the order sent. Fields other than `slugs` are ignored,
 * so a later control plane may add some without every older product refusing its calls (a 400
 * would be retried for ever).
 */
export function slugsOf(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidProjectSyncRequest('body', 'the body must be a JSON object {"slugs": [...]} sent as application/json');
  }
  const slugs = (body as { slugs?: unknown }).slugs;
  if (!Array.isArray(slugs) || !slugs.every((slug): slug is string => typeof slug === 'string' && slug !== '')) {
    throw new InvalidProjectSyncRequest('slugs', 'slugs must be an array of non-empty strings');
  }
  return [...new Set(slugs)];
}
