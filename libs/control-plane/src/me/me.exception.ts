import { ApiError, excerpt } from '@arbor/platform';

/** The shell endpoints describe a signed-in person; a machine client has no profile. */
export class PersonOnly extends ApiError {
  constructor() {
    super(403, 'person_only', 'Only a signed-in person has a profile; machine clients cannot call this endpoint.');
  }
}

/** A disabled account may read its profile (so a UI can say so) but change nothing. */
export class UserDisabled extends ApiError {
  constructor() {
    super(403, 'user_disabled', 'Your account is disabled.');
  }
}

/** The default project must be one the person may see. */
export class ProjectNotVisible extends ApiError {
  constructor(projectId: string) {
    super(403, 'project_not_visible', `You hold no permission on project ${excerpt(projectId)}.`, { project_id: excerpt(projectId) });
  }
}
