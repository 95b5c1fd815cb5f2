// OpenAI's images, audio and moderations as the gateway sees them, for openai-fake.ts (and Azure's
// routes, which go on to it):
//   POST /v1/images/generations (JSON) and /v1/images/edits (multipart: `image` or `image[]`, `mask`):
//     `n` images, b64_json (GPT Image always; DALL·E when asked, else urls), GPT Image's size,
//     quality and token usage; `stream: true` on GPT Image: partial_image events, then completed.
//   POST /v1/audio/transcriptions (multipart `file`): the audio "lasts" its size / 16000 seconds;
//     response_format json (whisper-1: usage {type: duration}; gpt-4o-*: usage {type: tokens}),
//     text, srt, vtt, verbose_json; `stream=true` (not on whisper-1, which refuses it as OpenAI does):
//     transcript.text.delta events, then transcript.text.done with the usage.
//   POST /v1/audio/speech (JSON): binary audio of the asked response_format, streamed in 64 KiB
//     pieces with back-pressure; 200 bytes a character of `input`, or N bytes for a model tts-bytes-<N>.
//   POST /v1/moderations: one result per input; an input with "fake-violence" is flagged.
// Multipart bodies are read with busboy as they arrive, the files counted, never kept.
import busboy from 'busboy';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendOpenAiError, type SeenRequest } from './openai-fake.ts';

/** The fields of a multipart request; files as {filename, content_type, bytes}. */
export type FormFields = Record<string, unknown>;

/** Reads a multipart request as it arrives (files counted, not kept); the record then shows its fields. */
export function readForm(req: IncomingMessage, seen: SeenRequest): Promise<FormFields> {
  return new Promise((resolve, reject) => {
    const fields: FormFields = {};
    const add = (name: string, value: unknown) => {
      const earlier = fields[name];
      fields[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
    };
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => add(name, value));
    parser.on('file', (name, stream, info) => {
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
      stream.on('end', () => add(name, { filename: info.filename, content_type: info.mimeType, bytes }));
    });
    parser.once('error', reject);
    parser.once('close', () => {
      seen.body = JSON.stringify(fields);
      resolve(fields);
    });
    req.pipe(parser);
  });
}

// A 1×1 transparent PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export function answerImages(res: ServerResponse, request: Record<string, unknown>, model: string, edit: boolean, echoHeaders: Record<string, string>): void {
  if (typeof request['prompt'] !== 'string' || request['prompt'] === '') {
    sendOpenAiError(res, 400, 'invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'prompt'.", 'prompt');
    return;
  }
  if (edit && request['image'] === undefined && request['image[]'] === undefined) {
    sendOpenAiError(res, 400, 'invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'image'.", 'image');
    return;
  }
  const n = Number(request['n'] ?? 1);
  const gptImage = model.startsWith('gpt-image');
  const size = typeof request['size'] === 'string' && request['size'] !== 'auto' ? request['size'] : '1024x1024';
  const quality = typeof request['quality'] === 'string' && request['quality'] !== 'auto' ? request['quality'] : gptImage ? 'medium' : 'standard';
  const usage = { input_tokens: 50, input_tokens_details: { text_tokens: 50, image_tokens: 0 }, output_tokens: 1056, total_tokens: 1106 };
  const created = Math.floor(Date.now() / 1000);
  if (gptImage && (request['stream'] === true || request['stream'] === 'true')) {
    const kind = edit ? 'image_edit' : 'image_generation';
    res.writeHead(200, { 'content-type': 'text/event-stream', ...echoHeaders });
    for (let index = 0; index < n; index++) {
      const common = { b64_json: PNG, created_at: created, size, quality, background: 'opaque', output_format: 'png' };
      res.write(`event: ${kind}.partial_image\ndata: ${JSON.stringify({ type: `${kind}.partial_image`, partial_image_index: 0, ...common })}\n\n`);
      res.write(`event: ${kind}.completed\ndata: ${JSON.stringify({ type: `${kind}.completed`, ...common, usage })}\n\n`);
    }
    res.end();
    return;
  }
  const asUrl = !gptImage && request['response_format'] !== 'b64_json';
  const data = Array.from({ length: n }, (_, index) =>
    asUrl ? { url: `https://fake-images.invalid/${created}-${index}.png`, ...(model === 'dall-e-3' ? { revised_prompt: request['prompt'] } : {}) } : { b64_json: PNG },
  );
  res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders });
  res.end(JSON.stringify({ created, data, ...(gptImage ? { background: 'opaque', output_format: 'png', quality, size, usage } : {}) }));
}

