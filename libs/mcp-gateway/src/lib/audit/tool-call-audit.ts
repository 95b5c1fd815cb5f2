import type { CatalogueCaller } from '../catalogue/catalogue-access';

/** How a tool call ended, as the audit records it. */
export type ToolCallOutcome =
  /** The upstream answered. */
  | 'ok'
  /** The upstream answered with a tool error (`isError: true`). */
  | 'tool_error'
  /** A guardrail refused its arguments or its result. */
  | 'blocked'
  /** A JSON-RPC error: the upstream's, or the gateway's (unavailable, timed out, cancelled). */
  | 'error'
  /** Over its tool's rate limit; never sent. */
  | 'rate_limited'
  /** A tool the caller may not use (answered as unknown); never sent. */
  | 'denied'
  /** No such tool; never sent. */
  | 'not_found';

export const TOOL_CALL_OUTCOMES: readonly ToolCallOutcome[] = ['ok', 'tool_error', 'blocked', 'error', 'rate_limited', 'denied', 'not_found'];

/** One tool call, as the catalogue saw it end. */
export interface ToolCallEvent {
  caller: CatalogueCaller;
  /** The name the caller sent. */
  tool: string;
  /** The upstream it went (or would have gone) to; null when no upstream has it. */
  upstream: string | null;
  outcome: ToolCallOutcome;
  durationMs: number;
  /** The JSON-RPC error code of an `error` or `rate_limited` call. */
  errorCode?: number;
  /** Only when the server's `audit_payloads` asks: the arguments as sent upstream and the result as answered, after the guardrails. */
  arguments?: unknown;
  result?: unknown;
}

/**
 * The audit of tool calls: every call through the catalogue (every era and transport) is handed
 * to `record`, which must return at once — the writing happens off the call's path.
 */
export abstract class ToolCallAudit {
  /** Whether the calls of this caller to this upstream keep their arguments and results (the server's `audit_payloads`). */
  abstract keepsPayloads(caller: CatalogueCaller, upstream: string): boolean;
  abstract record(event: ToolCallEvent): void;
}
