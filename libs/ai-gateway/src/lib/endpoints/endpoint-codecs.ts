import { ANTHROPIC_MESSAGES } from './anthropic-messages/anthropic-messages.codec';
import { COHERE_RERANK } from './cohere-rerank/cohere-rerank.codec';
import type { EndpointCodec } from './endpoint-codec';
import { OPENAI_CHAT, OPENAI_COMPLETIONS, OPENAI_EMBEDDINGS } from './openai/openai-codecs';
import { OPENAI_RESPONSES, OPENAI_RESPONSES_COMPACT } from './openai-responses/openai-responses.codec';
import { OPENAI_IMAGE_EDITS, OPENAI_IMAGE_GENERATIONS } from './openai-images/images.codec';
import { OPENAI_AUDIO_SPEECH, OPENAI_AUDIO_TRANSCRIPTIONS } from './openai-audio/audio.codec';
import { OPENAI_MODERATIONS } from './openai-moderations/moderations.codec';

// Adding an endpoint family is adding a codec folder and one entry here; the pipeline is shared.
export const ENDPOINT_CODECS: readonly EndpointCodec[] = [
  OPENAI_CHAT,
  OPENAI_COMPLETIONS,
  OPENAI_EMBEDDINGS,
  OPENAI_RESPONSES,
  OPENAI_RESPONSES_COMPACT,
  ANTHROPIC_MESSAGES,
  OPENAI_IMAGE_GENERATIONS,
  OPENAI_IMAGE_EDITS,
  OPENAI_AUDIO_TRANSCRIPTIONS,
  OPENAI_AUDIO_SPEECH,
  OPENAI_MODERATIONS,
  COHERE_RERANK,
];
