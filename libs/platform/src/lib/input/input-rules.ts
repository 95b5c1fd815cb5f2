/**
 * What every Arbor service accepts as text and JSON, checked once at the edge (see
 * input-limits.middleware.ts), so no endpoint meets a value PostgreSQL cannot store or that a
 * recursive walk cannot handle.
 */

/** Deepest JSON nesting accepted in a request body: objects and arrays inside each other. */
export const MAX_JSON_DEPTH = 64;

/** Longest excerpt of a client's value quoted back in an error message. */
export const MAX_EXCERPT_LENGTH = 64;

/** A refused value: where it was (`body.metadata.team`, `query.subject`, `path.id`) and why. */
export interface InputProblem {
  field: string;
  problem: string;
}

// U+0000 (PostgreSQL text cannot hold it) or a UTF-16 surrogate without its partner (no
// character at all: UTF-8 would store U+FFFD instead, a value other than the one sent).
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const FORBIDDEN_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` is refused, or undefined when it is fine. */
export function textProblem(text: string): string | undefined {
  const match = FORBIDDEN_TEXT.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000'
    ? 'must not contain the NUL character (U+0000)'
    : `must be valid Unicode: it holds a lone UTF-16 surrogate (U+${match[0].charCodeAt(0).toString(16).toUpperCase()})`;
}

/**
 * The first value in `value` that breaks the rules, named by its path from `field`: strings and
 * object keys must be storable text, and nesting may not go deeper than `maxDepth`. The walk
 * itself stops at `maxDepth`, so a hostile document cannot exhaust the stack.
 */
export function inputProblem(value: unknown, field: string, maxDepth = MAX_JSON_DEPTH): InputProblem | undefined {
  return walk(value, { base: field, segments: [] }, 0, maxDepth, true);
}

/**
 * Only the nesting rule, for bodies whose text is the client's own business (a model prompt, an
 * MCP tool's arguments) but which a recursive reader will walk all the same.
 */
export function nestingProblem(value: unknown, field: string, maxDepth = MAX_JSON_DEPTH): InputProblem | undefined {
  return walk(value, { base: field, segments: [] }, 0, maxDepth, false);
}

/**
 * Where the walk is: written out as a field name only for a refusal (every request body is
 * walked, almost none is refused), an index as `[i]`, a key as `.key` quoted as an excerpt.
 */
interface WalkPath {
  base: string;
  segments: (string | number)[];
}

function fieldOf(path: WalkPath): string {
  let field = path.base;
  for (const segment of path.segments) field += typeof segment === 'number' ? `[${segment}]` : `.${excerpt(segment)}`;
  return field;
}

function walk(value: unknown, path: WalkPath, depth: number, maxDepth: number, text: boolean): InputProblem | undefined {
  if (typeof value === 'string') {
    if (!text) return undefined;
    const problem = textProblem(value);
    return problem === undefined ? undefined : { field: fieldOf(path), problem };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= maxDepth) return { field: fieldOf(path), problem: `is nested too deeply: JSON may nest at most ${maxDepth} objects and arrays` };
  const { segments } = path;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item !== 'object' && (!text || typeof item !== 'string')) continue;
      segments.push(index);
      const found = walk(item, path, depth + 1, maxDepth, text);
      segments.pop();
      if (found) return found;
    }
    return undefined;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    // Building a DTO assigns keys: `__proto__` would silently vanish (or set a prototype), not be refused.
    if (text && key === '__proto__') return { field: `${fieldOf(path)}.__proto__`, problem: 'is a key no Arbor API accepts' };
    const keyProblem = text ? textProblem(key) : undefined;
    if (keyProblem) return { field: `${fieldOf(path)}.${excerpt(key)}`, problem: `has a key that ${keyProblem}` };
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== 'object' && (!text || typeof item !== 'string')) continue;
    segments.push(key);
    const found = walk(item, path, depth + 1, maxDepth, text);
    segments.pop();
    if (found) return found;
  }
  return undefined;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A client's value as an error message may quote it: at most `max` characters, the rest cut
 * with an ellipsis, control characters and lone surrogates shown as escapes (the answer echoes
 * no megabytes and no bytes a terminal or log would act on).
 */
export function excerpt(value: string, max = MAX_EXCERPT_LENGTH): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return cut.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Most values one error message quotes from a list the client sent; the count of the rest follows (as validation names 20 fields). */
export const MAX_QUOTED_VALUES = 20;

/**
 * Values from a client's list as an error may quote them: at most MAX_QUOTED_VALUES, each an
 * excerpt, and how many more there were (`more`, 0 when none), for a message and its details alike.
 */
export function excerptList(values: readonly string[]): { quoted: string[]; more: number } {
  return { quoted: values.slice(0, MAX_QUOTED_VALUES).map((value) => excerpt(value)), more: Math.max(0, values.length - MAX_QUOTED_VALUES) };
}
