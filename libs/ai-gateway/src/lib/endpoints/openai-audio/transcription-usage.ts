import type { CallUsage } from '../../calls/usage';
import { count, NO_USAGE } from '../../calls/usage';

// People speak about 150 words a minute: what a `text` answer's length says of its audio.
const WORDS_PER_SECOND = 2.5;

/**
 * What a transcription cost, from its answer as the upstream wrote it in the asked
 * `response_format`: the tokens GPT-4o transcribers report (`usage.type: tokens`), the seconds
 * Whisper reports (`usage.type: duration`, or verbose_json's `duration`), the end of the last cue
 * of srt and vtt. A `text` answer says nothing of its audio: its seconds are estimated from its
 * words (marked estimated), so that asking for text is no way around the price.
 */
export function transcriptionUsage(body: Buffer, request: Record<string, unknown>): CallUsage | undefined {
  const format = typeof request['response_format'] === 'string' ? request['response_format'] : 'json';
  const text = body.toString('utf8');
  if (format === 'srt' || format === 'vtt') return secondsUsage(lastCueEnd(text));
  if (format === 'text') {
    const words = text.split(/\s+/).filter(Boolean).length;
    return { ...NO_USAGE, audioSeconds: Math.round((words / WORDS_PER_SECOND) * 10) / 10, estimated: true };
  }
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  return usageOfTranscription(answer['usage']) ?? secondsUsage(count(answer['duration']));
}

/** A transcription's `usage` object (in its answer or its stream's done event) as CallUsage. */
export function usageOfTranscription(raw: unknown): CallUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  if (usage['type'] === 'duration') return secondsUsage(count(usage['seconds']));
  const input = count(usage['input_tokens']);
  const output = count(usage['output_tokens']);
  if (input === undefined && output === undefined) return undefined;
  return { ...NO_USAGE, promptTokens: input ?? 0, completionTokens: output ?? 0 };
}

function secondsUsage(seconds: number | undefined): CallUsage | undefined {
  return seconds === undefined ? undefined : { ...NO_USAGE, audioSeconds: seconds };
}

/** `00:01:02,500 --> 00:01:04,250` (srt) or `01:04.250` (vtt): the last cue's end, in seconds. */
function lastCueEnd(text: string): number | undefined {
  let end: number | undefined;
  for (const match of text.matchAll(/-->\s*(?:(\d+):)?(\d{2}):(\d{2})[.,](\d{3})/g)) {
    end = Number(match[1] ?? 0) * 3600 + Number(match[2]) * 60 + Number(match[3]) + Number(match[4]) / 1000;
  }
  return end;
}
