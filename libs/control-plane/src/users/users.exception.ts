import { ApiError, excerpt } from '@arbor/platform';

export class UserNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'user_not_found', `No user ${excerpt(id)}.`);
  }
}

export class UserExists extends ApiError {
  constructor(email: string) {
    super(409, 'user_exists', `A user with the email ${excerpt(email)} already exists.`, { email: excerpt(email) });
  }
}

/** An administrator may not disable themselves or drop their own administration: nobody could undo it from inside. */
export class SelfLockout extends ApiError {
  constructor(field: 'admin' | 'disabled') {
    super(409, 'self_lockout', field === 'admin' ? 'You cannot remove your own administration.' : 'You cannot disable your own account.', { field });
  }
}
