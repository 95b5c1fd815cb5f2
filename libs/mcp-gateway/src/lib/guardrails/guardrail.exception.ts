import { ApiError, excerptList } from '@arbor/platform';

/** A virtual server named a guardrail that MCPGW_CONFIG does not have. */
export class UnknownGuardrails extends ApiError {
  constructor(names: readonly string[], configured: readonly string[]) {
    const { quoted, more } = excerptList([...names]);
    const there = configured.length > 0 ? `the gateway has ${configured.map((name) => `"${name}"`).join(', ')}` : 'MCPGW_CONFIG configures none';
    super(400, 'unknown_guardrail', `No guardrail named ${quoted.map((name) => `"${name}"`).join(', ')}${more ? ` and ${more} more` : ''} is configured; ${there}.`, {
      guardrails: quoted,
      configured: [...configured],
    });
  }
}
