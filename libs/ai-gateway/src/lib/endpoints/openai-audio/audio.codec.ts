import type { ProviderError } from '@arbor/provider-adapters';
import { NO_USAGE, type CallUsage } from '../../calls/usage';
import type { EndpointCodec, StreamTap } from '../endpoint-codec';
import { SPEECH_TEXT, textsIn } from '../openai/chat-text';
import { renderOpenAiError } from '../openai/openai-codecs';
import { TRANSCRIPT_DOCUMENT, TRANSCRIPT_TEXT } from './transcript-text';
import { TranscriptionStreamTap } from './transcription-stream-tap';
import { transcriptionUsage } from './transcription-usage';

/**
 * OpenAI's transcriptions: multipart (the audio spooled to disk and streamed to the upstream); the
 * answer in the asked `response_format` (json, text, srt, vtt, verbose_json) passed on as the
 * upstream wrote it, or its `transcript.text.*` events as they come when `stream=true`. Priced
 * per second of audio or by the tokens the upstream reports. Its text: the `prompt` field, and the
 * transcript in every format.
 */
export const OPENAI_AUDIO_TRANSCRIPTIONS: EndpointCodec = {
  name: 'openai-audio-transcriptions',
  operation: 'audio_transcription',
  description: 'audio transcriptions',
  paths: ['/v1/audio/transcriptions', '/audio/transcriptions'],
  requestFormat: 'multipart',
  requestText: textsIn('prompt'),
  answerText: TRANSCRIPT_TEXT,
  answerDocument: TRANSCRIPT_DOCUMENT,
  streamed: (body) => body['stream'] === 'true' || body['stream'] === true,
  forwardedHeaders: () => undefined,
  prepare: () => undefined,
  usageOfAnswer: transcriptionUsage,
  streamTap: () => new TranscriptionStreamTap(),
  // The audio's length is not known before the upstream reads it.
  estimateUsage: () => Promise.resolve({ ...NO_USAGE, estimated: true }),
  renderError: renderOpenAiError,
  streamErrorEvent: (error: ProviderError) => `data: ${JSON.stringify({ type: 'error', ...error.toBody() })}\n\n`,
};

/**
 * Speech: the audio (mp3, opus, wav, pcm… or speech.audio.* events) streamed back as the upstream
 * sends it, never held; priced per character of `input`, known before the first byte.
 */
export const OPENAI_AUDIO_SPEECH: EndpointCodec = {
  name: 'openai-audio-speech',
  operation: 'audio_speech',
  description: 'speech',
  paths: ['/v1/audio/speech', '/audio/speech'],
  requestText: SPEECH_TEXT,
  // Always passed on as it arrives: audio is long, and players start on the first bytes.
  streamed: () => true,
  forwardedHeaders: () => undefined,
  prepare: () => undefined,
  usageOfAnswer: (_body, request) => spokenUsage(request),
  streamTap: (body) => new SpeechTap(spokenUsage(body)),
  estimateUsage: (body) => Promise.resolve({ ...spokenUsage(body), estimated: true }),
  renderError: renderOpenAiError,
  // Audio has no error event: the pipeline breaks the connection off, so the client sees a cut answer.
  streamErrorEvent: () => '',
};

function spokenUsage(request: Record<string, unknown>): CallUsage {
  const input = request['input'];
  return { ...NO_USAGE, characters: typeof input === 'string' ? [...input].length : 0 };
}

/** Audio bytes passed on untouched; the usage is the request's. */
class SpeechTap implements StreamTap {
  readonly raw = true;
  readonly error = undefined;

  constructor(readonly usage: CallUsage) {}

  push(chunk: Buffer | string): Buffer | string {
    return chunk;
  }

  end(): string {
    return '';
  }
}
