import { ApiError, excerpt } from '@arbor/platform';

export class ProjectNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'project_not_found', `No project ${excerpt(id)}.`);
  }
}

export class ProjectSlugTaken extends ApiError {
  constructor(slug: string) {
    super(409, 'project_slug_taken', `Another project already has the slug ${excerpt(slug)}.`, { slug: excerpt(slug) });
  }
}
