import { ProviderError, type UnknownParams } from '@arbor/provider-adapters';

/** Request fields the gateway reads itself; they never reach an upstream. */
export const GATEWAY_ONLY_PARAMS: ReadonlySet<string> = new Set(['drop_params', 'additional_drop_params', 'cache']);

/**
 * The response header naming what drop_params removed from the call (`temperature, tools.0 (web_search)`):
 * the client learns that its request was not served whole.
 */
export const DROPPED_PARAMS_HEADER = 'x-arbor-dropped-params';

// A header names a handful; a body of thousands of unknown fields does not make a header of them all.
const MAX_DROPPED_HEADER_CHARS = 512;

/**
 * The header's value for the names drop_params removed: each once, in printable ASCII (the
 * client's own field names may hold any character, and a header may not: others are written as
 * \uXXXX), at most MAX_DROPPED_HEADER_CHARS long (then `...`).
 */
export function droppedParamsHeader(names: readonly string[]): string {
  const value = [...new Set(names)].map((name) => name.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)).join(', ');
  return value.length <= MAX_DROPPED_HEADER_CHARS ? value : `${value.slice(0, MAX_DROPPED_HEADER_CHARS - 3)}...`;
}

/**
 * The body an upstream of this provider gets: gateway-only fields removed, the client's
 * `additional_drop_params` removed, and every parameter outside `supported` treated as the
 * operation declares (`unknown`): sent on (pass-through providers), removed (drop_params on,
 * globally or in the request; always for `dropped`) or refused with 400 naming it. What
 * drop_params removed is added to `dropped` (not what the client itself asked to drop).
 */
export function applyDropParams(
  body: Record<string, unknown>,
  supported: ReadonlySet<string>,
  provider: string,
  globalDropParams: boolean,
  unknown: UnknownParams = 'refused',
  dropped?: string[],
): Record<string, unknown> {
  const drop = unknown === 'dropped' || dropsParams(body, globalDropParams);
  const additional = body['additional_drop_params'];
  // (Made only when the client names some: this runs on every attempt of every call.)
  const named = Array.isArray(additional) ? new Set(additional.filter((name): name is string => typeof name === 'string')) : undefined;
  const result: Record<string, unknown> = {};
  for (const name in body) {
    if (!Object.hasOwn(body, name) || GATEWAY_ONLY_PARAMS.has(name) || named?.has(name)) continue;
    const value = body[name];
    if (unknown !== 'forwarded' && !supported.has(name)) {
      if (drop) {
        dropped?.push(name);
        continue;
      }
      throw new ProviderError(
        400,
        'invalid_request_error',
        `${provider} does not support the parameter "${name}". Remove it, or set drop_params: true (in the request or in litellm_settings) to drop it.`,
        'unsupported_parameter',
        name,
      );
    }
    result[name] = value;
  }
  return result;
}

/** Whether drop_params is in force for a call: the request's own setting, else the gateway's. */
export function dropsParams(body: Record<string, unknown>, globalDropParams: boolean): boolean {
  return body['drop_params'] === true || (globalDropParams && body['drop_params'] !== false);
}

/** Checks the gateway-only fields' shapes before any upstream is called. */
export function checkGatewayParams(body: Record<string, unknown>): void {
  const drop = body['drop_params'];
  if (drop !== undefined && typeof drop !== 'boolean') {
    throw new ProviderError(400, 'invalid_request_error', 'drop_params must be true or false.', 'invalid_value', 'drop_params');
  }
  const additional = body['additional_drop_params'];
  if (additional !== undefined && !(Array.isArray(additional) && additional.every((name) => typeof name === 'string'))) {
    throw new ProviderError(400, 'invalid_request_error', 'additional_drop_params must be a list of parameter names.', 'invalid_value', 'additional_drop_params');
  }
}
