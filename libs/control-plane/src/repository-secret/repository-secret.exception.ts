import { ApiError, excerpt } from '@arbor/platform';

export class RepositorySecretNotFound extends ApiError {
  constructor(projectId: string) {
    super(404, 'repository_secret_not_found', `Project ${excerpt(projectId)} has no repository token.`);
  }
}

/** The token is stored under a master key the service was not given: an operator must add it (docs/operations.md). */
export class MasterKeyMissing extends ApiError {
  constructor(keyId: string) {
    super(
      500,
      'master_key_missing',
      `The repository token is encrypted under master key ${keyId}, which is configured neither as CP_SECRETS_MASTER_KEY nor in CP_SECRETS_PREVIOUS_MASTER_KEYS.`,
      { key_id: keyId },
    );
  }
}

export class RepositorySecretUnreadable extends ApiError {
  constructor(keyId: string) {
    super(500, 'repository_secret_unreadable', `The stored repository token does not decrypt under master key ${keyId}; replace it.`, { key_id: keyId });
  }
}
