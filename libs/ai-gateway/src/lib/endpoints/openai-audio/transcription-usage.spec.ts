import { transcriptionUsage } from './transcription-usage';

const usage = (body: string, format?: string) => transcriptionUsage(Buffer.from(body), format ? { response_format: format } : {});

describe('the usage of a transcription, from its answer in each response_format', () => {
  it("reads Whisper's seconds, or GPT-4o transcribe's tokens, from json", () => {
    expect(usage('{"text":"hi","usage":{"type":"duration","seconds":12}}')).toMatchObject({ audioSeconds: 12, promptTokens: 0 });
    expect(usage('{"text":"hi","usage":{"type":"tokens","input_tokens":20,"output_tokens":8,"total_tokens":28}}')).toMatchObject({ promptTokens: 20, completionTokens: 8 });
    expect(usage('{"text":"hi"}')).toBeUndefined();
  });

  it("reads verbose_json's duration", () => {
    expect(usage('{"task":"transcribe","duration":8.47,"text":"hi","segments":[]}', 'verbose_json')).toMatchObject({ audioSeconds: 8.47 });
  });

  it('takes the end of the last cue of srt and vtt', () => {
    expect(usage('1\n00:00:00,000 --> 00:00:04,000\nhello\n\n2\n00:00:04,000 --> 01:02:03,500\nworld\n\n', 'srt')).toMatchObject({ audioSeconds: 3723.5 });
    expect(usage('WEBVTT\n\n00:00.000 --> 00:07.250\nhello\n\n', 'vtt')).toMatchObject({ audioSeconds: 7.25 });
  });

  it("estimates text's seconds from its words (150 a minute), marked estimated", () => {
    expect(usage('one two three four five\n', 'text')).toMatchObject({ audioSeconds: 2, estimated: true });
  });
});
