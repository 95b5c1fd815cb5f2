import { ApiError, excerpt, excerptList } from '@arbor/platform';

export class AgentNotFound extends ApiError {
  constructor(name: string) {
    super(404, 'agent_not_found', `No agent "${excerpt(name)}".`);
  }
}

/** Agents and upstreams share one namespace: a virtual server names either, and each agent is a tool of that name. */
export class AgentNameTaken extends ApiError {
  /** `by`: what holds the name already; `agent_exists` when an agent asks for another agent's name, `name_taken` across kinds. */
  constructor(name: string, by: 'agent' | 'upstream', asking: 'agent' | 'upstream' = 'agent') {
    super(
      409,
      by === asking ? 'agent_exists' : 'name_taken',
      by === asking ? `An agent named "${excerpt(name)}" exists already.` : `"${excerpt(name)}" is the name of an ${by}; agents and upstreams share one namespace.`,
    );
  }
}

export class AgentInUse extends ApiError {
  constructor(name: string, servers: string[]) {
    super(409, 'agent_in_use', `The agent "${excerpt(name)}" is included by the virtual servers ${servers.join(', ')}; remove it from them first.`, { servers });
  }
}

export class UnknownAgents extends ApiError {
  constructor(names: string[]) {
    const { quoted, more } = excerptList(names);
    super(400, 'unknown_agent', `No agent named ${quoted.map((name) => `"${name}"`).join(', ')}${more ? ` and ${more} more` : ''}.`, { agents: quoted });
  }
}

/** The agent's card could not be read (or is not an A2A card): nothing is registered. The reason belongs to `url`, where a form shows it. */
export class AgentCardUnreadable extends ApiError {
  constructor(name: string, reason: string) {
    super(400, 'agent_card_unreadable', `The card of agent "${excerpt(name)}" could not be read: ${reason}.`, { fields: { url: [`The card could not be read: ${reason}`] } });
  }
}
