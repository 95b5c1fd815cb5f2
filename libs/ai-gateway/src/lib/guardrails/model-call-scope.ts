import type { GuardrailScope } from '@arbor/guardrails';

/** What the AI gateway runs of a `guardrails:` list: the modes of model calls. */
export const MODEL_CALL_GUARDRAILS: GuardrailScope = {
  modes: ['pre_call'],
  refused: {
    post_call: 'answers are not checked yet (post_call), and they would reach the client unchecked; use pre_call',
    during_call: 'streamed answers are not checked yet (during_call), and they would reach the client unchecked; use pre_call',
    pre_mcp_call: "tool calls are the MCP gateway's: give this guardrail to the MCP gateway's config (MCPGW_CONFIG)",
    post_mcp_call: "tool calls are the MCP gateway's: give this guardrail to the MCP gateway's config (MCPGW_CONFIG)",
  },
};
