import { ApiError } from '@arbor/platform';

/** RFC 6750 §3: a request without credentials gets the bare challenge, without an error code. */
export function missingToken(realm: string): ApiError {
  return new ApiError(401, 'missing_token', 'this endpoint needs a bearer token (Authorization: Bearer <token>)', undefined, {
    'WWW-Authenticate': `Bearer realm="${headerSafe(realm)}"`,
  });
}

export function invalidToken(realm: string, reason: string): ApiError {
  return new ApiError(401, 'invalid_token', `invalid bearer token: ${reason}`, undefined, {
    'WWW-Authenticate': `Bearer realm="${headerSafe(realm)}", error="invalid_token", error_description="${headerSafe(reason)}"`,
  });
}

/** RFC 6750 allows printable ASCII without `"` and `\` inside these quoted values. */
function headerSafe(value: string): string {
  return value.replace(/[^\x20-\x7e]|["\\]/g, "'");
}
