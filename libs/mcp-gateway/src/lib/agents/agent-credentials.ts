import { Injectable } from '@nestjs/common';
import { type AgentDefinition, staticHeaders } from './agent-definition';

/** Who a call to an agent is made for: what a per-person strategy (token exchange, OAuth) works from. */
export interface AgentCaller {
  /** The OIDC `sub`, or `key:<id>` for a gateway API key. */
  principal: string;
}

/**
 * The seam between the agents and the credentials module (issue 37 §2): the headers the gateway
 * sends an agent, as its `auth` says, for one call (or, with no caller, for reading its card).
 * The caller's own credentials are never among them. Today `StaticAgentCredentials` (the sealed
 * static headers); the credentials module replaces the provider with one serving every strategy.
 */
export abstract class AgentCredentials {
  abstract headersFor(agent: AgentDefinition, caller?: AgentCaller): Promise<Readonly<Record<string, string>>>;
}

@Injectable()
export class StaticAgentCredentials extends AgentCredentials {
  async headersFor(agent: AgentDefinition): Promise<Readonly<Record<string, string>>> {
    return staticHeaders(agent.auth);
  }
}
