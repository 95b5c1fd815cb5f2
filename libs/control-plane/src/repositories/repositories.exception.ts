import { ApiError, excerpt } from '@arbor/platform';

export class RepositoryNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'repository_not_found', `No repository ${excerpt(id)} in this project.`);
  }
}

export class RepositoryExists extends ApiError {
  constructor(fullName?: string) {
    super(
      409,
      'repository_exists',
      fullName ? `The project already has the repository ${fullName}.` : 'The project already has this repository.',
      fullName ? { full_name: fullName } : undefined,
    );
  }
}
