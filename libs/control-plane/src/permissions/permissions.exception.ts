import { ApiError, excerpt, excerptList } from '@arbor/platform';

/** A bad combination or value of the effective-permissions query parameters. */
export class InvalidPermissionsQuery extends ApiError {
  constructor(message: string, parameters: string[]) {
    super(400, 'invalid_request', message, { parameters });
  }
}

/** A person asking for someone else's permissions. */
export class OthersPermissionsForbidden extends ApiError {
  constructor() {
    super(403, 'forbidden', "a person may read only their own permissions; administrators and machine clients may read anyone's");
  }
}

/** Keys that are malformed or name an unknown product or role. */
export class UnknownPermissionKeys extends ApiError {
  constructor(keys: string[]) {
    const { quoted, more } = excerptList(keys);
    super(400, 'unknown_permission_key', `Unknown permission keys: ${quoted.join(', ')}${more ? ` and ${more} more` : ''}`, { keys: quoted });
  }
}

/** Project slugs in a grant set that name no project: the request is wrong, the user exists (hence 400, not 404). */
export class UnknownProjectSlugs extends ApiError {
  constructor(slugs: string[]) {
    const { quoted, more } = excerptList(slugs);
    super(400, 'unknown_project', `No projects with the slugs ${quoted.join(', ')}${more ? ` and ${more} more` : ''}`, { slugs: quoted });
  }
}

/** PUT /api/v1/users/{id}/permissions with a body naming another user. */
export class PermissionsUserMismatch extends ApiError {
  constructor(pathId: string, bodyId: string) {
    super(400, 'invalid_request', `user_id ${excerpt(bodyId)} in the body is not the user ${excerpt(pathId)} of the path`, {
      fields: { user_id: ['user_id must be the id in the path'] },
    });
  }
}
