import { NO_USAGE } from '../../calls/usage';
import type { EndpointCodec } from '../endpoint-codec';
import { IMAGE_PROMPT_TEXT } from '../openai/chat-text';
import { renderOpenAiError } from '../openai/openai-codecs';
import { ImagesStreamTap } from './images-stream-tap';
import { imagesUsage, requestedImages } from './images-usage';

/**
 * OpenAI's images: generations (JSON) and edits (multipart: the images and mask spooled to disk
 * and streamed to the upstream). The answer passes on as the upstream sent it (b64_json or urls;
 * GPT Image's partial-image streams event by event); each image is priced by size and quality.
 */
function imagesCodec(name: string, operation: 'image_generation' | 'image_edit', description: string, path: string, multipart: boolean): EndpointCodec {
  return {
    name,
    operation,
    description,
    paths: [`/v1${path}`, path],
    // An edit's prompt is a form field: rewritten in the body, the form is encoded anew for the upstream.
    ...(multipart ? { requestFormat: 'multipart' as const } : {}),
    requestText: IMAGE_PROMPT_TEXT,
    // A form's fields are text: `stream=true`.
    streamed: (body) => body['stream'] === true || body['stream'] === 'true',
    forwardedHeaders: () => undefined,
    prepare: () => undefined,
    usageOfAnswer: (body, request) => {
      let answer: Record<string, unknown>;
      try {
        answer = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return undefined;
      }
      const data = answer['data'];
      return Array.isArray(data) ? imagesUsage(answer, request, data.length) : undefined;
    },
    streamTap: (body) => new ImagesStreamTap(body),
    // The upstream was making the images when the client hung up: they are billed, so they count.
    estimateUsage: (body) => Promise.resolve(body ? requestedImages(body) : NO_USAGE),
    renderError: renderOpenAiError,
    streamErrorEvent: (error) => `event: error\ndata: ${JSON.stringify({ type: 'error', ...error.toBody() })}\n\n`,
  };
}

export const OPENAI_IMAGE_GENERATIONS = imagesCodec('openai-image-generations', 'image_generation', 'image generation', '/images/generations', false);
export const OPENAI_IMAGE_EDITS = imagesCodec('openai-image-edits', 'image_edit', 'image edits', '/images/edits', true);
