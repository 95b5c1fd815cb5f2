/**
 * Where a family's request carries text a person or a tool wrote (prompts, system text, tool
 * results), so that a stage reading or rewriting text (guardrails) needs to know no family: the
 * codec declares it, the stage calls `map`.
 */
export interface RequestText {
  /**
   * The request with each of its texts replaced by `replace(text)`, in order; parts that did not
   * change are the same objects, and a request in which nothing changed is `body` itself.
   */
  map(body: Record<string, unknown>, replace: (text: string) => string): Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** `value[key]` replaced by `next` when that differs: a shallow copy, or `value` itself. */
export function withField<T extends Json>(value: T, key: string, next: unknown): T {
  return next === value[key] ? value : { ...value, [key]: next };
}

/** Each item of a list through `map`: the list itself when none changed. */
export function mapList(list: unknown, map: (item: unknown) => unknown): unknown {
  if (!Array.isArray(list)) return list;
  let changed: unknown[] | undefined;
  list.forEach((item, index) => {
    const next = map(item);
    if (next !== item) (changed ??= [...list])[index] = next;
  });
  return changed ?? list;
}

/** Content that is a string, or a list of parts whose text parts (`types`) carry `text`. */
export function mapTextContent(content: unknown, replace: (text: string) => string, types: ReadonlySet<string>): unknown {
  if (typeof content === 'string') return replace(content);
  return mapList(content, (part) => {
    if (!isObject(part) || !types.has(String(part['type'])) || typeof part['text'] !== 'string') return part;
    return withField(part, 'text', replace(part['text']));
  });
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
