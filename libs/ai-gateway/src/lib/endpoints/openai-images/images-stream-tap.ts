import { ProviderError } from '@arbor/provider-adapters';
import { SseEventTap } from '../sse-event-tap';
import { imagesUsage } from './images-usage';

/**
 * Watches a streamed image generation or edit (GPT Image's `partial_images`) on its way to the
 * client, unchanged: each `image_generation.completed` / `image_edit.completed` event is one image
 * made, with its size, quality and token usage; an `error` event fails the call.
 */
export class ImagesStreamTap extends SseEventTap {
  private images = 0;
  private tokens = { prompt: 0, completion: 0 };

  constructor(private readonly request: Record<string, unknown>) {
    super();
  }

  protected watch(events: string): void {
    if (!events.includes('.completed"') && !events.includes('"type":"error"')) return;
    for (const match of events.matchAll(/^data: ?(\{.*)$/gm)) {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(match[1] ?? '') as Record<string, unknown>;
      } catch {
        continue;
      }
      if (event['type'] === 'image_generation.completed' || event['type'] === 'image_edit.completed') {
        this.images++;
        const usage = imagesUsage(event, this.request, this.images);
        this.tokens = { prompt: this.tokens.prompt + usage.promptTokens, completion: this.tokens.completion + usage.completionTokens };
        this.learned = { ...usage, promptTokens: this.tokens.prompt, completionTokens: this.tokens.completion };
      } else if (event['type'] === 'error') {
        const error = (event['error'] ?? event) as { message?: unknown; code?: unknown };
        this.upstreamError = new ProviderError(
          502,
          'server_error',
          typeof error.message === 'string' ? error.message : 'The upstream failed the image stream.',
          typeof error.code === 'string' ? error.code : null,
        );
      }
    }
  }
}
