import type { AnswerDocument, AnswerText } from '../answer-text';
import { isObject, mapList, withField } from '../request-text';

// srt and vtt answers, as a document: the subtitles whole (their cues' text is found in them).
const SUBTITLES = 'subtitles';
const CUE_TIMING = /-->/;
const BLOCK_END = /((?:\r?\n){2,})/;

/** The answer's `response_format` (OpenAI's default: json). */
function formatOf(request: Record<string, unknown>): string {
  return typeof request['response_format'] === 'string' ? request['response_format'] : 'json';
}

/**
 * A transcription's answer as the stages read it, whatever its `response_format`: json and
 * verbose_json as they are, `text` as `{text}`, srt and vtt as their subtitles; and back, as the
 * client asked for it.
 */
export const TRANSCRIPT_DOCUMENT: AnswerDocument = {
  read: (answer, request) => {
    const text = answer.toString('utf8');
    const format = formatOf(request);
    if (format === 'text') return { text };
    if (format === 'srt' || format === 'vtt') return { [SUBTITLES]: text };
    return JSON.parse(text) as Record<string, unknown>;
  },
  write: (document, request) => {
    const format = formatOf(request);
    if (format === 'text') return String(document['text'] ?? '');
    if (format === 'srt' || format === 'vtt') return String(document[SUBTITLES] ?? '');
    return JSON.stringify(document);
  },
};

/**
 * Transcriptions: the transcript's text (json), with verbose_json's segments, the text of each srt
 * or vtt cue (never its number or timing); streamed, the `transcript.text.delta`s and the done
 * event's whole text.
 */
export const TRANSCRIPT_TEXT: AnswerText = {
  map: (answer, replace) => {
    const subtitles = answer[SUBTITLES];
    if (typeof subtitles === 'string') return withField(answer, SUBTITLES, mapCueText(subtitles, replace));
    const text = answer['text'];
    const withText = typeof text === 'string' ? withField(answer, 'text', replace(text)) : answer;
    return withField(
      withText,
      'segments',
      mapList(withText['segments'], (segment) => (isObject(segment) && typeof segment['text'] === 'string' ? withField(segment, 'text', replace(segment['text'])) : segment)),
    );
  },
  event: (data, delta, whole) => {
    if (data['type'] === 'transcript.text.delta' && typeof data['delta'] === 'string') return withField(data, 'delta', delta('transcript', data['delta']));
    if (data['type'] === 'transcript.text.done' && typeof data['text'] === 'string') return withField(data, 'text', whole(data['text']));
    return data;
  },
};

/** Subtitles with each cue's text (the lines after its timing, one text a cue) replaced; headers and notes as they are. */
export function mapCueText(subtitles: string, replace: (text: string) => string): string {
  // Blocks at even places, the blank lines between them at odd ones: joined again, the subtitles as they were.
  const parts = subtitles.split(BLOCK_END);
  let changed = false;
  for (let index = 0; index < parts.length; index += 2) {
    const block = parts[index] as string;
    const newline = block.includes('\r\n') ? '\r\n' : '\n';
    const lines = block.split(newline);
    const timing = lines.findIndex((line) => CUE_TIMING.test(line));
    if (timing < 0) continue;
    const text = lines.slice(timing + 1).join(newline);
    const next = text === '' ? text : replace(text);
    if (next === text) continue;
    parts[index] = [...lines.slice(0, timing + 1), next].join(newline);
    changed = true;
  }
  return changed ? parts.join('') : subtitles;
}
