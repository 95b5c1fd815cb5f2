// The fakes answer what they were told to say: a last user message `say: <text>` makes <text> the
// answer (in every family), streamed in pieces of SAID_PIECE characters that cut through words, as
// a model's tokens do. Tests of what the gateway does to answers (guardrails on answers) choose
// the answer this way, with no state shared between the test and the fake.
const SAY = /^say: ([\s\S]*)$/;
const SAID_PIECE = 5;

/** The text a message's content asks the fake to say, if it does. */
export function saidText(content: unknown): string | undefined {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter((part): part is { text: string } => typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string')
            .map((part) => part.text)
            .join(' ')
        : undefined;
  return text === undefined ? undefined : SAY.exec(text)?.[1];
}

/** The pieces a streamed answer of `text` comes in: whole words, or SAID_PIECE characters of a said text. */
export function streamedPieces(text: string, said: boolean): string[] {
  if (!said) return text.split(/(?<= )/);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += SAID_PIECE) pieces.push(text.slice(at, at + SAID_PIECE));
  return pieces;
}
