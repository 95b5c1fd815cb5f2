import type { AnswerText } from '../endpoints/answer-text';
import { dataOf, splitEvents } from './answer-stream-guard';

/** New streamed text, in characters, that starts another check of the text so far (about 200 tokens). */
export const CHECK_WINDOW = 800;

/**
 * The guardrails that judge a text whole (a moderation model, a guardrail API) on a streamed
 * answer. The stream is not held for them: each text the model streams (a channel of the family's
 * AnswerText) is gathered as its events pass, and the text so far is checked in the background
 * each time another `window` characters have come (one check at a time, the next one on all that
 * came meanwhile). A refusal ends the stream at the next event; at the end the whole text is checked
 * once more (unless the last check saw it all) before the stream's last events (its finish, usage,
 * `[DONE]`: events without text are held until text follows) go, so that a stream whose text is
 * refused never ends as a success.
 */
export class StreamedTextChecks {
  private readonly texts = new Map<string, string>();
  private unchecked = 0;
  private running: Promise<void> | undefined;
  private refusal: unknown;
  private held = '';

  constructor(
    private readonly answerText: AnswerText,
    /** Refuses by rejecting (with the error that ends the stream). */
    private readonly check: (texts: string[]) => Promise<void>,
    private readonly window = CHECK_WINDOW,
  ) {}

  /**
   * Whole events on their way to the client: those that may go on now. An event with text goes at
   * once (with the events held before it); one without (a finish, usage, `[DONE]`) is held until
   * text follows or the stream ends, so that the stream's end waits for the last check. Throws the
   * refusal a check has come to.
   */
  events(text: string, final: boolean): string {
    if (this.refusal !== undefined) throw this.refusal;
    let out = '';
    for (const event of splitEvents(text)) {
      const data = dataOf(event);
      let said = false;
      if (data) {
        this.answerText.event(
          data,
          (channel, delta) => {
            this.texts.set(channel, (this.texts.get(channel) ?? '') + delta);
            this.unchecked += delta.length;
            said ||= delta !== '';
            return delta;
          },
          (whole) => whole,
        );
      }
      this.held += event;
      if (said) {
        out += this.held;
        this.held = '';
      }
    }
    if (this.unchecked >= this.window && !this.running) this.start();
    if (!final) return out;
    const rest = this.held;
    this.held = '';
    return out + rest;
  }

  /** At the stream's end: the checks under way, then the whole text if any of it is unchecked; rejects with a refusal. */
  async end(): Promise<void> {
    while (this.running) await this.running;
    if (this.refusal !== undefined) throw this.refusal;
    if (this.unchecked > 0) await this.check(this.snapshot());
  }

  private start(): void {
    this.unchecked = 0;
    this.running = this.check(this.snapshot()).then(
      () => {
        this.running = undefined;
        if (this.unchecked >= this.window && this.refusal === undefined) this.start();
      },
      (error: unknown) => {
        this.refusal = error;
        this.running = undefined;
      },
    );
  }

  private snapshot(): string[] {
    return [...this.texts.values()].filter((text) => text !== '');
  }
}
