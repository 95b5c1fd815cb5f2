import { ApiKeyFormat } from '@arbor/api-keys';

/** Virtual keys: `sk-arbor-` and 32 random bytes in base64url. */
export const VIRTUAL_KEYS = new ApiKeyFormat('sk-arbor-');
