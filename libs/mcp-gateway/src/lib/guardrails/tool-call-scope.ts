import type { GuardrailScope } from '@arbor/guardrails';

const MODEL_CALLS = "model calls are the AI gateway's: give this guardrail to the AI gateway's config (AIGW_CONFIG); here use pre_mcp_call or post_mcp_call";

/** What the MCP gateway runs of a `guardrails:` list: the modes of tool calls. */
export const TOOL_CALL_GUARDRAILS: GuardrailScope = {
  modes: ['pre_mcp_call', 'post_mcp_call'],
  refused: { pre_call: MODEL_CALLS, post_call: MODEL_CALLS, during_call: MODEL_CALLS },
};
