/**
 * How a provider takes the parameters of an OpenAI-format request, as data: which it honours, under
 * which name (dotted for a nested field), converted how, and the fields it requires with the value
 * sent when the client gives none. What cannot be data (messages, tools, thinking) the adapter
 * translates in code and marks `translated` here, so that the map still names every parameter
 * the provider honours and drop_params can be honest.
 */
export interface ParameterRule {
  /** The provider's name for it, dotted for a nested field (`metadata.user_id`); omitted: the same name. */
  readonly to?: string;
  /** The client's value in the provider's terms (a string `stop` as a list); undefined leaves the field out. */
  readonly convert?: (value: unknown) => unknown;
}

export interface ParameterMap {
  /**
   * Rules by OpenAI-format name, applied in this order (a later rule writing the same field wins:
   * `max_completion_tokens` after `max_tokens`). `translated`: honoured, by the adapter's code.
   */
  readonly rules: Readonly<Record<string, ParameterRule | 'translated'>>;
  /** Fields the provider requires, with the value sent when no rule set them (`max_tokens` for Anthropic). */
  readonly required?: Readonly<Record<string, unknown>>;
}

/** Every parameter the map honours: what drop_params checks requests against. */
export function parameterNames(map: ParameterMap): ReadonlySet<string> {
  return new Set(Object.keys(map.rules));
}

/** The provider's fields for the map's data rules (`translated` ones are the caller's), then the required ones. */
export function mapParameters(body: Readonly<Record<string, unknown>>, map: ParameterMap, target: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [name, rule] of Object.entries(map.rules)) {
    if (rule === 'translated') continue;
    const given = body[name];
    if (given === undefined || given === null) continue;
    const value = rule.convert ? rule.convert(given) : given;
    if (value !== undefined) setPath(target, rule.to ?? name, value);
  }
  for (const [field, value] of Object.entries(map.required ?? {})) {
    if (getPath(target, field) === undefined) setPath(target, field, value);
  }
  return target;
}

/** A string as a one-item list, a non-empty list as it is, anything else left out (`stop`). */
export function asList(value: unknown): unknown[] | undefined {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}

/** Only strings pass (`user` as Anthropic's `metadata.user_id`). */
export function onlyString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const names = path.split('.');
  let node = target;
  for (const name of names.slice(0, -1)) {
    const next = node[name];
    node = (typeof next === 'object' && next !== null ? next : (node[name] = {})) as Record<string, unknown>;
  }
  node[names.at(-1) as string] = value;
}

function getPath(target: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((node, name) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[name] : undefined), target);
}
