import type { CallUsage } from '../../calls/usage';
import { count, NO_USAGE } from '../../calls/usage';

/**
 * What an images answer (or a stream's completed event) cost: one image per `data` entry (or
 * event), at the size and quality the answer reports (GPT Image says what it chose for `auto`),
 * else those asked for; the token usage GPT Image reports is kept for the key's token counts.
 */
export function imagesUsage(answer: Record<string, unknown>, request: Record<string, unknown>, images: number): CallUsage {
  const usage = answer['usage'] as Record<string, unknown> | undefined;
  const size = text(answer['size']) ?? text(request['size']);
  const quality = text(answer['quality']) ?? text(request['quality']);
  return {
    ...NO_USAGE,
    promptTokens: count(usage?.['input_tokens']) ?? 0,
    completionTokens: count(usage?.['output_tokens']) ?? 0,
    images: { count: images, ...(size ? { size } : {}), ...(quality ? { quality } : {}) },
  };
}

/** The images a request asks for (`n`, a number in JSON and text in a form), as a hang-up's estimate. */
export function requestedImages(request: Record<string, unknown>): CallUsage {
  const n = Number(request['n'] ?? 1);
  return { ...imagesUsage({}, request, Number.isInteger(n) && n > 0 ? n : 1), estimated: true };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' && value !== 'auto' ? value : undefined;
}
