import { ApiError, excerpt } from '@arbor/platform';

export class KeyNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'key_not_found', `No key ${excerpt(id)}.`);
  }
}
