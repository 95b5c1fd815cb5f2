/**
 * The ids an answer the gateway keeps carries in place of the upstream's: the gateway knows its
 * stored responses by ids of its own, whatever upstream made them.
 */
export interface AnswerIds {
  /** The answer's own id, in place of the id the upstream gave it. */
  readonly id: string;
  /** Earlier responses the upstream knows by ids of its own (continued from its state): the upstream's id → the gateway's. */
  readonly earlier?: ReadonlyMap<string, string>;
}

/**
 * `text` (a JSON document, or whole stream events) with the upstream's ids replaced by the
 * gateway's: `upstream`, the answer's own id as the upstream gave it, and the earlier ones. Ids
 * are matched as quoted JSON strings, so no other text matches them.
 */
export function withGatewayIds(text: string, upstream: string | undefined, ids: AnswerIds): string {
  let renamed = upstream === undefined || upstream === ids.id ? text : text.replaceAll(JSON.stringify(upstream), JSON.stringify(ids.id));
  for (const [from, to] of ids.earlier ?? []) renamed = renamed.replaceAll(JSON.stringify(from), JSON.stringify(to));
  return renamed;
}
