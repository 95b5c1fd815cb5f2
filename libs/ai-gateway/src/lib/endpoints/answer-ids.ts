/**
 * The ids an answer carries in place of the upstream's: the gateway knows its stored responses by
 * ids of its own, whatever upstream made them, and names them so in every answer.
 */
export interface AnswerIds {
  /** The answer's own id, in place of the id the upstream gave it (a stored response's: the gateway's). */
  readonly id?: string;
  /** Earlier responses the upstream knows by ids of its own (continued from its state): the upstream's id → the gateway's. */
  readonly earlier?: ReadonlyMap<string, string>;
  /** The response this one continues, named where the upstream named none (it was sent the conversation, not an id). */
  readonly previous?: string;
}

// `"previous_response_id":null` as a member of a JSON object: a key's quotes are never escaped, a string's always are.
const NO_PREVIOUS = /"previous_response_id":\s*null/g;

/**
 * `text` (a JSON document, or whole stream events) with the upstream's ids replaced by the
 * gateway's: `upstream`, the answer's own id as the upstream gave it, and the earlier ones; and the
 * previous response named where the upstream left it null. Ids are matched as quoted JSON strings,
 * so no other text matches them.
 */
export function withGatewayIds(text: string, upstream: string | undefined, ids: AnswerIds): string {
  let renamed = upstream === undefined || ids.id === undefined || upstream === ids.id ? text : text.replaceAll(JSON.stringify(upstream), JSON.stringify(ids.id));
  for (const [from, to] of ids.earlier ?? []) renamed = renamed.replaceAll(JSON.stringify(from), JSON.stringify(to));
  if (ids.previous !== undefined) renamed = renamed.replace(NO_PREVIOUS, `"previous_response_id":${JSON.stringify(ids.previous)}`);
  return renamed;
}
