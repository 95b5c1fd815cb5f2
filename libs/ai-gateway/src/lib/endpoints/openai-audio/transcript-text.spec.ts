import { mapCueText, TRANSCRIPT_DOCUMENT, TRANSCRIPT_TEXT } from './transcript-text';

const upper = (text: string) => text.toUpperCase();

describe('transcript text', () => {
  it("replaces each srt cue's text, never its number or timing, and keeps the blank lines between cues", () => {
    const srt = '1\r\n00:00:00,000 --> 00:00:01,500\r\nhello there\r\n\r\n2\r\n00:00:01,500 --> 00:00:03,000\r\nsecond line\r\nand third\r\n\r\n';
    expect(mapCueText(srt, upper)).toBe('1\r\n00:00:00,000 --> 00:00:01,500\r\nHELLO THERE\r\n\r\n2\r\n00:00:01,500 --> 00:00:03,000\r\nSECOND LINE\r\nAND THIRD\r\n\r\n');
  });

  it('leaves a vtt header and notes as they are, and the subtitles themselves when no text changed', () => {
    const vtt = 'WEBVTT\n\nNOTE made by a test\n\n00:00.000 --> 00:01.000\nsome words\n\n';
    expect(mapCueText(vtt, upper)).toBe('WEBVTT\n\nNOTE made by a test\n\n00:00.000 --> 00:01.000\nSOME WORDS\n\n');
    expect(mapCueText(vtt, (text) => text)).toBe(vtt);
  });

  it('reads every response_format as a document and writes it back as asked', () => {
    const text = TRANSCRIPT_DOCUMENT.read(Buffer.from('said this\n'), { response_format: 'text' });
    expect(TRANSCRIPT_DOCUMENT.write(TRANSCRIPT_TEXT.map(text, upper), { response_format: 'text' })).toBe('SAID THIS\n');
    const verbose = TRANSCRIPT_DOCUMENT.read(Buffer.from(JSON.stringify({ text: 'a b', segments: [{ id: 0, text: 'a b' }], duration: 2 })), { response_format: 'verbose_json' });
    expect(JSON.parse(TRANSCRIPT_DOCUMENT.write(TRANSCRIPT_TEXT.map(verbose, upper), {}))).toEqual({ text: 'A B', segments: [{ id: 0, text: 'A B' }], duration: 2 });
    const srt = TRANSCRIPT_DOCUMENT.read(Buffer.from('1\n00:00:00,000 --> 00:00:01,000\nx\n\n'), { response_format: 'srt' });
    expect(TRANSCRIPT_TEXT.map(srt, (value) => value)).toBe(srt);
    expect(TRANSCRIPT_DOCUMENT.write(TRANSCRIPT_TEXT.map(srt, upper), { response_format: 'srt' })).toBe('1\n00:00:00,000 --> 00:00:01,000\nX\n\n');
  });
});
