import type { ProviderError } from '@arbor/provider-adapters';
import { NO_USAGE } from '../../calls/usage';
import type { EndpointCodec } from '../endpoint-codec';
import { renderOpenAiError } from '../openai/openai-codecs';

/**
 * OpenAI's moderations, served by OpenAI aliases only (no other provider offers the endpoint: any
 * other alias is refused with 400 naming its provider). Free: the call costs 0, and counts in the
 * key's requests and the metrics like any other.
 */
export const OPENAI_MODERATIONS: EndpointCodec = {
  name: 'openai-moderations',
  operation: 'moderation',
  description: 'moderations (OpenAI aliases only)',
  paths: ['/v1/moderations', '/moderations'],
  streamed: () => false,
  forwardedHeaders: () => undefined,
  prepare: () => undefined,
  usageOfAnswer: () => NO_USAGE,
  streamTap: () => {
    throw new Error('moderations do not stream');
  },
  estimateUsage: () => Promise.resolve(NO_USAGE),
  renderError: renderOpenAiError,
  streamErrorEvent: (error: ProviderError) => `data: ${JSON.stringify(error.toBody())}\n\n`,
};
