import { ProviderError } from '@arbor/provider-adapters';
import { SseEventTap } from '../sse-event-tap';
import { usageOfTranscription } from './transcription-usage';

/**
 * Watches a streamed transcription (`transcript.text.delta` events, then `transcript.text.done`
 * with the usage) on its way to the client, unchanged; an `error` event fails the call.
 */
export class TranscriptionStreamTap extends SseEventTap {
  protected watch(events: string): void {
    if (!events.includes('"transcript.text.done"') && !events.includes('"type":"error"')) return;
    for (const match of events.matchAll(/^data: ?(\{.*)$/gm)) {
      let event: { type?: unknown; usage?: unknown; error?: { message?: unknown; code?: unknown }; message?: unknown };
      try {
        event = JSON.parse(match[1] ?? '') as typeof event;
      } catch {
        continue;
      }
      if (event.type === 'transcript.text.done') this.learned = usageOfTranscription(event.usage) ?? this.learned;
      else if (event.type === 'error') {
        const message = event.error?.message ?? event.message;
        this.upstreamError = new ProviderError(
          502,
          'server_error',
          typeof message === 'string' ? message : 'The upstream failed the transcription stream.',
          typeof event.error?.code === 'string' ? event.error.code : null,
        );
      }
    }
  }
}