export async function answerTranscription(res: ServerResponse, request: Record<string, unknown>, model: string, echoHeaders: Record<string, string>): Promise<void> {
  const file = request['file'] as { filename?: string; bytes?: number } | undefined;
  if (file === undefined || typeof file !== 'object') {
    sendOpenAiError(res, 400, 'invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'file'.", 'file');
    return;
  }
  const seconds = Math.round(((file.bytes ?? 0) / 16000) * 100) / 100;
  const text = `fake transcript of ${file.filename ?? 'audio'}`;
  const whisper = model.startsWith('whisper');
  const usage = whisper
    ? { type: 'duration', seconds: Math.ceil(seconds) }
    : { type: 'tokens', input_tokens: 20, input_token_details: { text_tokens: 0, audio_tokens: 20 }, output_tokens: 8, total_tokens: 28 };
  const format = typeof request['response_format'] === 'string' ? request['response_format'] : 'json';
  if (request['stream'] === 'true') {
    if (whisper) {
      sendOpenAiError(res, 400, 'invalid_request_error', 'unsupported_value', "Streaming is not supported for the model 'whisper-1'.", 'stream');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...echoHeaders });
    for (const word of text.split(' ')) res.write(`data: ${JSON.stringify({ type: 'transcript.text.delta', delta: `${word} ` })}\n\n`);
    res.end(`data: ${JSON.stringify({ type: 'transcript.text.done', text, usage })}\n\n`);
    return;
  }
  const stamp = (value: number, separator: string) => {
    const whole = Math.floor(value);
    const pad = (number: number, width = 2) => String(number).padStart(width, '0');
    return `${pad(Math.floor(whole / 3600))}:${pad(Math.floor(whole / 60) % 60)}:${pad(whole % 60)}${separator}${pad(Math.round((value - whole) * 1000), 3)}`;
  };
  switch (format) {
    case 'text':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...echoHeaders }).end(`${text}\n`);
      return;
    case 'srt':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...echoHeaders }).end(`1\n${stamp(0, ',')} --> ${stamp(seconds, ',')}\n${text}\n\n`);
      return;
    case 'vtt':
      res.writeHead(200, { 'content-type': 'text/vtt; charset=utf-8', ...echoHeaders }).end(`WEBVTT\n\n${stamp(0, '.')} --> ${stamp(seconds, '.')}\n${text}\n\n`);
      return;
    case 'verbose_json':
      if (!whisper) {
        sendOpenAiError(
          res,
          400,
          'invalid_request_error',
          'unsupported_value',
          `response_format 'verbose_json' is not compatible with model '${model}'. Use 'json' or 'text' instead.`,
          'response_format',
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders }).end(
        JSON.stringify({
          task: 'transcribe',
          language: 'english',
          duration: seconds,
          text,
          segments: [{ id: 0, seek: 0, start: 0, end: seconds, text, tokens: [50364, 2425], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 }],
          usage,
        }),
      );
      return;
    case 'json':
      res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders }).end(JSON.stringify({ text, usage }));
      return;
    default:
      sendOpenAiError(
        res,
        400,
        'invalid_request_error',
        'invalid_value',
        `Invalid value: '${format}'. Supported values are: 'json', 'text', 'srt', 'verbose_json', and 'vtt'.`,
        'response_format',
      );
  }
}

const AUDIO_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };

export async function answerSpeech(res: ServerResponse, request: Record<string, unknown>, model: string, echoHeaders: Record<string, string>, seen: SeenRequest): Promise<void> {
  const input = request['input'];
  if (typeof input !== 'string' || input === '') {
    sendOpenAiError(res, 400, 'invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'input'.", 'input');
    return;
  }
  if (typeof request['voice'] !== 'string') {
    sendOpenAiError(res, 400, 'invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'voice'.", 'voice');
    return;
  }
  const format = typeof request['response_format'] === 'string' ? request['response_format'] : 'mp3';
  const contentType = AUDIO_TYPES[format];
  if (!contentType) {
    sendOpenAiError(
      res,
      400,
      'invalid_request_error',
      'invalid_value',
      `Invalid value: '${format}'. Supported values are: 'mp3', 'opus', 'aac', 'flac', 'wav', and 'pcm'.`,
      'response_format',
    );
    return;
  }
  const asked = /^tts-bytes-(\d+)$/.exec(model)?.[1];
  let remaining = asked ? Number(asked) : [...input].length * 200;
  res.writeHead(200, { 'content-type': contentType, 'transfer-encoding': 'chunked', ...echoHeaders });
  // The same 64 KiB piece again and again: the answer is streamed, never built whole.
  const piece = Buffer.alloc(64 * 1024, 0x55);
  piece.write('ID3', 0);
  while (remaining > 0) {
    if (seen.aborted || res.destroyed) return;
    const chunk = remaining >= piece.length ? piece : piece.subarray(0, remaining);
    remaining -= chunk.length;
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

export function answerModeration(res: ServerResponse, request: Record<string, unknown>, model: string, echoHeaders: Record<string, string>): void {
  const input = request['input'];
  const inputs = Array.isArray(input) ? input : [input];
  if (input === undefined || inputs.length === 0) {
    sendOpenAiError(res, 400, 'invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'input'.", 'input');
    return;
  }
  const names = [
    'harassment',
    'harassment/threatening',
    'hate',
    'hate/threatening',
    'illicit',
    'illicit/violent',
    'self-harm',
    'self-harm/instructions',
    'self-harm/intent',
    'sexual',
    'sexual/minors',
    'violence',
    'violence/graphic',
  ];
  const results = inputs.map((item) => {
    const text = typeof item === 'string' ? item : JSON.stringify(item);
    const violent = text.includes('fake-violence');
    return {
      flagged: violent,
      categories: Object.fromEntries(names.map((name) => [name, violent && name === 'violence'])),
      category_scores: Object.fromEntries(names.map((name) => [name, violent && name === 'violence' ? 0.98 : 0.0001])),
      category_applied_input_types: Object.fromEntries(names.map((name) => [name, ['text']])),
    };
  });
  res.writeHead(200, { 'content-type': 'application/json', ...echoHeaders });
  res.end(JSON.stringify({ id: `modr-fake${Date.now()}`, model, results }));
}
