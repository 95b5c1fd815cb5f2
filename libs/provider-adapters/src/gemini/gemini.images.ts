import { z } from 'zod';
import { ProviderError } from '../lib/provider-error';

/** OpenAI-format image generation parameters Imagen's `:predict` honours (`n` → sampleCount, `size` → aspectRatio). */
export const GEMINI_IMAGE_GENERATION_PARAMS: ReadonlySet<string> = new Set(['model', 'prompt', 'n', 'size', 'response_format', 'output_format']);

// The aspect ratios Imagen generates, as width / height.
const ASPECT_RATIOS: readonly [string, number][] = [
  ['1:1', 1],
  ['3:4', 3 / 4],
  ['4:3', 4 / 3],
  ['9:16', 9 / 16],
  ['16:9', 16 / 9],
];

/** Imagen's predict request for an OpenAI-format image generation request. */
export function toImagenRequest(body: Record<string, unknown>): Record<string, unknown> {
  const prompt = body['prompt'];
  if (typeof prompt !== 'string' || prompt === '') throw invalid('prompt is required.', 'prompt');
  if (body['response_format'] !== undefined && body['response_format'] !== 'b64_json') {
    throw invalid('Imagen answers images as b64_json only: set response_format to b64_json or leave it out.', 'response_format');
  }
  const parameters: Record<string, unknown> = {};
  const n = body['n'];
  if (n !== undefined && n !== null) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 4) throw invalid('n must be a whole number from 1 to 4 on Imagen.', 'n');
    parameters['sampleCount'] = n;
  }
  const ratio = aspectRatio(body['size']);
  if (ratio) parameters['aspectRatio'] = ratio;
  const format = body['output_format'];
  if (format === 'jpeg' || format === 'png') parameters['outputOptions'] = { mimeType: `image/${format}` };
  return { instances: [{ prompt }], parameters };
}

/** `1792x1024` → the nearest ratio Imagen has (`16:9`); none for `auto` or no size. */
function aspectRatio(size: unknown): string | undefined {
  if (size === undefined || size === null || size === 'auto') return undefined;
  const match = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  if (!match) throw invalid('size must be WIDTHxHEIGHT (for example 1024x1024) or auto.', 'size');
  const wanted = Number(match[1]) / Number(match[2]);
  let best = ASPECT_RATIOS[0] as [string, number];
  for (const candidate of ASPECT_RATIOS) if (Math.abs(Math.log(candidate[1] / wanted)) < Math.abs(Math.log(best[1] / wanted))) best = candidate;
  return best[0];
}

export const imagenResponse = z.object({
  predictions: z.array(z.object({ bytesBase64Encoded: z.string().optional(), mimeType: z.string().optional(), raiFilteredReason: z.string().optional() })).optional(),
});

/** Imagen's predictions as OpenAI's images answer (`b64_json` each; filtered images left out, as Imagen leaves them out). */
export function toImagesResponse(answer: z.infer<typeof imagenResponse>, created: number): Record<string, unknown> {
  const images = (answer.predictions ?? []).filter((prediction) => prediction.bytesBase64Encoded !== undefined);
  const mimeType = images[0]?.mimeType;
  return {
    created,
    data: images.map((prediction) => ({ b64_json: prediction.bytesBase64Encoded })),
    ...(mimeType ? { output_format: mimeType.replace(/^image\//, '') } : {}),
  };
}

function invalid(message: string, param: string): ProviderError {
  return new ProviderError(400, 'invalid_request_error', message, 'invalid_value', param);
}
