import type { IncomingHttpHeaders } from 'node:http';
import { ANTHROPIC_MESSAGES } from './anthropic-messages/anthropic-messages.codec';
import type { EndpointCodec } from './endpoint-codec';
import { OPENAI_CHAT } from './openai/openai-codecs';

/**
 * The family whose client sent a request, where the route is no family's own (an unknown path, a
 * pass-through, the models list): its codec's error envelope is the one the client reads.
 * Anthropic's SDKs send anthropic-version with every request, OpenAI's never do. The one place
 * that choice is made.
 */
export function clientCodec(headers: IncomingHttpHeaders): EndpointCodec {
  return headers['anthropic-version'] === undefined ? OPENAI_CHAT : ANTHROPIC_MESSAGES;
}
