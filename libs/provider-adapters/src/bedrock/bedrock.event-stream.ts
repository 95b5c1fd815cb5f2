import { EventStreamCodec, getChunkedStream, MessageDecoderStream } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { ProviderError } from '../lib/provider-error';
import { bedrockErrorOf } from './bedrock.error';

/** One event of an AWS event stream: its `:event-type` and its JSON payload. */
export interface BedrockEvent {
  type: string;
  payload: Record<string, unknown>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/**
 * The events of a Bedrock response stream (`application/vnd.amazon.eventstream`), framed and
 * checked (lengths, CRCs) by AWS's own codec. An exception frame (`:message-type: exception`,
 * ThrottlingException, ModelStreamErrorException, …) throws its ProviderError; a stream cut in
 * the middle of a frame throws the 502 of a broken stream.
 */
export async function* readBedrockEvents(body: AsyncIterable<Buffer | string>): AsyncGenerator<BedrockEvent> {
  const bytes = (async function* () {
    for await (const chunk of body) yield typeof chunk === 'string' ? Buffer.from(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  })();
  try {
    for await (const message of new MessageDecoderStream({ inputStream: getChunkedStream(bytes), decoder: codec })) {
      const header = (name: string) => {
        const value = message.headers[name]?.value;
        return typeof value === 'string' ? value : undefined;
      };
      const text = toUtf8(message.body);
      const kind = header(':message-type');
      if (kind === 'exception' || kind === 'error') {
        const name = header(':exception-type') ?? header(':error-code') ?? 'InternalServerException';
        throw bedrockErrorOf(name, text || header(':error-message') || '', 500);
      }
      let payload: unknown;
      try {
        payload = text === '' ? {} : JSON.parse(text);
      } catch {
        throw new ProviderError(502, 'server_error', 'The Bedrock stream sent an event that is not JSON.', 'upstream_stream_broken');
      }
      yield { type: header(':event-type') ?? '', payload: (payload ?? {}) as Record<string, unknown> };
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(502, 'api_connection_error', 'The Bedrock stream broke off before it finished.', 'upstream_stream_broken');
  }
}
