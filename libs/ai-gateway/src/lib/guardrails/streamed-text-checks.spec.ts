import { CHAT_ANSWER_TEXT } from '../endpoints/openai/chat-text';
import { StreamedTextChecks } from './streamed-text-checks';

const delta = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
const FINISH = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`;
const DONE = 'data: [DONE]\n\n';
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('StreamedTextChecks', () => {
  it('passes text at once, checks the text so far each window and at the end, and holds the events without text until text follows or the end', async () => {
    const checked: string[][] = [];
    const checks = new StreamedTextChecks(CHAT_ANSWER_TEXT, async (texts) => void checked.push(texts), 10);
    expect(checks.events(delta('hello '), false)).toBe(delta('hello '));
    expect(checks.events(delta('world, '), false)).toBe(delta('world, '));
    await settle();
    expect(checked).toEqual([['hello world, ']]);
    expect(checks.events(delta('bye') + FINISH + DONE, false)).toBe(delta('bye'));
    expect(checks.events('', true)).toBe(FINISH + DONE);
    await checks.end();
    expect(checked).toEqual([['hello world, '], ['hello world, bye']]);
  });

  it('ends the stream at the next event once a check refuses, and at the end when the last one does', async () => {
    const refusal = new Error('flagged');
    const checks = new StreamedTextChecks(
      CHAT_ANSWER_TEXT,
      async (texts) => {
        if (texts.some((text) => text.includes('bad'))) throw refusal;
      },
      5,
    );
    checks.events(delta('a bad thing'), false);
    await settle();
    expect(() => checks.events(delta(' more'), false)).toThrow(refusal);
    const atEnd = new StreamedTextChecks(CHAT_ANSWER_TEXT, async (texts) => {
      if (texts.some((text) => text.includes('bad'))) throw refusal;
    });
    expect(atEnd.events(delta('bad') + DONE, true)).toBe(delta('bad') + DONE);
    await expect(atEnd.end()).rejects.toBe(refusal);
  });
});
