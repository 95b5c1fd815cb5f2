import createClient from 'openapi-fetch';
import { answer, type Schemas } from '../api/api-client';
import type { paths } from '../api/schema.generated';

export type UiConfig = Schemas['UiConfigResponse'];

/** GET /api/v1/ui/config: the issuer and client to sign in with, so one build runs against any issuer. */
export function loadUiConfig(): Promise<UiConfig> {
  return answer(createClient<paths>({ baseUrl: window.location.origin }).GET('/api/v1/ui/config'));
}
