import type { GuardrailScope } from '@arbor/guardrails';

const TOOL_CALLS = "tool calls are the MCP gateway's: give this guardrail to the MCP gateway's config (MCPGW_CONFIG)";

/** What the AI gateway runs of a `guardrails:` list: the modes of model calls. */
export const MODEL_CALL_GUARDRAILS: GuardrailScope = {
  modes: ['pre_call', 'post_call', 'during_call'],
  kinds: ['litellm_content_filter', 'openai_moderation', 'generic_guardrail_api'],
  refused: { pre_mcp_call: TOOL_CALLS, post_mcp_call: TOOL_CALLS },
};
