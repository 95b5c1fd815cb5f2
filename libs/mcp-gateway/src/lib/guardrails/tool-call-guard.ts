import type { CallToolResult, Result } from '@modelcontextprotocol/sdk/types.js';
import type { CounterSeries } from '@arbor/observability';
import { excerpt } from '@arbor/platform';
import type { ContentFilter } from '@arbor/guardrails';

/** A configured guardrail, compiled, with its series of the actions counter. */
export interface RunningGuardrail {
  readonly name: string;
  readonly filter: ContentFilter;
  /** Tool calls it refused, and tool calls whose arguments or result it masked. */
  readonly blocked: CounterSeries<'guardrail' | 'action'>;
  readonly masked: CounterSeries<'guardrail' | 'action'>;
}

/** Where a refusal's facts are, beside its text, for a client that reads them by code. */
export const GUARDRAIL_VIOLATION_KEY = 'arbor/guardrail_violation';

/** Thrown inside a walk: the first BLOCK rule that matched (never the text it matched). */
class Blocked {
  constructor(
    readonly guardrail: string,
    /** The pattern's name; undefined for a blocked keyword (a refusal names no keyword). */
    readonly pattern: string | undefined,
    /** `pattern` names a content category. */
    readonly category = false,
  ) {}
}

/**
 * The guardrails of one tool's calls (a virtual server's, and the `default_on` ones): `pre_mcp_call`
 * on every string inside the call's arguments, `post_mcp_call` on the text of its result (text
 * blocks, embedded resources' text, `structuredContent`). MASK rewrites in place of the match;
 * BLOCK answers a tool error (`isError: true`) naming guardrail and pattern, never the matched
 * text: a refused call never reaches the upstream, a refused result never reaches the client.
 */
export class ToolCallGuard {
  constructor(
    private readonly before: readonly RunningGuardrail[],
    private readonly after: readonly RunningGuardrail[],
    /** Names the server gives that this gateway does not have: every call is refused rather than passed unchecked. */
    private readonly missing: readonly string[] = [],
  ) {}

  /** The arguments as the upstream may see them, or the tool error that answers the call instead. */
  arguments(args: Record<string, unknown> | undefined): { arguments: Record<string, unknown> | undefined } | { refused: CallToolResult } {
    if (this.missing.length > 0) return { refused: missingRefusal(this.missing) };
    if (this.before.length === 0 || args === undefined) return { arguments: args };
    try {
      const masking = new Set<RunningGuardrail>();
      const guarded = guardStrings(args, this.before, masking) as Record<string, unknown>;
      for (const guardrail of masking) guardrail.masked.inc();
      return { arguments: guarded };
    } catch (error) {
      if (error instanceof Blocked) return { refused: refusal(error, 'arguments') };
      throw error;
    }
  }

  /** The result as the client may see it: masked, or a tool error in place of one that carried what a BLOCK rule finds. */
  result(result: Result): Result {
    if (this.after.length === 0) return result;
    try {
      return guardResult(result, this.after);
    } catch (error) {
      if (error instanceof Blocked) return refusal(error, 'result');
      throw error;
    }
  }
}

/** The result with its text guarded: content blocks (text, an embedded resource's text) and structuredContent. */
function guardResult(result: Result, guardrails: readonly RunningGuardrail[]): Result {
  const content = result['content'];
  const structured = result['structuredContent'];
  const masking = new Set<RunningGuardrail>();
  let guardedContent = content;
  if (Array.isArray(content)) {
    const blocks = content.map((block: unknown) => guardBlock(block, guardrails, masking));
    if (blocks.some((block, index) => block !== content[index])) guardedContent = blocks;
  }
  const guardedStructured = structured === undefined ? undefined : guardStrings(structured, guardrails, masking);
  for (const guardrail of masking) guardrail.masked.inc();
  if (guardedContent === content && guardedStructured === structured) return result;
  return { ...result, ...(guardedContent !== content ? { content: guardedContent } : {}), ...(guardedStructured !== structured ? { structuredContent: guardedStructured } : {}) };
}

function guardBlock(block: unknown, guardrails: readonly RunningGuardrail[], masking: Set<RunningGuardrail>): unknown {
  if (!isRecord(block)) return block;
  if (block['type'] === 'text' && typeof block['text'] === 'string') {
    const text = guardText(block['text'], guardrails, masking);
    return text === block['text'] ? block : { ...block, text };
  }
  const resource = block['resource'];
  if (block['type'] === 'resource' && isRecord(resource) && typeof resource['text'] === 'string') {
    const text = guardText(resource['text'], guardrails, masking);
    return text === resource['text'] ? block : { ...block, resource: { ...resource, text } };
  }
  return block;
}

/** Every string inside a JSON value guarded (objects and arrays copied only where something was masked). */
function guardStrings(value: unknown, guardrails: readonly RunningGuardrail[], masking: Set<RunningGuardrail>): unknown {
  return walk(value, (text) => guardText(text, guardrails, masking));
}

function walk(value: unknown, guard: (text: string) => string): unknown {
  if (typeof value === 'string') return guard(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const guarded = walk(item, guard);
      if (guarded !== item) (copy ??= [...value])[index] = guarded;
    });
    return copy ?? value;
  }
  if (isRecord(value)) {
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = value[key];
      const guarded = walk(item, guard);
      if (guarded !== item) (copy ??= { ...value })[key] = guarded;
    }
    return copy ?? value;
  }
  return value;
}

/** A text after every guardrail: masked (those that masked it added to `masking`), or Blocked thrown. */
function guardText(text: string, guardrails: readonly RunningGuardrail[], masking: Set<RunningGuardrail>): string {
  let result = text;
  for (const guardrail of guardrails) {
    const verdict = guardrail.filter.filter(result);
    if ('blocked' in verdict) {
      guardrail.blocked.inc();
      throw new Blocked(guardrail.name, verdict.blocked.keyword ? undefined : verdict.blocked.rule, verdict.blocked.category === true);
    }
    if (verdict.text !== result) masking.add(guardrail);
    result = verdict.text;
  }
  return result;
}

function refusal(blocked: Blocked, where: 'arguments' | 'result'): CallToolResult {
  const what = blocked.pattern === undefined ? 'a blocked keyword was detected' : `${excerpt(blocked.pattern)} ${blocked.category ? 'category' : 'pattern'} detected`;
  const text =
    where === 'arguments'
      ? `Tool call blocked by guardrail "${excerpt(blocked.guardrail)}": ${what} in its arguments; the tool was not called.`
      : `Tool result blocked by guardrail "${excerpt(blocked.guardrail)}": ${what} in what the tool answered.`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: {
      [GUARDRAIL_VIOLATION_KEY]: {
        code: 'guardrail_violation',
        guardrail: blocked.guardrail,
        ...(blocked.pattern !== undefined ? { pattern: blocked.pattern } : {}),
        mode: where === 'arguments' ? 'pre_mcp_call' : 'post_mcp_call',
      },
    },
  };
}

function missingRefusal(missing: readonly string[]): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `Tool call refused: this virtual server names the guardrail${missing.length > 1 ? 's' : ''} ${missing.map((name) => `"${excerpt(name)}"`).join(', ')}, which this gateway's MCPGW_CONFIG does not configure.`,
      },
    ],
    isError: true,
    _meta: { [GUARDRAIL_VIOLATION_KEY]: { code: 'guardrail_not_configured', guardrails: [...missing] } },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
