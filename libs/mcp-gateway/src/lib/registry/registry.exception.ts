import { ApiError, excerpt, excerptList } from '@arbor/platform';

export class UpstreamNotFound extends ApiError {
  constructor(name: string) {
    super(404, 'upstream_not_found', `No upstream "${excerpt(name)}".`);
  }
}

export class ServerNotFound extends ApiError {
  constructor(id: string) {
    super(404, 'server_not_found', `No virtual server "${excerpt(id)}".`);
  }
}

export class UpstreamExists extends ApiError {
  constructor(name: string) {
    super(409, 'upstream_exists', `An upstream named "${excerpt(name)}" exists already.`);
  }
}

export class ServerExists extends ApiError {
  constructor(id: string) {
    super(409, 'server_exists', `A virtual server with id "${excerpt(id)}" exists already.`);
  }
}

/** Rows from MCPGW_CONFIG are rewritten from the file at every start: changing them here would not last. */
export class ManagedByConfig extends ApiError {
  constructor(kind: 'upstream' | 'server' | 'agent', name: string) {
    super(409, 'managed_by_config', `The ${kind} "${excerpt(name)}" comes from MCPGW_CONFIG; change it in that file and restart the gateway.`);
  }
}

export class UpstreamInUse extends ApiError {
  constructor(name: string, servers: string[]) {
    super(409, 'upstream_in_use', `The upstream "${excerpt(name)}" is selected by the virtual servers ${servers.join(', ')}; remove it from them first.`, { servers });
  }
}

export class UnknownUpstreams extends ApiError {
  constructor(names: string[]) {
    const { quoted, more } = excerptList(names);
    super(400, 'unknown_upstream', `No upstream named ${quoted.map((name) => `"${name}"`).join(', ')}${more ? ` and ${more} more` : ''}.`, { upstreams: quoted });
  }
}

export class UpstreamUrlNotAllowed extends ApiError {
  constructor(message: string) {
    super(400, 'upstream_url_refused', `${message[0].toUpperCase()}${message.slice(1)}.`);
  }
}

/** An upstream outside MCPGW_REPOSITORY_TOKEN_HOSTS asked for {{project.repository_token}}. */
export class RepositoryTokenNotAllowed extends ApiError {
  constructor(reason: string) {
    super(400, 'repository_token_not_allowed', `${reason[0].toUpperCase()}${reason.slice(1)}; ask an administrator to add the host, or remove the placeholder.`, {
      fields: { headers: ['headers may carry {{project.repository_token}} only for a host in MCPGW_REPOSITORY_TOKEN_HOSTS'] },
    });
  }
}

export class SecretsKeyMissing extends ApiError {
  constructor() {
    super(503, 'secrets_key_not_configured', 'Upstream headers are stored encrypted and MCPGW_SECRETS_KEY is not set on this gateway.');
  }
}
