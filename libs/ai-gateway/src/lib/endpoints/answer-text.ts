/**
 * Where a family's answers carry text the model wrote, so that a stage reading or rewriting it
 * (guardrails on answers) needs to know no family: in a whole JSON answer, and in the events of a
 * stream — deltas that continue a text (a choice, a content block, an output part), and the whole
 * texts some events repeat once a part is done.
 */
export interface AnswerText {
  /** The answer with each of its texts replaced by `replace(text)`; the same object where nothing changed. */
  map(answer: Record<string, unknown>, replace: (text: string) => string): Record<string, unknown>;
  /**
   * One streamed event's data with its deltas replaced by `delta(channel, text)` (`channel` names the
   * text it continues) and the whole texts it repeats by `whole(text)`; the same object where
   * nothing changed. The deltas come in the order the event holds them, every call alike.
   */
  event(data: Record<string, unknown>, delta: (channel: string, text: string) => string, whole: (text: string) => string): Record<string, unknown>;
}

/**
 * A family whose whole answers are not all JSON (a transcript as text, srt or vtt): the answer as
 * a document the stages read and rewrite (`AnswerText` finds its text there), and that document
 * written back as the client asked for it.
 */
export interface AnswerDocument {
  read(answer: Buffer, request: Record<string, unknown>): Record<string, unknown>;
  write(document: Record<string, unknown>, request: Record<string, unknown>): string;
}
