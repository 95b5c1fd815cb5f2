import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './control-plane.schema.generated';

/** The control plane's API, typed from libs/control-plane/openapi.json (this library's `generate-api` target). */
export type ControlPlanePaths = paths;
export type ControlPlaneSchemas = components['schemas'];
export type ControlPlaneClient = Client<ControlPlanePaths>;

/** An answer of the control plane (or of a product) that is not a success, in the suite's error envelope. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }

  static of(status: number, body: unknown): ApiRequestError {
    const error = (body as Partial<ControlPlaneSchemas['ErrorBody']> | undefined)?.error;
    if (error && typeof error.code === 'string') return new ApiRequestError(status, error.code, error.message, error.details ?? {});
    return new ApiRequestError(status, `http_${status}`, `The server answered ${status}.`);
  }

  /** `details.fields` of a validation error: field name → messages, shown beside each field. */
  get fieldErrors(): Record<string, string> {
    const fields = this.details['fields'];
    if (!fields || typeof fields !== 'object') return {};
    return Object.fromEntries(Object.entries(fields as Record<string, string[] | string>).map(([field, messages]) => [field, [messages].flat().join(' ')]));
  }
}

/**
 * A typed client of one service's API (`Paths` generated from its OpenAPI document with
 * openapi-typescript), with the person's bearer token on every call.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- openapi-fetch's own constraint on a paths type
export function createApiClient<Paths extends {}>(accessToken: () => string | undefined, baseUrl = window.location.origin): Client<Paths> {
  const client = createClient<Paths>({ baseUrl });
  const bearer: Middleware = {
    onRequest({ request }) {
      const token = accessToken();
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/** The data of a success, or an ApiRequestError carrying the API's code, message and field errors. */
export async function answer<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (!response.ok) throw ApiRequestError.of(response.status, error);
  return data as D;
}
