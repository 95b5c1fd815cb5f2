import type { z } from 'zod';
import { ProviderError } from './provider-error';
import { readBody, type UpstreamResponse } from './upstream-http';

// A whole non-streamed answer is read before translating it; the largest outputs stay well below this.
const MAX_ANSWER_BYTES = 32 * 1_048_576;

/** A whole JSON answer of `provider`, checked against `schema` (502 when it is not JSON or not that shape). */
export async function readJsonAnswer<T>(response: UpstreamResponse, schema: z.ZodType<T>, provider: string): Promise<T> {
  const text = await readBody(response.body, MAX_ANSWER_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderError(502, 'server_error', `${provider} answered with a body that is not JSON.`, 'upstream_invalid_answer');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ProviderError(502, 'server_error', `${provider} answered with a body of an unknown shape.`, 'upstream_invalid_answer');
  return parsed.data;
}
